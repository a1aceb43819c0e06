//! A server's message longer than the client reads of one ([`MESSAGE_CAP`]),
//! over stdio or HTTP: what can be read of its start. The client stops reading at the cap, so
//! the message is a prefix of JSON: [`partial_json`] reads such a prefix as far as it goes (an
//! open string keeps what it has, an open object or array what it has), and [`CutAnswer`] takes
//! a tool call's answer from it: the request's id, when it came before the cut, and the text of
//! its content.

use serde_json::{Map, Value};

/// The most the client reads of one message from a server: 4 MiB (4,194,304 bytes), a line of
/// a stdio server's stdout, an HTTP server's JSON body or one event of its SSE body. A longer
/// answer to a tool call is cut there: the call gets what its text had so far (its result then
/// bounded with `at least <read> bytes` in its marker); a stdio server, stopped in the middle of
/// a message, is killed and started again for the next call, an HTTP answer's connection is
/// closed. Any other message that long fails with a clear error. Far above what a model reads
/// of one result, far below what a runaway server could make the client hold.
pub const MESSAGE_CAP: usize = 4 * 1024 * 1024;

/// What is read of a message cut at the cap.
#[derive(Debug, PartialEq)]
pub(crate) struct CutAnswer {
    /// The request it answers, when its id came before the cut.
    pub(crate) id: Option<Value>,
    /// Its content's text, as far as it came (blocks joined by a line break).
    pub(crate) text: String,
    /// What the message is when it is not a result: a server's request or notification, or
    /// an error.
    pub(crate) other: Option<NotAResult>,
}

/// A cut message that is not a tool call's result.
#[derive(Debug, PartialEq)]
pub(crate) enum NotAResult {
    /// A request or a notification of the server's: its method (never an answer to a call).
    Method(String),
    /// An error answer: its message, as far as it came.
    Error(String),
}

impl CutAnswer {
    /// Reads the answer in `prefix`, the first bytes of a message.
    pub(crate) fn read(prefix: &[u8]) -> CutAnswer {
        let message = partial_json(prefix).unwrap_or(Value::Null);
        let id = message
            .get("id")
            .filter(|id| id.is_number() || id.is_string())
            .cloned();
        let text = message
            .pointer("/result/content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|block| block.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        let other = match (message.get("method"), message.get("error")) {
            (Some(method), _) => Some(NotAResult::Method(
                method.as_str().unwrap_or_default().to_owned(),
            )),
            (None, Some(error)) => Some(NotAResult::Error(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )),
            (None, None) => None,
        };
        CutAnswer { id, text, other }
    }

    /// Whether the message can be the answer to a tool call: a result or an error, not a
    /// request or a notification of the server's.
    pub(crate) fn is_answer(&self) -> bool {
        !matches!(self.other, Some(NotAResult::Method(_)))
    }

    /// The answer as a whole message rmcp can read, for request `id`: a result's text as one
    /// text block, and in `_meta` how much of the message was read (`agboss/cut`); an error
    /// saying it was cut; for a message that is not the answer, an error saying the answer was
    /// never read.
    pub(crate) fn into_message(self, id: &Value, bytes_read: u64) -> Vec<u8> {
        let cap = crate::units::bytes(MESSAGE_CAP as u64);
        let error = |message: String| serde_json::json!({ "code": -32603, "message": message });
        let message = match self.other {
            None => serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "result": {
                    "content": [{ "type": "text", "text": self.text }],
                    "_meta": { CUT_META: { "bytesRead": bytes_read } },
                },
            }),
            Some(NotAResult::Error(said)) => {
                let start: String = said.chars().take(500).collect();
                serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": error(format!(
                    "the server's error was longer than {cap}, the most the client reads of one message; it begins: {start}"
                ))})
            }
            Some(NotAResult::Method(method)) => {
                serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": error(format!(
                    "before its answer the server sent a message (`{method}`) longer than {cap}, the most the client reads of one message; the answer was not read"
                ))})
            }
        };
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

/// The `_meta` key of an answer the client cut: `{"bytesRead": n}`.
pub(crate) const CUT_META: &str = "agboss/cut";

