//! The checks a strict server makes of a request body before it answers, per wire format.
//!
//! Each check refuses what the strictest servers we know of refuse: the OpenAI API and
//! llama-cpp-python's server (whose pydantic models type `content` as a string and refuse
//! `null`), Anthropic's Messages API and Gemini's `generateContent`. A body may be refused for
//! several reasons at once; every one is reported, in the order of the body, as pydantic does.

use serde_json::{Map, Value};

/// Where in the body a problem is: keys and list positions, from the top.
pub type Loc = Vec<Step>;

/// One step of a [`Loc`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A key of an object.
    Key(String),
    /// A position in a list.
    Index(usize),
}

/// One reason a body is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where.
    pub loc: Loc,
    /// Why, in pydantic's words where it has some (`Input should be a valid string`).
    pub msg: String,
}

/// Collects problems under a location.
struct Checker {
    at: Loc,
    problems: Vec<Problem>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            at: Vec::new(),
            problems: Vec::new(),
        }
    }

    fn fail(&mut self, msg: impl Into<String>) {
        self.problems.push(Problem {
            loc: self.at.clone(),
            msg: msg.into(),
        });
    }

    /// Runs `check` one key deeper.
    fn key<T>(&mut self, key: &str, check: impl FnOnce(&mut Checker) -> T) -> T {
        self.at.push(Step::Key(key.to_owned()));
        let out = check(self);
        self.at.pop();
        out
    }

    /// Runs `check` one position deeper.
    fn index<T>(&mut self, index: usize, check: impl FnOnce(&mut Checker) -> T) -> T {
        self.at.push(Step::Index(index));
        let out = check(self);
        self.at.pop();
        out
    }

    /// `value` as an object, else a problem.
    fn object<'v>(&mut self, value: &'v Value) -> Option<&'v Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.fail("Input should be a valid dictionary");
        }
        object
    }

    /// Every key of `object` is one of `allowed`.
    fn only(&mut self, object: &Map<String, Value>, allowed: &[&str]) {
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) {
                self.key(key, |c| c.fail("Extra inputs are not permitted"));
            }
        }
    }

    /// `object[key]` is a string (a missing key is a problem when `required`).
    fn string<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        key: &str,
        required: bool,
    ) -> Option<&'v str> {
        self.key(key, |c| match object.get(key) {
            None if required => {
                c.fail("Field required");
                None
            }
            None => None,
            Some(Value::String(text)) => Some(text.as_str()),
            Some(_) => {
                c.fail("Input should be a valid string");
                None
            }
        })
    }

    /// `object[key]` is a list (a missing key is a problem when `required`).
    fn list<'v>(
        &mut self,
        object: &'v Map<String, Value>,
        key: &str,
        required: bool,
    ) -> Option<&'v Vec<Value>> {
        self.key(key, |c| match object.get(key) {
            None if required => {
                c.fail("Field required");
                None
            }
            None => None,
            Some(Value::Array(items)) => Some(items),
            Some(_) => {
                c.fail("Input should be a valid list");
                None
            }
        })
    }
}

