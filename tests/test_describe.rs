//! `describe`: the support desk's tree and JSON document, snapshotted. Once with bounds from the
//! tool itself, its workflow and the framework; once with an application default, an agent's
//! history bound and a provider's context window from a configuration file, so every source of
//! a bound appears.

mod common;

use agboss::cli::{Command, command_from};
use agboss::config::Config;
use common::*;

fn plain() -> agboss::Application {
    support_desk().build().unwrap()
}

fn configured() -> agboss::Application {
    let config = Config::from_toml(
        "support.toml",
        r#"
        [defaults.tools]
        max_result_size = "64 KB"
        max_tool_calls = 12

        [agents.writer]
        history_max_size = "16 KB"

        [models.openrouter]
        context_window = 131072
        "#,
    );
    support_desk().config(config).build().unwrap()
}

#[test]
fn text() {
    insta::assert_snapshot!(agboss::describe::text(&plain()));
}

#[test]
fn text_with_application_defaults() {
    insta::assert_snapshot!(agboss::describe::text(&configured()));
}

#[test]
fn json() {
    insta::assert_json_snapshot!(agboss::describe::json(&plain()), {
        ".**.line" => "[line]",
    });
}

#[test]
fn json_with_application_defaults() {
    let json = agboss::describe::json(&configured());
    // The documented paths, in bytes.
    assert_eq!(
        json["schemas"]["tools"]["lookup-customer-tool"]["maxResultSize"],
        262_144
    );
    assert!(json["schemas"]["tools"]["read-notes-tool"]["maxResultSize"].is_null());
    assert_eq!(json["workflows"][1]["agents"][0]["maxResultSize"], 65_536);
    let triage = &json["workflows"][0]["agents"][0];
    assert_eq!(triage["historyMaxSize"], 131_072);
    assert_eq!(
        triage["historyMaxSizeSource"],
        "context window of 131072 tokens"
    );
    insta::assert_json_snapshot!(json, { ".**.line" => "[line]" });
}

#[tokio::test]
async fn the_cli_prints_the_same() {
    let app = plain();
    let describe = command_from(["desk", "describe"]).unwrap().unwrap();
    assert_eq!(
        describe,
        Command::Describe {
            json: false,
            check: false,
            fail_on: agboss::describe::Level::Warning
        }
    );
    let env = agboss::Env::process();
    assert_eq!(
        describe.output(&app, &env).await,
        agboss::describe::text(&app)
    );
    let json = command_from(["desk", "describe", "--json"])
        .unwrap()
        .unwrap();
    let printed: serde_json::Value = serde_json::from_str(&json.output(&app, &env).await).unwrap();
    assert_eq!(printed, agboss::describe::json(&app));
    assert_eq!(command_from(["desk"]).unwrap(), None);
    assert!(command_from(["desk", "describ"]).is_err());
}

#[test]
fn describe_needs_no_environment() {
    let app = support_desk()
        .env(agboss::app::Env::from_pairs::<&str, &str>([]))
        .build()
        .unwrap();
    assert!(agboss::describe::text(&app).contains("read-notes-tool (read, local) ← NOTES_FILE"));
}
