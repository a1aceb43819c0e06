//! `pg-server`: the tests' shared PostgreSQL server from a shell.
//!
//! ```text
//! pg-server url              # start it unless it runs; print its URL
//! pg-server url --hold 30    # the same, then use it for 30 s more before exiting
//! ```
//!
//! Like any test process, it uses the server until it exits; the server stops on its own once
//! no process has used it for a while (see the crate's documentation).

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let hold = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["url"] => Duration::ZERO,
        ["url", "--hold", secs] => match secs.parse() {
            Ok(secs) => Duration::from_secs(secs),
            Err(_) => return usage(&format!("`{secs}` is not a number of seconds")),
        },
        _ => return usage("expected `url` or `url --hold SECS`"),
    };
    println!("{}", pg_server::url());
    std::thread::sleep(hold);
    ExitCode::SUCCESS
}

fn usage(why: &str) -> ExitCode {
    eprintln!("pg-server: {why}\nusage: pg-server url [--hold SECS]");
    ExitCode::from(2)
}
