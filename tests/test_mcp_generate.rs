//! `agboss g mcp`: its options, the text it generates (a snapshot of a fixed list of tools), its
//! errors against real and broken servers, and, above all, that the module it writes for
//! server-everything compiles without warnings in a crate of its own.
//!
//! Needs the MCP test servers (`AGBOSS_MCP_SERVERS`, see docs/mcp-servers.md) and `cargo` (the
//! compile test runs `cargo clippy`, or `cargo check` without clippy, on the generated crate).

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use agboss::app::Env;
use agboss::cli::{Command, Generate, GenerateMcp, command_from};
use agboss_cli::mcp::{
    GenerateError, ListedTool, ServerSpec, ServerTransport, format_source, generate,
};
use serde_json::json;

/// `g mcp` with the words of `line`, then `more`, parsed as a user's binary parses them.
fn g_mcp(line: &str, more: &[&str]) -> GenerateMcp {
    let argv = ["my-binary", "g", "mcp"]
        .into_iter()
        .chain(line.split_whitespace())
        .chain(more.iter().copied());
    match command_from(argv) {
        Ok(Some(Command::G(Generate::Mcp(mcp)))) => mcp,
        other => panic!("not `g mcp`: {other:?}"),
    }
}

/// An environment with no variable.
fn no_env() -> Env {
    Env::from_pairs::<&str, &str>([])
}

/// The environment that `${NODE}` and `${EVERYTHING_JS}` are read from.
fn everything_env() -> Env {
    let (node, args) = mcp_servers::everything_stdio();
    Env::from_pairs([("NODE", node), ("EVERYTHING_JS", args[0].clone())])
}

#[test]
fn options_parse_as_documented() {
    let mcp = g_mcp(
        "--name everything --command npx --arg -y --arg @pkg@1.0 --arg stdio --env TOKEN --tool echo --exclude get-env --out src/everything.rs --server-type Everything",
        &[],
    );
    assert_eq!(mcp.name, "everything");
    assert_eq!(mcp.command.as_deref(), Some("npx"));
    assert_eq!(mcp.args, ["-y", "@pkg@1.0", "stdio"]);
    assert_eq!(mcp.env, ["TOKEN"]);
    assert_eq!(mcp.tools, ["echo"]);
    assert_eq!(mcp.exclude, ["get-env"]);
    assert_eq!(mcp.out.as_deref(), Some(Path::new("src/everything.rs")));
    assert_eq!(mcp.server_type.as_deref(), Some("Everything"));
    assert_eq!(mcp.timeout, 60);
    let request = mcp.request();
    assert_eq!(
        request.spec.transport,
        ServerTransport::Stdio {
            command: "npx".into(),
            args: mcp.args.clone()
        }
    );

    let http = g_mcp("--name search --url http://127.0.0.1:1/mcp", &[]);
    assert_eq!(
        http.request().spec.transport,
        ServerTransport::Http {
            url: "http://127.0.0.1:1/mcp".into()
        }
    );
    assert!(!Command::G(Generate::Mcp(http)).needs_application());

    for refused in [
        "--name x",
        "--name x --command a --url http://b",
        "--name x --url http://b --arg c",
        "--command a",
    ] {
        let argv = ["my-binary", "g", "mcp"]
            .into_iter()
            .chain(refused.split_whitespace());
        assert!(command_from(argv).is_err(), "{refused}");
    }
}

