//! A streamable-HTTP MCP server small enough to read: it answers `initialize`, `tools/list`
//! (one tool, `whoami`) and `tools/call` with plain JSON, and records the headers of every
//! request it receives, for the tests to look for tokens that should not be there.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// A running fake server: its URL and every header line it received, lower-cased names.
pub struct FakeHttpServer {
    url: String,
    headers: Arc<Mutex<Vec<String>>>,
}

impl FakeHttpServer {
    /// Starts a server on a free loopback port; it runs until the test's runtime stops.
    pub async fn start() -> FakeHttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let headers = Arc::new(Mutex::new(Vec::new()));
        let recorded = headers.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, recorded.clone()));
            }
        });
        FakeHttpServer { url, headers }
    }

    /// Its endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every header line received so far (`name: value`).
    pub fn headers(&self) -> Vec<String> {
        self.headers.lock().unwrap().clone()
    }
}

/// One connection: requests one after another (keep-alive), each answered.
async fn serve(stream: TcpStream, headers: Arc<Mutex<Vec<String>>>) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    loop {
        let mut request_line = String::new();
        if read.read_line(&mut request_line).await.unwrap_or(0) == 0 {
            return;
        }
        let method = request_line.split(' ').next().unwrap_or("").to_owned();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                let name = name.trim().to_ascii_lowercase();
                if name == "content-length" {
                    length = value.trim().parse().unwrap_or(0);
                }
                headers
                    .lock()
                    .unwrap()
                    .push(format!("{name}: {}", value.trim()));
            }
        }
        let mut body = vec![0u8; length];
        if read.read_exact(&mut body).await.is_err() {
            return;
        }
        let (status, answer) = match method.as_str() {
            "POST" => answer(&body),
            "DELETE" => ("200 OK", String::new()),
            _ => ("405 Method Not Allowed", String::new()),
        };
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if write.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// The answer to one JSON-RPC message: a result for a request, nothing (202) for the rest.
fn answer(body: &[u8]) -> (&'static str, String) {
    let Ok(message) = serde_json::from_slice::<serde_json::Value>(body) else {
        return ("400 Bad Request", String::new());
    };
    let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
        return ("202 Accepted", String::new());
    };
    let result = match method {
        "initialize" => serde_json::json!({
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake-http", "version": "1.0"},
        }),
        "tools/list" => serde_json::json!({"tools": [{
            "name": "whoami",
            "description": "Answers `fine`",
            "inputSchema": {"type": "object", "properties": {}},
        }]}),
        "tools/call" => serde_json::json!({"content": [{"type": "text", "text": "fine"}]}),
        _ => {
            let error = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}});
            return ("200 OK", error.to_string());
        }
    };
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
    ("200 OK", reply.to_string())
}
