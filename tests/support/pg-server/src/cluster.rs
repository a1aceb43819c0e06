//! One PostgreSQL server on this machine: its programs found, its data folder made by `initdb`,
//! its postmaster started and stopped by `pg_ctl`. When this process is root it runs them as
//! the `postgres` account (PostgreSQL refuses to run as root), the folders handed to it.

use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The settings every server of the tests runs with, appended to its `postgresql.conf`: TCP on
/// loopback only, no Unix socket, room for many test connections. `fsync` stays on: the tests
/// and benches measure durable commits.
const SETTINGS: &str = "
# Written by the pg-server test crate of agboss.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 300
fsync = on
synchronous_commit = on
";

/// The folder of one PostgreSQL installation's programs.
#[derive(Clone, Debug)]
pub(crate) struct Binaries {
    dir: PathBuf,
}

impl Binaries {
    /// `initdb` and `pg_ctl`: from `AGBOSS_PG_BIN` (a folder), else `PATH`, else Debian's
    /// `/usr/lib/postgresql/<newest>/bin`, else `/usr/local/pgsql/bin`.
    pub(crate) fn find() -> Result<Binaries, String> {
        let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(dir) = std::env::var_os("AGBOSS_PG_BIN").filter(|d| !d.is_empty()) {
            let dir = PathBuf::from(dir);
            if has_both(&dir) {
                return Ok(Binaries { dir });
            }
            return Err(format!(
                "AGBOSS_PG_BIN is {} but initdb and pg_ctl are not both there",
                dir.display()
            ));
        }
        if let Some(path) = std::env::var_os("PATH") {
            candidates.extend(std::env::split_paths(&path));
        }
        let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
                Some((version, entry.path().join("bin")))
            })
            .collect();
        debian.sort();
        candidates.extend(debian.into_iter().rev().map(|(_, dir)| dir));
        candidates.push(PathBuf::from("/usr/local/pgsql/bin"));
        candidates
            .into_iter()
            .find(|dir| has_both(dir))
            .map(|dir| Binaries { dir })
            .ok_or_else(|| {
                "no PostgreSQL server programs (initdb, pg_ctl) on PATH, in \
                 /usr/lib/postgresql/*/bin or in /usr/local/pgsql/bin"
                    .to_owned()
            })
    }

    fn program(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// Who the server's programs run as.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Account {
    /// This process's user (it is not root).
    Me,
    /// The `postgres` account, this process being root.
    Postgres { uid: u32, gid: u32 },
}

impl Account {
    /// This process's user, or `postgres` when it is root.
    pub(crate) fn for_this_process() -> Result<Account, String> {
        if !nix::unistd::Uid::effective().is_root() {
            return Ok(Account::Me);
        }
        let user = nix::unistd::User::from_name("postgres")
            .map_err(|e| format!("cannot look up the `postgres` account: {e}"))?
            .ok_or_else(|| {
                "this process is root, which PostgreSQL refuses to run as, and there is no \
                 `postgres` account to run it as"
                    .to_owned()
            })?;
        Ok(Account::Postgres {
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
        })
    }

    /// Whether the account can reach `path`: every folder above it lets it through. (This
    /// process's own user made the path, so it can.)
    pub(crate) fn reaches(self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Account::Postgres { uid, gid } = self else {
            return true;
        };
        path.ancestors().skip(1).all(|dir| {
            let Ok(meta) = std::fs::metadata(dir) else {
                return false;
            };
            let mode = meta.mode();
            mode & 0o001 != 0
                || (meta.uid() == uid && mode & 0o100 != 0)
                || (meta.gid() == gid && mode & 0o010 != 0)
        })
    }

    /// Hands `path` to the account (nothing to do for this process's own user).
    pub(crate) fn give(self, path: &Path) -> Result<(), String> {
        match self {
            Account::Me => Ok(()),
            Account::Postgres { uid, gid } => std::os::unix::fs::chown(path, Some(uid), Some(gid))
                .map_err(|e| format!("cannot hand {} to `postgres`: {e}", path.display())),
        }
    }

    fn command(self, program: &Path, cwd: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(cwd)
            .stdin(Stdio::null())
            .env("LC_ALL", "C");
        if let Account::Postgres { uid, gid } = self {
            // std drops root's supplementary groups before it switches to the uid.
            command.uid(uid).gid(gid);
        }
        command
    }
}

/// A server's data folder and log, and how to run its programs.
#[derive(Debug)]
pub(crate) struct Cluster {
    bin: Binaries,
    account: Account,
    /// The folder that holds the data folder and the log; owned by the account.
    home: PathBuf,
    data: PathBuf,
    log: PathBuf,
}

impl Cluster {
    /// A server whose data folder is `home/data` (made on [`init`](Self::init)), logging to
    /// `home/server.log`. `home` is made and handed to the account.
    pub(crate) fn new(home: &Path) -> Result<Cluster, String> {
        let bin = Binaries::find()?;
        let account = Account::for_this_process()?;
        std::fs::create_dir_all(home)
            .map_err(|e| format!("cannot make {}: {e}", home.display()))?;
        account.give(home)?;
        Ok(Cluster {
            bin,
            account,
            home: home.to_path_buf(),
            data: home.join("data"),
            log: home.join("server.log"),
        })
    }