/// The problems of an OpenAI Chat Completions body; none when it is valid.
pub fn openai(body: &Value) -> Vec<Problem> {
    let mut c = Checker::new();
    let Some(top) = c.object(body) else {
        return c.problems;
    };
    c.only(
        top,
        &[
            "model",
            "messages",
            "tools",
            "tool_choice",
            "max_completion_tokens",
            "max_tokens",
            "reasoning_effort",
            "temperature",
            "top_p",
            "stream",
            "stream_options",
            "stop",
            "seed",
            "response_format",
            "parallel_tool_calls",
            "n",
            "user",
        ],
    );
    c.string(top, "model", true);
    if let Some(messages) = c.list(top, "messages", true) {
        c.key("messages", |c| openai_messages(c, messages));
    }
    let tools = c.list(top, "tools", false).map(|tools| {
        c.key("tools", |c| {
            tools
                .iter()
                .enumerate()
                .filter_map(|(i, tool)| c.index(i, |c| openai_tool(c, tool)))
                .collect::<Vec<_>>()
        })
    });
    if let Some(choice) = top.get("tool_choice") {
        c.key("tool_choice", |c| match (&tools, choice) {
            (None, _) => c.fail("tool_choice is only allowed when tools are specified"),
            (_, Value::String(mode)) if ["none", "auto", "required"].contains(&mode.as_str()) => {}
            (Some(names), Value::Object(forced)) => {
                let name = forced
                    .get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str);
                match name {
                    Some(name) if names.iter().any(|n| n == name) => {}
                    Some(name) => c.fail(format!("the function `{name}` is not one of the tools")),
                    None => c.fail("a forced tool_choice names its function"),
                }
            }
            _ => c.fail("Input should be 'none', 'auto', 'required' or a named function"),
        });
    }
    if top.contains_key("stream_options") && top.get("stream") != Some(&Value::Bool(true)) {
        c.key("stream_options", |c| {
            c.fail("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
        });
    }
    c.problems
}

fn openai_messages(c: &mut Checker, messages: &[Value]) {
    if messages.is_empty() {
        c.fail("List should have at least 1 item after validation");
    }
    // The ids of the latest assistant turn's calls that no tool message answered yet, with
    // the position of that turn.
    let mut unanswered: Vec<String> = Vec::new();
    let mut calling_turn = 0;
    for (i, message) in messages.iter().enumerate() {
        c.index(i, |c| {
            let Some(message) = c.object(message) else {
                return;
            };
            let role = c.string(message, "role", true).unwrap_or_default();
            if role != "tool" && !unanswered.is_empty() {
                let ids = unanswered.join(", ");
                c.at.pop();
                c.index(calling_turn, |c| {
                    c.fail(format!(
                        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
                    ))
                });
                c.at.push(Step::Index(i));
                unanswered.clear();
            }
            match role {
                "system" | "developer" => {
                    c.only(message, &["role", "content", "name"]);
                    c.string(message, "content", true);
                }
                "user" => {
                    c.only(message, &["role", "content", "name"]);
                    c.key("content", |c| match message.get("content") {
                        None => c.fail("Field required"),
                        Some(Value::String(_)) => {}
                        Some(Value::Array(parts)) => text_parts(c, parts),
                        Some(_) => c.fail("Input should be a valid string"),
                    });
                }
                "assistant" => {
                    c.only(
                        message,
                        &["role", "content", "tool_calls", "name", "reasoning_content"],
                    );
                    c.string(message, "reasoning_content", false);
                    // llama-cpp-python types it `NotRequired[str]`: absent or a string, never null.
                    let content = c.string(message, "content", false);
                    let calls = c.list(message, "tool_calls", false);
                    if content.is_none() && calls.is_none_or(Vec::is_empty) && !message.contains_key("content") {
                        c.fail("An assistant message needs 'content' or 'tool_calls'");
                    }
                    if let Some(calls) = calls {
                        unanswered = c.key("tool_calls", |c| openai_calls(c, calls));
                        calling_turn = i;
                    }
                }
                "tool" => {
                    c.only(message, &["role", "content", "tool_call_id"]);
                    c.string(message, "content", true);
                    if let Some(id) = c.string(message, "tool_call_id", true) {
                        match unanswered.iter().position(|pending| pending == id) {
                            Some(at) => {
                                unanswered.remove(at);
                            }
                            None => c.key("tool_call_id", |c| {
                                c.fail(format!("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'; no call has the id `{id}`"))
                            }),
                        }
                    }
                }
                "" => {}
                other => c.key("role", |c| {
                    c.fail(format!(
                        "Input should be 'system', 'developer', 'user', 'assistant' or 'tool', got '{other}'"
                    ))
                }),
            }
        });
    }
    if !unanswered.is_empty() {
        let ids = unanswered.join(", ");
        c.index(calling_turn, |c| {
            c.fail(format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
            ))
        });
    }
}