/// Tools that exercise every rule: names to convert and to number, each JSON type, enums,
/// nested objects, arrays of objects, `$defs`, nullable and optional properties, keywords,
/// descriptions with quotes and newlines, an unmapped schema.
fn fixture_tools() -> Vec<ListedTool> {
    let mut search = ListedTool::new(
        "search_tool",
        json!({
            "type": "object",
            "description": "What to look for",
            "properties": {
                "query": {"type": "string", "description": "Words to \"find\""},
                "type": {"type": "string", "enum": ["issue", "pull_request", "discussion"]},
                "maxResults": {"type": ["integer", "null"], "description": "At most this many"},
                "minScore": {"type": "number"},
                "includeClosed": {"type": "boolean"},
                "labels": {"type": "array", "items": {"type": "string"}},
                "author": {"anyOf": [{"$ref": "#/$defs/User"}, {"type": "null"}]},
                "reviewers": {"type": "array", "items": {"$ref": "#/$defs/User"}},
                "filter": {
                    "type": "object",
                    "description": "Narrows the search",
                    "properties": {
                        "since": {"type": "string", "description": "An ISO date"},
                        "state": {"enum": ["open", "closed"]},
                    },
                    "required": ["since"],
                },
                "extra": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            },
            "required": ["query", "type"],
            "$defs": {
                "User": {
                    "type": "object",
                    "properties": {"login": {"type": "string"}, "id": {"type": "integer"}},
                    "required": ["login"],
                },
            },
        }),
    );
    search.description = Some("Searches the \"tracker\".\nReturns matches.".into());
    search.claims = vec!["readOnlyHint=true".into(), "openWorldHint=false".into()];
    let mut search_2 = ListedTool::new("search-tool", json!({"type": "object", "properties": {}}));
    search_2.title = Some("Search again".into());
    let mut edits = ListedTool::new(
        "applyEdits",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                        "required": ["oldText", "newText"],
                    },
                },
                "dryRun": {"type": "boolean", "default": false},
            },
            "required": ["path", "edits"],
        }),
    );
    edits.description = Some(String::new());
    let unicode = ListedTool::new("créer_reçu", json!({}));
    let long = ListedTool::new(
        "a_very_long_tool_name_that_a_server_might_send_when_it_does_not_care_about_limits",
        json!({"type": "object", "properties": {"self": {"type": "string"}}, "required": ["self"]}),
    );
    vec![search, search_2, edits, unicode, long]
}

fn fixture_spec() -> ServerSpec {
    let mut spec = ServerSpec::new(
        "tracker",
        ServerTransport::Stdio {
            command: "${TRACKER_BIN}".into(),
            args: vec!["--stdio".into(), "--token-from-env".into()],
        },
    );
    spec.env = vec!["TRACKER_TOKEN".into()];
    spec
}

#[test]
fn generated_text_for_a_fixed_list_of_tools() {
    let code = generate(&fixture_spec(), &fixture_tools()).expect("generated");
    insta::assert_snapshot!("fixture", code);
    if let Some(formatted) = format_source(&code) {
        assert_eq!(
            formatted, code,
            "the generated text is laid out as rustfmt lays it out"
        );
    }
}

#[test]
fn a_tool_the_server_does_not_offer_is_an_error() {
    let mcp = g_mcp(
        "--name everything --command ${NODE} --arg ${EVERYTHING_JS} --arg stdio --tool echo --tool no-such-tool",
        &[],
    );
    let error = mcp.generate(&everything_env()).expect_err("refused");
    let message = error.to_string();
    assert!(
        matches!(error, GenerateError::ToolMissing { .. }),
        "{message}"
    );
    assert!(message.starts_with("[mcp.tool-missing] server `everything` does not offer the tool `no-such-tool` asked for (it offers: "), "{message}");
    assert!(message.contains("get-sum"), "{message}");
}

