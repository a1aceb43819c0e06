//! The command line: agboss's subcommands mounted in a program's own, and the `agboss` program
//! itself, installed with `cargo install`, creating a project whose test passes.
//!
//! The project test writes the project under the system's temporary directory and builds it
//! offline (path dependencies, the registry cache the workspace's build filled) into
//! `target/new-project/`, so that later runs reuse the build.

mod common;
#[path = "cli/pauses.rs"]
mod pauses;

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use agboss::cli::{AgbossArgs, Command, command_from};
use clap::{Parser, Subcommand};
use common::support_desk;
use wire_server::{Canned, WireServer};

/// A program with a command line of its own, agboss's mounted under `agboss`.
#[derive(Debug, Parser)]
#[command(name = "myapp")]
struct MyApp {
    #[command(subcommand)]
    command: MyCommand,
}

#[derive(Debug, Subcommand)]
enum MyCommand {
    /// The program's own work.
    Forced {
        /// How many times.
        #[arg(long)]
        times: u32,
    },
    /// agboss's subcommands, as a subcommand enum.
    #[command(subcommand)]
    Agboss(Command),
    /// The same, as arguments.
    Tools(AgbossArgs),
}

fn parse(line: &str) -> Result<MyApp, clap::Error> {
    MyApp::try_parse_from(line.split_whitespace())
}

#[tokio::test]
async fn a_program_mounts_agbosss_subcommands_beside_its_own() {
    let app = support_desk().build().unwrap();
    // The program's own command stays its own.
    let own = parse("myapp forced --times 2").unwrap();
    assert!(
        matches!(own.command, MyCommand::Forced { times: 2 }),
        "{own:?}"
    );

    // `myapp agboss describe` reaches agboss.
    let MyCommand::Agboss(describe) = parse("myapp agboss describe --json").unwrap().command else {
        panic!("not agboss's");
    };
    assert_eq!(
        describe,
        Command::Describe {
            json: true,
            check: false,
            fail_on: agboss::describe::Level::Warning
        }
    );
    assert!(describe.needs_application());
    assert_eq!(describe.run_without_application(), None);
    let json = describe.output(&app, &agboss::Env::process()).await;
    assert!(json.starts_with('{'), "{json}");
    assert!(json.contains("\"workflows\""), "{json}");

    // `g mcp` needs no application; the same subcommands mount as arguments too.
    let MyCommand::Tools(args) =
        parse("myapp tools g mcp --name search --url http://127.0.0.1:1/mcp")
            .unwrap()
            .command
    else {
        panic!("not agboss's");
    };
    assert!(!args.command.needs_application());

    // The program's help lists both.
    let help = parse("myapp --help").unwrap_err().to_string();
    assert!(help.contains("forced"), "{help}");
    assert!(help.contains("agboss"), "{help}");

    // The standalone form is for programs without a command line of their own: it refuses
    // the program's commands, which is why a program that has some mounts agboss's instead.
    let error = command_from(["myapp", "forced"]).unwrap_err().to_string();
    assert!(
        error.contains("unrecognized subcommand 'forced'"),
        "{error}"
    );
}

/// `target/new-project`, under the workspace's target directory.
fn scratch() -> PathBuf {
    let workspace = workspace();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace.join("target"), PathBuf::from);
    target.join("new-project")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// `cargo`, as the test was run with, without the variables cargo sets for this test (which
/// would tell the child it builds this package).
fn cargo(dir: &Path) -> Process {
    let mut command = Process::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(dir);
    fixtures::cargo::outside_this_test(&mut command, &["CARGO_TARGET_DIR", "RUSTFLAGS"]);
    // As the getting-started test builds the same kind of project into the same directory:
    // without debug info, which would take some 5 GB of the test machine's disk.
    command.env("CARGO_PROFILE_DEV_DEBUG", "false");
    command
}

/// Runs `command`, failing the test with its output when it fails.
fn succeed(command: &mut Process, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{what} failed:\n{stderr}");
    format!("{}{stderr}", String::from_utf8_lossy(&output.stdout))
}

