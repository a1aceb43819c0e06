//! MCP tools against the reference servers, over stdio and streamable HTTP.

mod mcp_common;

use std::time::Duration;

use agboss::mcp::McpServer;
use agboss::testing::test_tool;
use mcp_common::*;

#[tokio::test]
async fn a_text_result_arrives_as_plain_text() {
    let tool = test_tool::<Echo>().env(env(&temp_dir("text"), &[]));
    let outcome = tool.invoke(r#"{"message": "hi"}"#).await;
    assert_eq!(outcome.content, r#"{"text":"Echo: hi"}"#);
    tool.mcp().shutdown().await;
}

#[tokio::test]
async fn structured_content_maps_to_the_output_dto() {
    let tool = test_tool::<WeatherTool>().env(env(&temp_dir("structured"), &[]));
    let weather = tool
        .run(City {
            location: "Chicago".into(),
        })
        .await
        .unwrap()
        .output;
    assert!(!weather.conditions.is_empty());
    assert!((0.0..=100.0).contains(&weather.humidity));
    tool.mcp().shutdown().await;
}

#[tokio::test]
async fn an_is_error_result_is_a_tool_error_with_the_servers_message() {
    let tool = test_tool::<WeatherTool>().env(env(&temp_dir("is-error"), &[]));
    let outcome = tool.invoke(r#"{"location": "Paris"}"#).await;
    assert!(!outcome.is_ok());
    assert!(
        outcome.content.starts_with("Tool error: "),
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains("Chicago"),
        "the server's own message lists the cities: {}",
        outcome.content
    );
    tool.mcp().shutdown().await;
}

#[tokio::test]
async fn a_path_outside_the_filesystem_servers_root_is_refused() {
    let notes = temp_dir("fs");
    std::fs::write(notes.join("dentist.txt"), "Tuesday at 9").unwrap();
    let tool = test_tool::<ReadNote>().env(env(&notes, &[]));
    let inside = format!(r#"{{"path": "{}"}}"#, notes.join("dentist.txt").display());
    assert_eq!(
        tool.invoke(&inside).await.content,
        r#"{"text":"Tuesday at 9"}"#
    );
    let outside = tool.invoke(r#"{"path": "/etc/hostname"}"#).await;
    assert!(!outside.is_ok());
    assert!(
        outside.content.to_lowercase().contains("access denied"),
        "{}",
        outside.content
    );
    tool.mcp().shutdown().await;
}

#[tokio::test]
async fn a_timeout_cancels_the_request_on_the_server() {
    let log = temp_dir("cancel").join("fake.log");
    let tool = std::sync::Arc::new(test_tool::<Wait>().env(env(
        &temp_dir("cancel-root"),
        &[
            ("FAKE_MODE", "normal".into()),
            ("FAKE_LOG", log.display().to_string()),
        ],
    )));
    let call = tokio::spawn({
        let tool = tool.clone();
        async move { tool.invoke("{}").await }
    });
    // Once the server holds the request (the timeout counts from the call's start, server
    // start-up included), the clock passes the tool's timeout.
    for _ in 0..500 {
        if std::fs::read_to_string(&log).is_ok_and(|l| l.contains("waiting")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tool.clock().wait_for_timers(1).await;
    tool.clock().advance(Duration::from_millis(500));
    let outcome = call.await.unwrap();
    assert_eq!(outcome.content, "Tool error: timed out after 500 ms");
    // The server hears of it: MCP's cancel notification, with the reason.
    let mut logged = String::new();
    for _ in 0..100 {
        logged = std::fs::read_to_string(&log).unwrap_or_default();
        if logged.contains("cancelled") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let waiting = logged
        .lines()
        .find(|l| l.starts_with("waiting"))
        .expect("the call reached the server");
    let id = waiting.trim_start_matches("waiting ");
    assert!(
        logged.contains(&format!("cancelled {id} timed out after 500 ms")),
        "{logged}"
    );
    tool.mcp().shutdown().await;
}

#[tokio::test]
async fn a_server_killed_mid_call_is_a_tool_error_and_starts_again() {
    let tool = std::sync::Arc::new(test_tool::<LongWork>().env(env(&temp_dir("killed"), &[])));
    let call = tokio::spawn({
        let tool = tool.clone();
        async move { tool.invoke(r#"{"duration": 30, "steps": 30}"#).await }
    });
    let connection = tool.mcp().connection(Everything::DESCRIPTOR);
    let pid = loop {
        if let Some(pid) = connection.pid().await {
            break pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tool.clock().wait_for_timers(1).await;
    std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
        .unwrap();
    let outcome = call.await.unwrap();
    assert!(
        outcome.content.starts_with("Tool error: [mcp.server-stopped] server `everything` stopped during the call: the process signal: 9"),
        "{}",
        outcome.content
    );
    // The next call starts the server again.
    let echo = test_tool::<Echo>();
    let _ = echo;
    let again = tool.invoke(r#"{"duration": 0, "steps": 1}"#).await;
    assert!(again.is_ok(), "{}", again.content);
    let new_pid = connection.pid().await.unwrap();
    assert_ne!(new_pid, pid);
    tool.mcp().shutdown().await;
    assert!(
        !mcp_servers::node_pids_of("server-everything").contains(&new_pid),
        "no process is left"
    );
}

#[tokio::test]
async fn streamable_http_on_loopback() {
    let server = mcp_servers::HttpServer::start_everything().await;
    let tool = test_tool::<EchoOverHttp>()
        .env(env(&temp_dir("http"), &[("EVERYTHING_URL", server.url())]));
    assert_eq!(
        tool.invoke(r#"{"message": "over http"}"#).await.content,
        r#"{"text":"Echo: over http"}"#
    );
    tool.mcp().shutdown().await;
}

#[tokio::test]
async fn a_server_that_is_not_installed_says_so() {
    let tool = test_tool::<Echo>().env(
        env(&temp_dir("missing"), &[])
            .with("EVERYTHING_JS", "/nonexistent/server-everything/index.js"),
    );
    let outcome = tool.invoke(r#"{"message": "hi"}"#).await;
    assert!(
        outcome.content.starts_with(
            "Tool error: [mcp.start-failed] server `everything` could not be started ("
        ),
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains("Cannot find module"),
        "the server's own words: {}",
        outcome.content
    );

    let tool = test_tool::<Echo>()
        .env(env(&temp_dir("missing-2"), &[]).with("NODE", "definitely-not-a-program-here"));
    let outcome = tool.invoke(r#"{"message": "hi"}"#).await;
    assert!(
        outcome.content.contains(
            "`definitely-not-a-program-here` was not found: install it or put it on PATH"
        ),
        "{}",
        outcome.content
    );
}