/// A user message's content parts: text ones.
fn text_parts(c: &mut Checker, parts: &[Value]) {
    for (i, part) in parts.iter().enumerate() {
        c.index(i, |c| {
            if let Some(part) = c.object(part) {
                c.only(part, &["type", "text"]);
                if c.string(part, "type", true) != Some("text") {
                    c.key("type", |c| c.fail("Input should be 'text'"));
                }
                c.string(part, "text", true);
            }
        });
    }
}

/// An assistant turn's `tool_calls`; returns their ids.
fn openai_calls(c: &mut Checker, calls: &[Value]) -> Vec<String> {
    if calls.is_empty() {
        c.fail("List should have at least 1 item after validation");
    }
    let mut ids = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        c.index(i, |c| {
            let Some(call) = c.object(call) else {
                return;
            };
            c.only(call, &["id", "type", "function"]);
            if let Some(id) = c.string(call, "id", true) {
                if ids.iter().any(|seen| seen == id) {
                    c.key("id", |c| c.fail(format!("the id `{id}` is used twice")));
                }
                ids.push(id.to_owned());
            }
            if c.string(call, "type", true)
                .is_some_and(|t| t != "function")
            {
                c.key("type", |c| c.fail("Input should be 'function'"));
            }
            c.key("function", |c| match call.get("function") {
                None => c.fail("Field required"),
                Some(function) => {
                    if let Some(function) = c.object(function) {
                        c.only(function, &["name", "arguments"]);
                        c.string(function, "name", true);
                        // A string of JSON, never the object itself.
                        c.string(function, "arguments", true);
                    }
                }
            });
        });
    }
    ids
}

/// One of `tools`; returns the function's name.
fn openai_tool(c: &mut Checker, tool: &Value) -> Option<String> {
    let tool = c.object(tool)?;
    c.only(tool, &["type", "function"]);
    if c.string(tool, "type", true)
        .is_some_and(|t| t != "function")
    {
        c.key("type", |c| c.fail("Input should be 'function'"));
    }
    c.key("function", |c| {
        let Some(function) = tool.get("function") else {
            c.fail("Field required");
            return None;
        };
        let function = c.object(function)?;
        c.only(function, &["name", "description", "parameters", "strict"]);
        c.string(function, "description", false);
        if let Some(parameters) = function.get("parameters") {
            c.key("parameters", |c| c.object(parameters));
        }
        let name = c.string(function, "name", true)?;
        if !valid_function_name(name) {
            c.key("name", |c| {
                c.fail("String should match pattern '^[a-zA-Z0-9_-]{1,64}$'")
            });
        }
        Some(name.to_owned())
    })
}