#[test]
fn a_server_that_cannot_start_is_a_clear_error() {
    let missing = g_mcp("--name nowhere --command /nonexistent/mcp-server", &[]);
    let message = missing
        .generate(&no_env())
        .expect_err("refused")
        .to_string();
    assert!(
        message.contains("[mcp.start-failed] server `nowhere`"),
        "{message}"
    );
    assert!(
        message.contains("`/nonexistent/mcp-server` was not found"),
        "{message}"
    );

    let node = mcp_servers::node();
    let script = "console.error('no config'); process.exit(3)";
    let dies = g_mcp(
        "--name dies --env DIES_CONFIG --command",
        &[&node, "--arg", "-e", "--arg", script],
    );
    let message = dies.generate(&no_env()).expect_err("refused").to_string();
    assert!(
        message.contains("[mcp.start-failed] server `dies`"),
        "{message}"
    );
    assert!(
        message.contains("no config"),
        "its stderr is shown: {message}"
    );
    assert!(
        message.contains("DIES_CONFIG it needs are not set"),
        "{message}"
    );

    let script = "setTimeout(() => {}, 60000)";
    let silent = g_mcp(
        "--name silent --timeout 1 --command",
        &[&node, "--arg", "-e", "--arg", script],
    );
    let message = silent.generate(&no_env()).expect_err("refused").to_string();
    assert!(message.contains("did not answer within 1 s"), "{message}");

    let unset = g_mcp("--name unset --command ${NOT_SET_ANYWHERE}", &[]);
    let error = unset.generate(&no_env()).expect_err("refused");
    assert!(
        matches!(error, GenerateError::EnvMissing { ref variable, .. } if variable == "NOT_SET_ANYWHERE"),
        "{error}"
    );
}

/// A URL where nothing listens says so, with the URL, instead of the SDK's type names
/// (`WorkerTransport<…StreamableHttpClientWorker<reqwest::…>>`).
#[test]
fn a_url_where_nothing_listens_is_connection_refused_at_that_url() {
    // A port that was just free, and is closed again.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mcp = g_mcp("--name search --timeout 10 --url", &[&url]);
    let message = mcp.generate(&no_env()).expect_err("refused").to_string();
    assert_eq!(
        message,
        format!(
            "[mcp.start-failed] server `search` could not be started ({url}): connection refused at {url}: nothing listens there; start the server, or check its address"
        )
    );
    assert!(!message.contains("Worker"), "{message}");
}

