//! The MCP test servers start, answer `initialize`, listen on 127.0.0.1 only, and leave no
//! process behind once stopped.

use std::collections::HashSet;
use std::fs;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcp_servers::{
    EVERYTHING_SCRIPT, FILESYSTEM_SCRIPT, HttpServer, LOOPBACK_PRELOAD, everything_stdio,
    filesystem_stdio, node, node_pids_of, servers_dir,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::Command;
use tokio::time::timeout;

const PATIENCE: Duration = Duration::from_secs(20);

fn initialize(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "mcp-servers-tests", "version": "0.0.0" }
        }
    })
}

fn assert_initialized(response: &Value, server_name: &str) {
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    assert_eq!(response["id"], 1, "{response}");
    let result = &response["result"];
    assert_eq!(result["serverInfo"]["name"], server_name, "{response}");
    assert!(result["protocolVersion"].is_string(), "{response}");
    assert!(result["capabilities"]["tools"].is_object(), "{response}");
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP.

/// POSTs `body` to the server's MCP endpoint as an MCP client does, over a raw HTTP/1.1
/// connection, and returns the status, the headers (lower-cased names) and the JSON-RPC
/// messages of the answer (one JSON body, or the `data:` lines of an event stream).
async fn post(server: &HttpServer, body: &Value) -> (u16, Vec<(String, String)>, Vec<Value>) {
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {len}\r\n\r\n{body}",
        port = server.port(),
        len = body.len(),
    );
    let mut stream = TcpStream::connect(("127.0.0.1", server.port()))
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    // The server answers `connection: keep-alive` whatever the request asks, so the answer ends
    // where its framing says, not when the connection closes.
    let (head, body) = timeout(PATIENCE, read_response(&mut stream))
        .await
        .unwrap_or_else(|_| panic!("no complete answer; server output:\n{}", server.output()));

    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let event_stream = headers
        .iter()
        .any(|(name, value)| name == "content-type" && value.starts_with("text/event-stream"));
    let body = String::from_utf8(body).unwrap();
    let messages = if event_stream {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    } else {
        vec![serde_json::from_str(&body).unwrap()]
    };
    (status, headers, messages)
}

/// Reads one HTTP/1.1 response: its head, and its body as framed by `content-length` or chunked
/// transfer encoding (decoded), else up to the end of the connection.
async fn read_response(stream: &mut TcpStream) -> (String, Vec<u8>) {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        let read = stream.read(&mut buffer).await.unwrap();
        raw.extend_from_slice(&buffer[..read]);
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8(raw[..split].to_vec()).unwrap();
            let body = &raw[split + 4..];
            let lower = head.to_ascii_lowercase();
            let length = lower
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map(|length| length.trim().parse::<usize>().unwrap());
            if let Some(length) = length {
                if body.len() >= length {
                    return (head, body[..length].to_vec());
                }
            } else if lower.contains("transfer-encoding: chunked") {
                if let Some(body) = dechunk(body) {
                    return (head, body);
                }
            } else if read == 0 {
                return (head, body.to_vec());
            }
        }
        assert!(read > 0, "the connection closed mid-answer: {raw:?}");
    }
}

/// The decoded body, once `body` holds every chunk up to the last, empty one.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&body[..line_end]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        if body.len() < size + 2 {
            return None;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

#[tokio::test]
async fn the_http_server_answers_initialize() {
    let server = HttpServer::start_everything().await;
    assert_eq!(
        server.url(),
        format!("http://127.0.0.1:{}/mcp", server.port())
    );

    let (status, headers, messages) = post(&server, &initialize(1)).await;

    assert_eq!(status, 200, "{headers:?} {messages:?}");
    assert!(
        headers
            .iter()
            .any(|(name, value)| name == "mcp-session-id" && !value.is_empty()),
        "no session id: {headers:?}"
    );
    let response = messages
        .iter()
        .find(|message| message.get("id").is_some())
        .unwrap_or_else(|| panic!("no response among {messages:?}"));
    assert_initialized(response, "mcp-servers/everything");
}