fn valid_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The problems of an Anthropic Messages body; none when it is valid.
pub fn anthropic(body: &Value) -> Vec<Problem> {
    let mut c = Checker::new();
    let Some(top) = c.object(body) else {
        return c.problems;
    };
    c.only(
        top,
        &[
            "model",
            "max_tokens",
            "system",
            "messages",
            "tools",
            "tool_choice",
            "thinking",
            "temperature",
            "top_p",
            "top_k",
            "stop_sequences",
            "metadata",
            "stream",
        ],
    );
    c.string(top, "model", true);
    let max_tokens = c.key("max_tokens", |c| match top.get("max_tokens") {
        None => {
            c.fail("Field required");
            None
        }
        Some(n) => {
            let n = n.as_u64().filter(|n| *n >= 1);
            if n.is_none() {
                c.fail("Input should be an integer of at least 1");
            }
            n
        }
    });
    if top.contains_key("system") {
        c.string(top, "system", false);
    }
    if let Some(messages) = c.list(top, "messages", true) {
        c.key("messages", |c| anthropic_messages(c, messages));
    }
    let tools: Option<Vec<String>> = c.list(top, "tools", false).map(|tools| {
        c.key("tools", |c| {
            tools
                .iter()
                .enumerate()
                .filter_map(|(i, tool)| {
                    c.index(i, |c| {
                        let tool = c.object(tool)?;
                        c.only(tool, &["name", "description", "input_schema"]);
                        c.string(tool, "description", false);
                        c.key("input_schema", |c| match tool.get("input_schema") {
                            None => c.fail("Field required"),
                            Some(schema) => {
                                c.object(schema);
                            }
                        });
                        c.string(tool, "name", true).map(str::to_owned)
                    })
                })
                .collect()
        })
    });
    if let Some(choice) = top.get("tool_choice") {
        c.key("tool_choice", |c| {
            let Some(choice) = c.object(choice) else {
                return;
            };
            match c.string(choice, "type", true) {
                Some("auto" | "any" | "none") => {
                    c.only(choice, &["type", "disable_parallel_tool_use"])
                }
                Some("tool") => {
                    c.only(choice, &["type", "name", "disable_parallel_tool_use"]);
                    if let Some(name) = c.string(choice, "name", true)
                        && !tools.as_ref().is_some_and(|t| t.iter().any(|n| n == name))
                    {
                        c.key("name", |c| {
                            c.fail(format!("Tool '{name}' not found in provided tools"))
                        });
                    }
                }
                Some(_) => c.key("type", |c| {
                    c.fail("Input tag should be 'auto', 'any', 'tool' or 'none'")
                }),
                None => {}
            }
        });
    }
    if let Some(thinking) = top.get("thinking") {
        c.key("thinking", |c| {
            let Some(thinking) = c.object(thinking) else {
                return;
            };
            match c.string(thinking, "type", true) {
                Some("enabled") => {
                    let budget = thinking.get("budget_tokens").and_then(Value::as_u64);
                    match budget {
                        Some(b) if b >= 1024 && max_tokens.is_some_and(|max| b < max) => {}
                        _ => c.key("budget_tokens", |c| {
                            c.fail("budget_tokens must be at least 1024 and less than max_tokens")
                        }),
                    }
                }
                Some("disabled") => {}
                _ => c.key("type", |c| {
                    c.fail("Input tag should be 'enabled' or 'disabled'")
                }),
            }
        });
    }
    c.problems
}

fn anthropic_messages(c: &mut Checker, messages: &[Value]) {
    if messages.is_empty() {
        c.fail("List should have at least 1 item after validation");
    }
    let mut expected = "user";
    let mut open_calls: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        c.index(i, |c| {
            let Some(message) = c.object(message) else {
                return;
            };
            c.only(message, &["role", "content"]);
            let role = c.string(message, "role", true).unwrap_or_default();
            if role != "user" && role != "assistant" {
                c.key("role", |c| c.fail("Input should be 'user' or 'assistant'"));
                return;
            }
            if role != expected {
                c.key("role", |c| {
                    c.fail(format!("roles must alternate between \"user\" and \"assistant\"; expected \"{expected}\""))
                });
            }
            expected = if role == "user" { "assistant" } else { "user" };
            let last = i + 1 == messages.len();
            let answered = c.key("content", |c| {
                anthropic_content(c, role, message.get("content"), last && role == "assistant")
            });
            if role == "user" {
                for id in &open_calls {
                    if !answered.results.contains(id) {
                        c.fail(format!("tool_use ids were found without tool_result blocks immediately after: {id}"));
                    }
                }
                for id in &answered.results {
                    if !open_calls.contains(id) {
                        c.fail(format!("unexpected `tool_use_id` found in `tool_result` blocks: {id}"));
                    }
                }
            }
            open_calls = if role == "assistant" { answered.calls } else { Vec::new() };
        });
    }
}

/// The tool_use ids an assistant turn opens, or the tool_result ids a user turn answers.
struct Blocks {
    calls: Vec<String>,
    results: Vec<String>,
}