    /// Whether `initdb` made the data folder, for the major version of these programs (a
    /// folder of another version, left by an older installation, cannot be started).
    pub(crate) fn initialized(&self) -> bool {
        let Ok(made_by) = std::fs::read_to_string(self.data.join("PG_VERSION")) else {
            return false;
        };
        let Ok(output) = Command::new(self.bin.program("pg_ctl"))
            .arg("--version")
            .output()
        else {
            return true;
        };
        // "pg_ctl (PostgreSQL) 15.18 (Debian ...)"
        let version = String::from_utf8_lossy(&output.stdout);
        let major = version
            .split_whitespace()
            .nth(2)
            .and_then(|v| v.split('.').next())
            .unwrap_or_default()
            .to_owned();
        major.is_empty() || made_by.trim() == major
    }

    /// Makes the data folder: superuser `agboss`, trusted on loopback, UTF-8 with the C locale,
    /// then the tests' settings.
    pub(crate) fn init(&self) -> Result<(), String> {
        if self.data.exists() {
            // What an interrupted initdb left.
            std::fs::remove_dir_all(&self.data)
                .map_err(|e| format!("cannot remove {}: {e}", self.data.display()))?;
        }
        let data = self.data.display().to_string();
        self.run(
            "initdb",
            &[
                "--auth=trust",
                "--username=agboss",
                "--encoding=UTF8",
                "--locale=C",
                "--no-instructions",
                "-D",
                &data,
            ],
        )?;
        let conf = self.data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf)
            .map_err(|e| format!("cannot read {}: {e}", conf.display()))?;
        text.push_str(SETTINGS);
        std::fs::write(&conf, text).map_err(|e| format!("cannot write {}: {e}", conf.display()))
    }

    /// Starts the postmaster on `port` and waits until it takes connections.
    pub(crate) fn start(&self, port: u16) -> Result<(), String> {
        let (data, log) = (
            self.data.display().to_string(),
            self.log.display().to_string(),
        );
        let options = format!("-p {port}");
        self.run(
            "pg_ctl",
            &[
                "start", "-w", "-t", "60", "-D", &data, "-l", &log, "-o", &options,
            ],
        )
        .map_err(|e| format!("{e}\n{}", self.log_tail()))
    }

    /// Stops the postmaster (`pg_ctl stop -m <mode>`: `fast` rolls back open transactions and
    /// closes connections, `immediate` is a crash).
    pub(crate) fn stop(&self, mode: &str) -> Result<(), String> {
        let data = self.data.display().to_string();
        self.run(
            "pg_ctl",
            &["stop", "-w", "-t", "60", "-m", mode, "-D", &data],
        )
    }

    /// Stops and starts the postmaster again on the same port (`pg_ctl restart -m fast`).
    pub(crate) fn restart(&self) -> Result<(), String> {
        let (data, log) = (
            self.data.display().to_string(),
            self.log.display().to_string(),
        );
        self.run(
            "pg_ctl",
            &[
                "restart", "-w", "-t", "60", "-m", "fast", "-D", &data, "-l", &log,
            ],
        )
        .map_err(|e| format!("{e}\n{}", self.log_tail()))
    }

    /// The port of the postmaster running on this data folder, if one runs.
    pub(crate) fn running_port(&self) -> Option<u16> {
        let data = self.data.display().to_string();
        self.run("pg_ctl", &["status", "-D", &data]).ok()?;
        // postmaster.pid: pid, data folder, start time, port, ...
        let pid_file = std::fs::read_to_string(self.data.join("postmaster.pid")).ok()?;
        pid_file.lines().nth(3)?.trim().parse().ok()
    }

    /// The folder that holds the data folder, the log and the files the shared server's users
    /// and watchdog lock.
    pub(crate) fn home(&self) -> &Path {
        &self.home
    }

    /// The data folder.
    pub(crate) fn data(&self) -> &Path {
        &self.data
    }

    /// The path of one of the server's programs (`pg_ctl`).
    pub(crate) fn program(&self, name: &str) -> PathBuf {
        self.bin.program(name)
    }

    /// `program` as the account the server runs as, in its home.
    pub(crate) fn command(&self, program: &Path) -> Command {
        self.account.command(program, &self.home)
    }

    /// Hands `path` to the account the server runs as.
    pub(crate) fn give(&self, path: &Path) -> Result<(), String> {
        self.account.give(path)
    }

    fn run(&self, program: &str, args: &[&str]) -> Result<(), String> {
        let output = self
            .account
            .command(&self.bin.program(program), &self.home)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.bin.program(program).display()))?;
        if output.status.success() {
            return Ok(());
        }
        Err(format!(
            "`{program} {}` failed ({}): {}{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        format!("the end of {}:\n{tail}", self.log.display())
    }
}

/// A TCP port on 127.0.0.1 nobody listens on now.
pub(crate) fn free_port() -> Result<u16, String> {
    TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::Account;

    #[test]
    fn an_account_reaches_a_folder_only_through_folders_it_may_cross() {
        let top = tempfile::tempdir().unwrap();
        let inner = top.path().join("a").join("b");
        std::fs::create_dir_all(&inner).unwrap();
        for dir in [top.path().join("a"), inner.clone()] {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        // Nobody's ids: only the bits for others let it through.
        let stranger = Account::Postgres {
            uid: 65_000,
            gid: 65_000,
        };
        assert!(
            !stranger.reaches(&inner.join("data")),
            "a folder of 0700 stops it"
        );
        std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
        assert!(stranger.reaches(&inner.join("data")));
        assert!(Account::Me.reaches(&inner.join("data")));
    }
}