/// The official Python SDK (FastMCP) gives every property a title made from its name (`A` for
/// `a`) and the input a title made from the function (`addArguments`). Those are not
/// descriptions: they never become doc comments (which the model reads); a field the server
/// does not describe gets a comment asking for one.
#[test]
fn generated_titles_never_become_descriptions() {
    let add = ListedTool {
        description: Some("Add two numbers".into()),
        ..ListedTool::new(
            "add",
            json!({
                "type": "object",
                "title": "addArguments",
                "properties": {
                    "a": {"title": "A", "type": "integer"},
                    "b": {"title": "B", "type": "integer", "description": "The number to add to a"},
                    "mode": {"title": "Mode", "type": "string", "enum": ["exact", "rounded"]},
                },
                "required": ["a", "b"],
            }),
        )
    };
    let spec = ServerSpec::new(
        "math",
        ServerTransport::Stdio {
            command: "uv".into(),
            args: vec!["run".into(), "server.py".into()],
        },
    );
    let code = generate(&spec, &[add]).expect("generated");
    for title in ["/// A\n", "/// B\n", "/// Mode\n", "addArguments"] {
        assert!(!code.contains(title), "{title:?} in:\n{code}");
    }
    let input = code
        .split("pub struct AddInput {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("the input struct");
    assert_eq!(
        input,
        "
    // The server gives no description: write a `///` line here, which is what the model reads.
    pub a: i64,
    /// The number to add to a
    pub b: i64,
    // The server gives no description: write a `///` line here, which is what the model reads.
    #[serde(skip_serializing_if = \"Option::is_none\")]
    pub mode: Option<AddMode>,
"
    );
    assert!(code.contains("/// The arguments of `add`."), "{code}");
    assert!(
        code.contains("description = \"Add two numbers\","),
        "{code}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_over_streamable_http() {
    let server = mcp_servers::HttpServer::start_everything().await;
    let mcp = g_mcp(
        "--name everything-http --url ${EVERYTHING_URL} --tool echo",
        &[],
    );
    let env = Env::from_pairs([("EVERYTHING_URL", server.url())]);
    let generated = tokio::task::spawn_blocking(move || mcp.generate(&env))
        .await
        .expect("joined")
        .expect("generated");
    assert_eq!(generated.tools, ["echo"]);
    assert!(
        generated.code.contains("url = \"${EVERYTHING_URL}\","),
        "{}",
        generated.code
    );
    assert!(
        generated.code.contains("pub struct EchoTool;"),
        "{}",
        generated.code
    );
}

#[test]
fn the_module_generated_for_server_everything_compiles_without_warnings() {
    let mcp = g_mcp(
        "--name everything --command ${NODE} --arg ${EVERYTHING_JS} --arg stdio",
        &[],
    );
    let generated = mcp.generate(&everything_env()).expect("generated");
    let code = &generated.code;
    for expected in [
        "pub struct EverythingServer;",
        "name = \"echo-tool\",",
        "calls = \"get-sum\"",
        "pub struct GetSumInput {",
        "pub struct GetAnnotatedMessageTool;",
    ] {
        assert!(
            code.contains(expected),
            "{expected:?} is missing from:\n{code}"
        );
    }
    assert!(
        generated.tools.iter().any(|t| t == "get-annotated-message"),
        "{:?}",
        generated.tools
    );
    let fixture = generate(&fixture_spec(), &fixture_tools()).expect("generated");
    check_crate("everything", &[("everything", code), ("tracker", &fixture)]);
}

/// Writes a crate of `modules` under `target/generated-mcp/<name>` and runs `cargo clippy` (or
/// `cargo check`) on it with the workspace's target directory; every warning is an error.
fn check_crate(name: &str, modules: &[(&str, &str)]) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), PathBuf::from);
    let dir = target.join("generated-mcp").join(name);
    std::fs::create_dir_all(dir.join("src")).expect("created");
    // The generated code names agboss alone, `agboss::dto::Value` included.
    assert!(
        modules
            .iter()
            .all(|(_, code)| !code.contains("serde_json::")),
        "generated code must not need serde_json"
    );
    let manifest = format!(
        "[package]\nname = \"generated-mcp-{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nagboss = {{ path = {:?} }}\n\n\
         # Its own workspace; cargo runs from agboss's, whose .cargo/config.toml gives the same\n\
         # profile as agboss's builds, so they are reused.\n[workspace]\n",
        workspace.join("crates/agboss").display().to_string(),
    );
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    if let Ok(lock) = std::fs::read(workspace.join("Cargo.lock")) {
        let _ = std::fs::write(dir.join("Cargo.lock"), lock);
    }
    let mut lib = String::from(
        "//! Modules written by `agboss g mcp`.\n#![deny(warnings)]\n#![warn(missing_docs)]\n\n",
    );
    for (module, code) in modules {
        lib.push_str(&format!(
            "/// Generated for the server `{module}`.\npub mod {module};\n"
        ));
        write_if_changed(&dir.join("src").join(format!("{module}.rs")), code);
    }
    write_if_changed(&dir.join("src/lib.rs"), &lib);

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let clippy = Process::new(&cargo)
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut command = Process::new(&cargo);
    command.arg(if clippy { "clippy" } else { "check" });
    command.args([
        "--offline",
        "--quiet",
        "--message-format",
        "short",
        "--manifest-path",
    ]);
    command
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(&workspace);
    if clippy {
        command.args(["--", "-D", "warnings"]);
    }
    fixtures::cargo::outside_this_test(&mut command, &[]);
    let output = command.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the generated crate in {} does not compile:\n{stderr}",
        dir.display()
    );
    let generated_warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("src/") && l.contains("warning"))
        .collect();
    assert!(
        generated_warnings.is_empty(),
        "warnings in the generated code:\n{stderr}"
    );
}

/// Writes `text` to `path` unless it is there already, so that cargo rebuilds only on change.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("written");
    }
}
