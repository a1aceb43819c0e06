//! The shared server answers and is reused, fresh databases are empty and apart, a private
//! server stops, starts and restarts on its port, and the proxy forwards, drops, refuses, holds
//! and cuts connections.

use std::time::{Duration, Instant};

use pg_server::{PrivateServer, Proxy, execute, fresh_database, query_texts, url};

fn one(url: &str, sql: &str) -> String {
    let rows = query_texts(url, sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    assert_eq!(rows.len(), 1, "{sql}");
    rows[0].clone().unwrap_or_default()
}

#[test]
fn the_shared_server_answers_on_loopback_with_fsync_on() {
    let url = url();
    assert_eq!(one(&url, "SELECT 1"), "1");
    assert_eq!(one(&url, "SHOW fsync"), "on");
    if std::env::var(pg_server::URL_VAR).is_err() {
        assert!(url.starts_with("postgres://agboss@127.0.0.1:"), "{url}");
        assert_eq!(one(&url, "SHOW listen_addresses"), "127.0.0.1");
        let written = std::fs::read_to_string(pg_server::shared_folder().join("url")).unwrap();
        assert_eq!(
            written.trim(),
            url,
            "the URL is written beside the data folder"
        );
    }
    assert_eq!(pg_server::url(), url, "asked again: the same server");
}

#[test]
fn fresh_databases_are_empty_apart_and_dropped_with_their_handle() {
    let (a, b) = (fresh_database(), fresh_database());
    assert_ne!(a.name(), b.name());
    execute(a.url(), "CREATE TABLE t (x int); INSERT INTO t VALUES (1)").unwrap();
    assert_eq!(one(a.url(), "SELECT count(*) FROM t"), "1");
    let missing = query_texts(b.url(), "SELECT count(*) FROM t").unwrap_err();
    assert!(missing.contains("does not exist"), "{missing}");
    assert_eq!(
        one(
            b.url(),
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ),
        "0"
    );
    let name = a.name().to_owned();
    drop(a);
    let sql = format!("SELECT count(*) FROM pg_database WHERE datname = '{name}'");
    assert_eq!(one(&url(), &sql), "0", "dropped with its handle");
}

#[test]
fn a_private_server_stops_starts_and_restarts_on_its_port() {
    let mut server = PrivateServer::new();
    let url = server.url();
    execute(
        &url,
        "CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)",
    )
    .unwrap();
    server.stop();
    let down = execute(&url, "SELECT 1").unwrap_err();
    assert!(down.contains("cannot connect"), "{down}");
    server.start();
    assert_eq!(one(&url, "SELECT x FROM kept"), "7", "the data stays");
    let before = one(&url, "SELECT pg_postmaster_start_time()::text");
    server.restart();
    assert_ne!(one(&url, "SELECT pg_postmaster_start_time()::text"), before);
    assert_eq!(server.url(), url, "the same port");
    let database = server.fresh_database();
    execute(database.url(), "CREATE TABLE t (x int)").unwrap();
}

#[test]
fn the_proxy_forwards_drops_refuses_holds_and_cuts() {
    let server = PrivateServer::new();
    let proxy = Proxy::new(server.addr());
    let url = proxy.url(&server.url());
    assert_eq!(url, format!("postgres://agboss@{}/postgres", proxy.addr()));
    assert_eq!(one(&url, "SELECT 2"), "2");
    assert_eq!(proxy.accepted(), 1);

    // A connection held open across a drop sees it closed.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client.simple_query("SELECT 1").await.unwrap();
        client
    });
    assert_eq!(proxy.open(), 1);
    proxy.drop_connections();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !client.is_closed() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(client.is_closed(), "the client saw its connection dropped");
    assert_eq!(one(&url, "SELECT 3"), "3", "new connections go through");

    proxy.refuse_for(Duration::from_secs(60));
    let refused = execute(&url, "SELECT 1").unwrap_err();
    assert!(refused.contains("cannot connect"), "{refused}");
    proxy.refuse_for(Duration::ZERO);

    proxy.block();
    let held = std::thread::spawn({
        let url = url.clone();
        move || execute(&url, "SELECT 1")
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(!held.is_finished(), "held while blocked");
    proxy.unblock();
    held.join().unwrap().unwrap();

    // A commit forwarded, its answer cut: the row is there, the client never heard.
    execute(&url, "CREATE TABLE t (x int)").unwrap();
    proxy.cut_after(b"COMMIT");
    let cut = execute(&url, "BEGIN; INSERT INTO t VALUES (1); COMMIT");
    assert!(cut.is_err(), "the reply never came back");
    let deadline = Instant::now() + Duration::from_secs(10);
    while one(&server.url(), "SELECT count(*) FROM t") != "1" && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(one(&server.url(), "SELECT count(*) FROM t"), "1");
}