/// The value `prefix` begins, as far as it goes: `None` when it does not begin one.
pub(crate) fn partial_json(prefix: &[u8]) -> Option<Value> {
    let mut reader = Reader {
        bytes: prefix,
        at: 0,
    };
    reader.value()
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.at += 1;
        }
    }

    fn ended(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// A value, or `None` when the prefix ends before one begins (or in a number or a literal,
    /// which a cut leaves meaningless) or the bytes are not JSON.
    fn value(&mut self) -> Option<Value> {
        self.skip_space();
        match *self.bytes.get(self.at)? {
            b'{' => {
                self.at += 1;
                Some(Value::Object(self.object()))
            }
            b'[' => {
                self.at += 1;
                Some(Value::Array(self.array()))
            }
            b'"' => {
                self.at += 1;
                Some(Value::String(self.string()?))
            }
            _ => self.scalar(),
        }
    }

    /// The members of an object whose `{` was read, up to its `}` or the end of the prefix.
    fn object(&mut self) -> Map<String, Value> {
        let mut map = Map::new();
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b'}') => {
                    self.at += 1;
                    return map;
                }
                Some(b',') => self.at += 1,
                Some(b'"') => {
                    self.at += 1;
                    let complete = self.string_is_complete();
                    let Some(key) = self.string() else {
                        return map;
                    };
                    self.skip_space();
                    if !complete || self.bytes.get(self.at) != Some(&b':') {
                        return map;
                    }
                    self.at += 1;
                    match self.value() {
                        Some(value) => {
                            map.insert(key, value);
                        }
                        None => return map,
                    }
                }
                _ => return map,
            }
        }
    }

    /// The items of an array whose `[` was read, up to its `]` or the end of the prefix.
    fn array(&mut self) -> Vec<Value> {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b']') => {
                    self.at += 1;
                    return items;
                }
                Some(b',') => self.at += 1,
                Some(_) => match self.value() {
                    Some(value) => items.push(value),
                    None => return items,
                },
                None => return items,
            }
        }
    }

    /// Whether the string that starts here (after its `"`) closes within the prefix.
    fn string_is_complete(&self) -> bool {
        let mut at = self.at;
        while let Some(&b) = self.bytes.get(at) {
            match b {
                b'"' => return true,
                b'\\' => at += 2,
                _ => at += 1,
            }
        }
        false
    }

    /// A string whose `"` was read, decoded up to its closing `"` or the end of the prefix (an
    /// escape or a character the end cuts is dropped); `None` for an escape that is not JSON.
    fn string(&mut self) -> Option<String> {
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Some(lossy_without_cut_end(out));
            };
            self.at += 1;
            match b {
                b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    let at = self.at - 1;
                    match crate::masking::json_escape(self.bytes, at) {
                        (Some(c), len) => {
                            let mut buffer = [0u8; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                            self.at = at + len;
                        }
                        // An escape the end of the prefix cuts (a surrogate pair's low half
                        // among them) is dropped with what follows.
                        (None, 0) if cut_escape(&self.bytes[at..]) => {
                            return Some(lossy_without_cut_end(out));
                        }
                        (None, 6) if cut_escape(&self.bytes[at + 6..]) => {
                            return Some(lossy_without_cut_end(out));
                        }
                        // A lone surrogate.
                        (None, 6) => {
                            out.extend_from_slice("\u{FFFD}".as_bytes());
                            self.at = at + 6;
                        }
                        _ => return None,
                    }
                }
                _ => out.push(b),
            }
        }
    }

    /// A number, `true`, `false` or `null` that ends before the prefix does.
    fn scalar(&mut self) -> Option<Value> {
        let start = self.at;
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
        {
            self.at += 1;
        }
        if self.ended() {
            return None;
        }
        serde_json::from_slice(&self.bytes[start..self.at]).ok()
    }
}

/// Whether `rest` (from a backslash, or empty) is the start of an escape the prefix's end cut.
fn cut_escape(rest: &[u8]) -> bool {
    match rest.get(1) {
        _ if rest.is_empty() => true,
        None => rest == b"\\",
        Some(b'u') => rest.len() < 6 && rest[2..].iter().all(u8::is_ascii_hexdigit),
        Some(_) => false,
    }
}