fn anthropic_content(
    c: &mut Checker,
    role: &str,
    content: Option<&Value>,
    may_be_empty: bool,
) -> Blocks {
    let mut blocks = Blocks {
        calls: Vec::new(),
        results: Vec::new(),
    };
    let items = match content {
        None => {
            c.fail("Field required");
            return blocks;
        }
        Some(Value::String(text)) => {
            if text.is_empty() && !may_be_empty {
                c.fail("messages must have non-empty content except for the optional final assistant message");
            }
            return blocks;
        }
        Some(Value::Array(items)) => items,
        Some(_) => {
            c.fail("Input should be a valid string or list");
            return blocks;
        }
    };
    if items.is_empty() && !may_be_empty {
        c.fail(
            "messages must have non-empty content except for the optional final assistant message",
        );
    }
    for (i, block) in items.iter().enumerate() {
        c.index(i, |c| {
            let Some(block) = c.object(block) else {
                return;
            };
            match c.string(block, "type", true) {
                Some("text") => {
                    c.only(block, &["type", "text"]);
                    if c.string(block, "text", true) == Some("") {
                        c.key("text", |c| c.fail("text content blocks must be non-empty"));
                    }
                }
                Some("tool_use") if role == "assistant" => {
                    c.only(block, &["type", "id", "name", "input"]);
                    c.string(block, "name", true);
                    c.key("input", |c| match block.get("input") {
                        None => c.fail("Field required"),
                        Some(input) => {
                            if !input.is_object() {
                                c.fail("Input should be a valid dictionary");
                            }
                        }
                    });
                    if let Some(id) = c.string(block, "id", true) {
                        blocks.calls.push(id.to_owned());
                    }
                }
                Some("thinking") if role == "assistant" => {
                    c.only(block, &["type", "thinking", "signature"]);
                    c.string(block, "thinking", true);
                    c.string(block, "signature", true);
                }
                Some("redacted_thinking") if role == "assistant" => {
                    c.only(block, &["type", "data"]);
                    c.string(block, "data", true);
                }
                Some("tool_result") if role == "user" => {
                    c.only(block, &["type", "tool_use_id", "content", "is_error"]);
                    if let Some(id) = c.string(block, "tool_use_id", true) {
                        blocks.results.push(id.to_owned());
                    }
                    if let Some(content) = block.get("content")
                        && !content.is_string()
                        && !content.is_array()
                    {
                        c.key("content", |c| {
                            c.fail("Input should be a valid string or list")
                        });
                    }
                    if let Some(is_error) = block.get("is_error")
                        && !is_error.is_boolean()
                    {
                        c.key("is_error", |c| c.fail("Input should be a valid boolean"));
                    }
                }
                Some(other) => c.key("type", |c| {
                    c.fail(format!(
                        "a `{other}` block may not stand in a {role} message"
                    ))
                }),
                None => {}
            }
        });
    }
    blocks
}