/// A listening TCP socket, as /proc/net/tcp{,6} lists it.
#[derive(Debug, PartialEq)]
struct Listener {
    address: IpAddr,
    port: u16,
    inode: u64,
}

fn listeners() -> Vec<Listener> {
    let mut found = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            if fields.len() < 10 || fields[3] != "0A" {
                continue;
            }
            let (address, port) = fields[1].split_once(':').unwrap();
            found.push(Listener {
                address: parse_proc_address(address),
                port: u16::from_str_radix(port, 16).unwrap(),
                inode: fields[9].parse().unwrap(),
            });
        }
    }
    found
}

/// /proc/net/tcp writes addresses as 32-bit words in host (little-endian) byte order.
fn parse_proc_address(hex: &str) -> IpAddr {
    let words: Vec<u32> = (0..hex.len() / 8)
        .map(|i| u32::from_str_radix(&hex[i * 8..i * 8 + 8], 16).unwrap())
        .collect();
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    match bytes.len() {
        4 => IpAddr::V4(Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3])),
        16 => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(bytes).unwrap())),
        _ => panic!("unexpected address {hex}"),
    }
}

/// The inodes of the sockets process `pid` has open.
fn socket_inodes(pid: u32) -> HashSet<u64> {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|fd| {
            let target = fs::read_link(fd.ok()?.path()).ok()?;
            let target = target.to_str()?;
            target
                .strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

#[tokio::test]
async fn the_http_server_listens_on_127_0_0_1_only() {
    let server = HttpServer::start_everything().await;

    let sockets = socket_inodes(server.pid());
    let own: Vec<Listener> = listeners()
        .into_iter()
        .filter(|listener| sockets.contains(&listener.inode))
        .collect();

    assert_eq!(
        own.iter().map(|l| (l.address, l.port)).collect::<Vec<_>>(),
        vec![(IpAddr::V4(Ipv4Addr::LOCALHOST), server.port())],
        "the server's listening sockets"
    );
    // Nothing listens on that port on another interface either.
    let elsewhere: Vec<Listener> = listeners()
        .into_iter()
        .filter(|l| l.port == server.port() && l.address != IpAddr::V4(Ipv4Addr::LOCALHOST))
        .collect();
    assert!(
        elsewhere.is_empty(),
        "listening elsewhere too: {elsewhere:?}"
    );
}

#[tokio::test]
async fn the_loopback_preload_binds_listeners_without_a_host_to_127_0_0_1() {
    let dir = servers_dir();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/listen-cases.cjs");
    let output = timeout(
        PATIENCE,
        Command::new(node())
            .arg("--require")
            .arg(dir.join(LOOPBACK_PRELOAD))
            .arg(&script)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("listen-cases.cjs finishes")
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {stderr}", output.status);

    let results: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let got: Vec<(String, String, Value)> = results
        .iter()
        .map(|r| {
            let case = r["case"].as_str().unwrap().to_owned();
            let host = r["host"].as_str().unwrap().to_owned();
            (case, host, r["callback"].clone())
        })
        .collect();
    let expected = [
        ("listen()", "127.0.0.1", Value::Null),
        ("listen(cb)", "127.0.0.1", json!(true)),
        ("listen(port)", "127.0.0.1", Value::Null),
        ("listen('port')", "127.0.0.1", Value::Null),
        ("listen(port, cb)", "127.0.0.1", json!(true)),
        ("listen('port', cb)", "127.0.0.1", json!(true)),
        ("listen(port, backlog, cb)", "127.0.0.1", json!(true)),
        (
            "listen(port, undefined, backlog, cb)",
            "127.0.0.1",
            json!(true),
        ),
        ("listen({port})", "127.0.0.1", Value::Null),
        ("listen({port}, cb)", "127.0.0.1", json!(true)),
        ("http listen(port, cb)", "127.0.0.1", json!(true)),
        // An explicit host and a unix socket path are left as they are.
        ("listen(port, host)", "127.0.0.2", Value::Null),
        ("listen({port, host})", "127.0.0.2", Value::Null),
        ("listen(path)", "path", Value::Null),
    ];
    let expected: Vec<(String, String, Value)> = expected
        .into_iter()
        .map(|(case, host, callback)| (case.to_owned(), host.to_owned(), callback))
        .collect();
    assert_eq!(got, expected);
    // A listener the preload gave its host is bound when `listen` returns, as Node binds one
    // given no host (the conformance suite's servers read their port at once).
    for result in &results {
        let preload_chose_the_host = result["host"] == "127.0.0.1";
        if preload_chose_the_host {
            assert_eq!(result["atOnce"], json!(true), "{result}");
        }
    }
}

#[tokio::test]
async fn dropping_the_http_server_leaves_no_process() {
    let server = HttpServer::start_everything().await;
    let pid = server.pid();
    let port = server.port();
    assert!(node_pids_of(EVERYTHING_SCRIPT).contains(&pid));
    assert!(node_pids_of("streamableHttp").contains(&pid));

    drop(server);

    assert!(!node_pids_of(EVERYTHING_SCRIPT).contains(&pid));
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "process {pid} is still there (a zombie?)"
    );
    assert!(
        TcpStream::connect(("127.0.0.1", port)).await.is_err(),
        "something still accepts on {port}"
    );
}

// ---------------------------------------------------------------------------------------------
// stdio.

/// Spawns `command args`, sends `initialize` on its stdin, and returns the response read from
/// its stdout, then kills it and checks that it is gone.
async fn initialize_over_stdio(command: String, args: Vec<String>, script: &str) -> Value {
    assert!(Path::new(&command).is_absolute(), "{command}");
    let mut child = Command::new(&command)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    // A process spawned a moment ago may not show its new command line yet.
    timeout(PATIENCE, async {
        while !node_pids_of(script).contains(&pid) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("process {pid} never showed {script} in its command line"));

    let mut stdin = child.stdin.take().unwrap();
    let mut line = initialize(1).to_string();
    line.push('\n');
    stdin.write_all(line.as_bytes()).await.unwrap();
    stdin.flush().await.unwrap();

    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let response = timeout(PATIENCE, async {
        // Notifications may come first; the response is the message with our id.
        while let Some(line) = stdout.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id") == Some(&json!(1)) {
                return message;
            }
        }
        panic!("the server closed its stdout without answering");
    })
    .await;
    let response = match response {
        Ok(response) => response,
        Err(_) => {
            child.kill().await.unwrap();
            let mut stderr = String::new();
            let _ = child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .await;
            panic!("no answer to initialize within {PATIENCE:?}; stderr:\n{stderr}");
        }
    };

    child.kill().await.unwrap(); // kills and reaps
    assert!(!node_pids_of(script).contains(&pid));
    response
}

#[tokio::test]
async fn the_everything_stdio_server_answers_initialize() {
    let (command, args) = everything_stdio();
    assert_eq!(args.last().map(String::as_str), Some("stdio"));
    let response = initialize_over_stdio(command, args, EVERYTHING_SCRIPT).await;
    assert_initialized(&response, "mcp-servers/everything");
}

/// A directory under the system's temporary one, removed when dropped (a failing test too).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn the_filesystem_stdio_server_answers_initialize() {
    let root = TempDir::new("mcp-servers-test-filesystem");
    let (command, args) = filesystem_stdio(&root.0);
    assert_eq!(args.last().map(String::as_str), root.0.to_str());

    let response = initialize_over_stdio(command, args, FILESYSTEM_SCRIPT).await;

    assert_eq!(response["id"], 1, "{response}");
    assert!(
        response["result"]["serverInfo"]["name"].is_string(),
        "{response}"
    );
    assert!(
        response["result"]["capabilities"]["tools"].is_object(),
        "{response}"
    );
}