/// `bytes` as text, without a character their end begins but does not finish.
fn lossy_without_cut_end(mut bytes: Vec<u8>) -> String {
    let keep = crate::tool::complete_utf8_prefix(&bytes);
    bytes.truncate(keep);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_whole_value_reads_as_serde_reads_it() {
        let text = r#"{"a": [1, 2.5, "x\n\u00e9\ud83d\ude00", true, null, {"b": {}}], "c": "d"}"#;
        assert_eq!(
            partial_json(text.as_bytes()),
            Some(serde_json::from_str::<Value>(text).unwrap())
        );
    }

    #[test]
    fn a_prefix_keeps_what_it_has() {
        let cases = [
            (
                r#"{"id": 3, "result": {"content": [{"type": "text", "text": "abc"#,
                json!({"id": 3, "result": {"content": [{"type": "text", "text": "abc"}]}}),
            ),
            (r#"{"id": 3, "res"#, json!({"id": 3})),
            (r#"{"id": 3, "result""#, json!({"id": 3})),
            (r#"{"id": 3, "result": "#, json!({"id": 3})),
            (r#"{"id": 12"#, json!({})),
            (r#"{"a": "x\"#, json!({"a": "x"})),
            (r#"{"a": "x\u00"#, json!({"a": "x"})),
            (r#"{"a": "x\ud83d\ude"#, json!({"a": "x"})),
            (r#"{"a": "x\ud83d\ude00"#, json!({"a": "x😀"})),
            (r#"{"a": "x\ud83d y"}"#, json!({"a": "x\u{FFFD} y"})),
            (r#"{"a": "é"#, json!({"a": "é"})),
            (r#"[1, [2, "#, json!([1, [2]])),
            (r#"[tru"#, json!([])),
        ];
        for (prefix, expected) in cases {
            assert_eq!(partial_json(prefix.as_bytes()), Some(expected), "{prefix}");
        }
        // A character the cut goes through is dropped, not replaced.
        let cut = &"{\"a\": \"zé".as_bytes()[..9];
        assert_eq!(partial_json(cut), Some(json!({"a": "z"})));
        assert_eq!(partial_json(b""), None);
        assert_eq!(partial_json(b"  "), None);
    }

    #[test]
    fn bytes_that_are_not_json_read_as_far_as_they_are() {
        assert_eq!(partial_json(br#"{"a": "\q"}"#), Some(json!({})));
        assert_eq!(partial_json(b"hello world"), None);
    }

    #[test]
    fn an_answer_cut_in_its_text_keeps_its_id_and_text() {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"content":[{{"type":"text","text":"one"}},{{"type":"text","text":"{}"#,
            "line\\n".repeat(100)
        );
        let cut = CutAnswer::read(message.as_bytes());
        assert_eq!(cut.id, Some(json!(7)));
        assert_eq!(cut.text, format!("one\n{}", "line\n".repeat(100)));
        // The TypeScript SDK writes the id last: then it is not known.
        let late = br#"{"result":{"content":[{"type":"text","text":"xxxx"#;
        assert_eq!(
            CutAnswer::read(late),
            CutAnswer {
                id: None,
                text: "xxxx".into(),
                other: None,
            }
        );
    }

    #[test]
    fn the_message_rmcp_reads_says_how_much_was_read() {
        let cut = CutAnswer {
            id: None,
            text: "abc".into(),
            other: None,
        };
        let line = cut.into_message(&json!(4), 1_048_576);
        assert_eq!(line.last(), Some(&b'\n'));
        let message: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            message,
            json!({"jsonrpc": "2.0", "id": 4, "result": {
                "content": [{"type": "text", "text": "abc"}],
                "_meta": {"agboss/cut": {"bytesRead": 1_048_576}},
            }})
        );
    }

    #[test]
    fn a_cut_error_or_a_servers_own_message_is_said_as_an_error() {
        let error =
            CutAnswer::read(br#"{"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"boom boom"#);
        assert_eq!(error.other, Some(NotAResult::Error("boom boom".into())));
        assert!(error.is_answer());
        let said: Value = serde_json::from_slice(&error.into_message(&json!(5), 9)).unwrap();
        assert_eq!(
            said["error"]["message"],
            "the server's error was longer than 4,096 KB, the most the client reads of one message; it begins: boom boom"
        );
        let progress = CutAnswer::read(
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"aaa"#,
        );
        assert!(!progress.is_answer());
        let said: Value = serde_json::from_slice(&progress.into_message(&json!(6), 9)).unwrap();
        assert_eq!(said["id"], 6);
        assert_eq!(
            said["error"]["message"],
            "before its answer the server sent a message (`notifications/message`) longer than 4,096 KB, the most the client reads of one message; the answer was not read"
        );
    }
}