/// The problems of a Gemini `generateContent` body; none when it is valid.
pub fn gemini(body: &Value) -> Vec<Problem> {
    let mut c = Checker::new();
    let Some(top) = c.object(body) else {
        return c.problems;
    };
    c.only(
        top,
        &[
            "contents",
            "systemInstruction",
            "tools",
            "toolConfig",
            "generationConfig",
            "safetySettings",
        ],
    );
    if let Some(system) = top.get("systemInstruction") {
        c.key("systemInstruction", |c| {
            if let Some(system) = c.object(system) {
                c.only(system, &["parts", "role"]);
                if let Some(parts) = c.list(system, "parts", true) {
                    c.key("parts", |c| {
                        gemini_parts(c, parts, "system");
                    });
                }
            }
        });
    }
    if let Some(contents) = c.list(top, "contents", true) {
        c.key("contents", |c| gemini_contents(c, contents));
    }
    if let Some(tools) = c.list(top, "tools", false) {
        c.key("tools", |c| {
            for (i, tool) in tools.iter().enumerate() {
                c.index(i, |c| {
                    let Some(tool) = c.object(tool) else { return };
                    c.only(tool, &["functionDeclarations"]);
                    if let Some(declarations) = c.list(tool, "functionDeclarations", true) {
                        c.key("functionDeclarations", |c| {
                            for (j, declaration) in declarations.iter().enumerate() {
                                c.index(j, |c| {
                                    let Some(declaration) = c.object(declaration) else {
                                        return;
                                    };
                                    c.only(declaration, &["name", "description", "parameters"]);
                                    c.string(declaration, "name", true);
                                    c.string(declaration, "description", false);
                                });
                            }
                        });
                    }
                });
            }
        });
    }
    if let Some(config) = top.get("toolConfig") {
        c.key("toolConfig", |c| {
            let Some(config) = c.object(config) else {
                return;
            };
            c.only(config, &["functionCallingConfig"]);
            let Some(calling) = config.get("functionCallingConfig") else {
                return;
            };
            c.key("functionCallingConfig", |c| {
                let Some(calling) = c.object(calling) else {
                    return;
                };
                c.only(calling, &["mode", "allowedFunctionNames"]);
                let mode = c.string(calling, "mode", true);
                if !matches!(mode, Some("AUTO" | "ANY" | "NONE" | "VALIDATED") | None) {
                    c.key("mode", |c| {
                        c.fail("Invalid value: expected AUTO, ANY, NONE or VALIDATED")
                    });
                }
                if calling.contains_key("allowedFunctionNames") && mode != Some("ANY") {
                    c.key("allowedFunctionNames", |c| {
                        c.fail("allowed_function_names may be set only when the mode is ANY")
                    });
                }
            });
        });
    }
    if let Some(generation) = top.get("generationConfig") {
        c.key("generationConfig", |c| {
            if let Some(generation) = c.object(generation) {
                c.only(
                    generation,
                    &[
                        "maxOutputTokens",
                        "thinkingConfig",
                        "temperature",
                        "topP",
                        "topK",
                    ],
                );
            }
        });
    }
    c.problems
}

fn gemini_contents(c: &mut Checker, contents: &[Value]) {
    if contents.is_empty() {
        c.fail("contents is not specified");
    }
    let mut open_calls = 0;
    for (i, content) in contents.iter().enumerate() {
        c.index(i, |c| {
            let Some(content) = c.object(content) else { return };
            c.only(content, &["role", "parts"]);
            let role = c.string(content, "role", true).unwrap_or_default();
            if role != "user" && role != "model" {
                c.key("role", |c| c.fail("Please use a valid role: user, model"));
            }
            let Some(parts) = c.list(content, "parts", true) else { return };
            let (calls, responses) = c.key("parts", |c| gemini_parts(c, parts, role));
            if responses > 0 && responses != open_calls {
                c.fail("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn");
            }
            open_calls = if role == "model" { calls } else { 0 };
        });
    }
}

/// Checks `parts`; the function calls and responses among them.
fn gemini_parts(c: &mut Checker, parts: &[Value], role: &str) -> (usize, usize) {
    if parts.is_empty() {
        c.fail("contents.parts must not be empty");
    }
    let (mut calls, mut responses) = (0, 0);
    for (i, part) in parts.iter().enumerate() {
        c.index(i, |c| {
            let Some(part) = c.object(part) else { return };
            c.only(
                part,
                &[
                    "text",
                    "functionCall",
                    "functionResponse",
                    "thought",
                    "thoughtSignature",
                ],
            );
            if part.contains_key("thoughtSignature") {
                c.string(part, "thoughtSignature", true);
            }
            let kinds = ["text", "functionCall", "functionResponse"]
                .iter()
                .filter(|k| part.contains_key(**k))
                .count();
            if kinds != 1 {
                c.fail("a part holds exactly one of text, functionCall, functionResponse");
            }
            if part.contains_key("text") && c.string(part, "text", true) == Some("") {
                c.key("text", |c| c.fail("a text part must not be empty"));
            }
            for (key, inner, on_role) in [
                ("functionCall", "args", "model"),
                ("functionResponse", "response", "user"),
            ] {
                let Some(value) = part.get(key) else { continue };
                if role != on_role {
                    c.key(key, |c| {
                        c.fail(format!(
                            "a {key} part may stand only in a {on_role} content"
                        ))
                    });
                }
                if key == "functionCall" {
                    calls += 1;
                } else {
                    responses += 1;
                }
                c.key(key, |c| {
                    let Some(value) = c.object(value) else { return };
                    c.only(value, &["name", inner, "id"]);
                    c.string(value, "name", true);
                    if let Some(inner_value) = value.get(inner) {
                        c.key(inner, |c| {
                            c.object(inner_value);
                        });
                    }
                });
            }
        });
    }
    (calls, responses)
}