/// `cargo install --path crates/agboss-cli`, then `agboss new demo && cd demo && cargo test`,
/// offline: the project depends on this checkout by path.
#[test]
fn agboss_new_creates_a_project_whose_test_passes() {
    let scratch = scratch();
    let builds = scratch.join("target");
    let root = scratch.join("install");
    succeed(
        cargo(&workspace())
            .args(["install", "--offline", "--locked", "--debug", "--quiet"])
            .arg("--path")
            .arg(workspace().join("crates/agboss-cli"))
            .arg("--root")
            .arg(&root)
            .arg("--target-dir")
            .arg(&builds),
        "cargo install --path crates/agboss-cli",
    );
    let agboss = root.join("bin").join("agboss");
    // Outside any workspace, agboss's included: cargo would take the project for a member.
    let work = std::env::temp_dir().join(format!("agboss-new-project-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();

    let said = succeed(
        Process::new(&agboss)
            .args(["new", "demo"])
            .current_dir(&work),
        "agboss new demo",
    );
    assert!(said.contains("created demo (8 files)"), "{said}");
    let demo = work.join("demo");
    let readme = std::fs::read_to_string(demo.join("README.md")).unwrap();
    assert!(readme.starts_with("# demo\n"), "{readme}");
    assert!(
        readme.contains("--port 8080")
            && std::fs::read_to_string(demo.join("demo.toml"))
                .unwrap()
                .contains("base_url = \"http://127.0.0.1:8080/v1\""),
        "the README starts the server where demo.toml looks for it"
    );
    let manifest = std::fs::read_to_string(demo.join("Cargo.toml")).unwrap();
    let facade = workspace().join("crates/agboss").canonicalize().unwrap();
    assert!(
        manifest.contains(&format!(
            "agboss = {{ path = {:?} }}",
            facade.display().to_string()
        )),
        "{manifest}"
    );
    // A second time, it leaves the project alone.
    let again = Process::new(&agboss)
        .args(["new", "demo"])
        .current_dir(&work)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("[new.exists]"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    let tested = succeed(
        cargo(&demo)
            .args(["test", "--offline"])
            .env("CARGO_TARGET_DIR", &builds),
        "cargo test in the new project",
    );
    assert!(
        tested.contains("test the_assistant_counts_words_with_its_tool ... ok"),
        "{tested}"
    );
    assert!(
        tested.contains("test the_tool_counts_words_separated_by_whitespace ... ok"),
        "{tested}"
    );
    the_program_runs_from_any_directory(&builds.join("debug").join("demo"), &work);
    let _ = std::fs::remove_dir_all(&work);
}

/// The program `cargo test` built, run from `elsewhere` (not its project's folder): it finds
/// `demo.toml` beside the project, and `DEMO_CONFIG` names another file, here one pointing at
/// a replay server that plays the model.
fn the_program_runs_from_any_directory(program: &Path, elsewhere: &Path) {
    let described = succeed(
        Process::new(program)
            .args(["agboss", "describe"])
            .current_dir(elsewhere)
            .env_remove("DEMO_CONFIG"),
        "demo agboss describe, from another directory",
    );
    assert!(described.contains("assistant"), "{described}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let completion = |message: serde_json::Value| {
        let body = serde_json::json!({
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100},
        });
        Canned::json(200, body.to_string())
    };
    let server = runtime.block_on(WireServer::start([
        completion(serde_json::json!({"role": "assistant", "content": "", "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "count-words-tool", "arguments": "{\"text\": \"the quick brown fox\"}"},
        }]})),
        completion(serde_json::json!({"role": "assistant", "content": "It has 4 words."})),
    ]));
    let config = elsewhere.join("elsewhere.toml");
    std::fs::write(
        &config,
        format!(
            "[models.local]\nkind = \"openai\"\nbase_url = \"{}/v1\"\nvendors = [\"local\"]\n",
            server.base_url()
        ),
    )
    .unwrap();
    let asked = succeed(
        Process::new(program)
            .args(["ask", "How many words are in 'the quick brown fox'?"])
            .current_dir(elsewhere)
            .env("DEMO_CONFIG", &config),
        "demo ask, with DEMO_CONFIG",
    );
    assert!(
        asked.contains("· count-words-tool -> {\"words\":4}") && asked.contains("It has 4 words."),
        "{asked}"
    );
    assert_eq!(server.requests().len(), 2);
}