/// `loc` as pydantic prints it: `messages.2.content`.
pub fn dotted(loc: &[Step]) -> String {
    loc.iter()
        .map(|step| match step {
            Step::Key(key) => key.clone(),
            Step::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// `loc` as OpenAI and Gemini print it: `messages[2].content`.
pub fn bracketed(loc: &[Step]) -> String {
    let mut out = String::new();
    for step in loc {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// `loc` as a Python tuple under FastAPI's `body`: `('body', 'messages', 2, 'content')`.
pub fn python_tuple(loc: &[Step]) -> String {
    let mut parts = vec!["'body'".to_owned()];
    parts.extend(loc.iter().map(|step| match step {
        Step::Key(key) => format!("'{key}'"),
        Step::Index(i) => i.to_string(),
    }));
    format!("({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dotted_problems(problems: &[Problem]) -> Vec<String> {
        problems
            .iter()
            .map(|p| format!("{}: {}", dotted(&p.loc), p.msg))
            .collect()
    }

    #[test]
    fn null_content_beside_tool_calls_is_refused_as_llama_cpp_python_does() {
        let body = json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            ],
        });
        assert_eq!(
            dotted_problems(&openai(&body)),
            ["messages.1.content: Input should be a valid string"]
        );
        let mut fixed = body.clone();
        fixed["messages"][1]["content"] = json!("");
        assert!(openai(&fixed).is_empty());
        fixed["messages"][1]
            .as_object_mut()
            .unwrap()
            .remove("content");
        assert!(openai(&fixed).is_empty());
    }

    #[test]
    fn calls_and_results_must_pair_up() {
        let body = json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "t", "arguments": {}}}
                ]},
                {"role": "tool", "tool_call_id": "c9", "content": "ok"},
                {"role": "user", "content": "and?", "extra": 1},
            ],
            "tool_choice": "auto",
        });
        let problems = dotted_problems(&openai(&body));
        assert_eq!(
            problems,
            [
                "messages.1.tool_calls.0.function.arguments: Input should be a valid string",
                "messages.2.tool_call_id: Messages with role 'tool' must be a response to a preceding message with 'tool_calls'; no call has the id `c9`",
                "messages.1: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: c1",
                "messages.3.extra: Extra inputs are not permitted",
                "tool_choice: tool_choice is only allowed when tools are specified",
            ]
        );
    }

    #[test]
    fn anthropic_results_follow_their_calls() {
        let body = json!({
            "model": "m",
            "max_tokens": 10,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
                {"role": "user", "content": [{"type": "text", "text": "no result"}]},
            ],
        });
        assert_eq!(
            dotted_problems(&anthropic(&body)),
            [
                "messages.2: tool_use ids were found without tool_result blocks immediately after: t1"
            ]
        );
    }

    #[test]
    fn gemini_responses_match_their_calls() {
        let body = json!({
            "contents": [
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}, {"functionCall": {"name": "b", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {}}}]},
            ],
        });
        assert_eq!(
            dotted_problems(&gemini(&body)),
            [
                "contents.2: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn"
            ]
        );
    }

    #[test]
    fn locations_print_three_ways() {
        let loc = vec![
            Step::Key("messages".into()),
            Step::Index(2),
            Step::Key("content".into()),
        ];
        assert_eq!(dotted(&loc), "messages.2.content");
        assert_eq!(bracketed(&loc), "messages[2].content");
        assert_eq!(python_tuple(&loc), "('body', 'messages', 2, 'content')");
    }
}
