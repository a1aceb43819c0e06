//! The rules of a tool's allowlists (`allow_paths`, `allow_urls`): how an argument field is
//! named, what an allowed root or URL prefix looks like, and when a value is within one.
//!
//! The macros check the declarations when compiling; the runtime checks them again (a
//! descriptor may be written by hand) and judges every call's values with the same functions.
//!
//! ```
//! use agboss_rules::allow::{FieldStep, UrlPrefix, field_path, normalize_path, path_within};
//!
//! assert_eq!(
//!     field_path("jobs[].url").unwrap(),
//!     [FieldStep::Member("jobs"), FieldStep::Each, FieldStep::Member("url")]
//! );
//! let file = normalize_path("/srv/reports/../reports/2026/q1.csv").unwrap();
//! assert!(path_within(&file, "/srv/reports"));
//! assert!(!path_within(&normalize_path("/srv/reports-old/x").unwrap(), "/srv/reports"));
//!
//! let docs = UrlPrefix::parse("https://*.crates.io/api/").unwrap();
//! assert!(docs.admits("https", "static.crates.io", None, "/api/v1/crates"));
//! assert!(!docs.admits("https", "crates.io.evil.example", None, "/api/v1"));
//! ```

use std::fmt;

/// One step of a field path: a member of an object, or every element of an array (`[]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldStep<'a> {
    /// The member of this name.
    Member(&'a str),
    /// Every element of the array.
    Each,
}

/// Reads a field path: member names joined by `.`, each optionally followed by `[]` for
/// every element of an array (`url`, `jobs[].url`, `files[]`).
pub fn field_path(path: &str) -> Result<Vec<FieldStep<'_>>, String> {
    if path.is_empty() {
        return Err(
            "the field is empty: name an input field, like \"url\" or \"jobs[].url\"".into(),
        );
    }
    let mut steps = Vec::new();
    for part in path.split('.') {
        let mut name = part;
        let mut each = 0;
        while let Some(rest) = name.strip_suffix("[]") {
            name = rest;
            each += 1;
        }
        if name.is_empty() || name.contains(['[', ']']) {
            return Err(format!(
                "`{path}` is not a field path: write member names joined by `.`, with `[]` after an array's name (\"jobs[].url\")"
            ));
        }
        steps.push(FieldStep::Member(name));
        steps.extend(std::iter::repeat_n(FieldStep::Each, each));
    }
    Ok(steps)
}

/// Why a path argument is refused before it is compared with the roots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathRefusal {
    /// It does not start with `/`.
    NotAbsolute,
    /// It holds a NUL character.
    Nul,
    /// Its `..` steps climb above `/`.
    AboveRoot,
}

impl fmt::Display for PathRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathRefusal::NotAbsolute => "is not an absolute path (it must start with `/`)",
            PathRefusal::Nul => "holds a NUL character",
            PathRefusal::AboveRoot => "climbs above `/` with `..`",
        })
    }
}

/// The path with `.`, `..` and repeated `/` resolved lexically (no file is read, so symbolic
/// links are not followed): `/srv/a/../b//c/.` is `/srv/b/c`.
pub fn normalize_path(path: &str) -> Result<String, PathRefusal> {
    if path.contains('\0') {
        return Err(PathRefusal::Nul);
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(PathRefusal::NotAbsolute);
    };
    let mut kept: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if kept.pop().is_none() {
                    return Err(PathRefusal::AboveRoot);
                }
            }
            part => kept.push(part),
        }
    }
    let mut out = String::with_capacity(path.len());
    for part in &kept {
        out.push('/');
        out.push_str(part);
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok(out)
}

/// Checks a declared root and gives its normalized form.
pub fn path_root(root: &str) -> Result<String, String> {
    normalize_path(root).map_err(|why| format!("the root \"{root}\" {why}"))
}

/// Whether the normalized `path` is the normalized `root` or below it.
pub fn path_within(path: &str, root: &str) -> bool {
    if root == "/" {
        return path.starts_with('/');
    }
    match path.strip_prefix(root) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
}

/// The hosts a URL prefix admits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPattern {
    /// This host exactly (lowercase).
    Exact(String),
    /// Any host below this domain (`*.crates.io`: `static.crates.io`, not `crates.io`).
    Below(String),
}

/// One entry of `allow_urls`: a scheme, a host (or `*.` and a domain), an optional port, and a
/// path prefix, `https://*.crates.io/api/`. User names, queries and fragments are not allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlPrefix {
    scheme: String,
    host: HostPattern,
    port: Option<u16>,
    path: String,
}

impl UrlPrefix {
    /// Reads an entry, or says what is wrong with it.
    pub fn parse(entry: &str) -> Result<UrlPrefix, String> {
        let bad = |why: &str| {
            format!(
                "\"{entry}\" is not a URL prefix: {why} (write it like \"https://api.example.com/v1/\" or \"https://*.example.com/\")"
            )
        };
        let (scheme, rest) = entry.split_once("://").ok_or_else(|| bad("no `://`"))?;
        let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !scheme_ok {
            return Err(bad("the scheme is not letters, digits, `+`, `-` or `.`"));
        }
        if rest.contains(['?', '#']) {
            return Err(bad("it has a query or a fragment"));
        }
        let (authority, path) = match rest.find('/') {
            Some(at) => rest.split_at(at),
            None => (rest, "/"),
        };
        if authority.contains('@') {
            return Err(bad("it names a user"));
        }
        // An IPv6 literal keeps its colons inside brackets; a port follows the last `]`.
        let port_at = match authority.rfind(']') {
            Some(close) => authority[close..].find(':').map(|at| close + at),
            None => authority.rfind(':'),
        };
        let (host, port) = match port_at {
            Some(at) => {
                let port = authority[at + 1..]
                    .parse::<u16>()
                    .map_err(|_| bad("the port is not a number from 0 to 65535"))?;
                (&authority[..at], Some(port))
            }
            None => (authority, None),
        };
        let host = host.to_ascii_lowercase();
        let (pattern, name) = match host.strip_prefix("*.") {
            Some(domain) => (HostPattern::Below(domain.to_owned()), domain),
            None => (HostPattern::Exact(host.clone()), host.as_str()),
        };
        let is_ip6 = name.starts_with('[') && name.ends_with(']');
        let host_ok = !name.is_empty()
            && (is_ip6
                || name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-')));
        if !host_ok {
            return Err(bad(
                "the host is not letters, digits, `.` and `-` (a `*.` may start it)",
            ));
        }
        if path.split('/').any(|part| part == "." || part == "..") {
            return Err(bad("its path has `.` or `..` steps"));
        }
        Ok(UrlPrefix {
            scheme: scheme.to_ascii_lowercase(),
            host: pattern,
            port,
            path: path.to_owned(),
        })
    }

    /// Whether a URL with these parts (scheme and host lowercase, the path with its dot steps
    /// removed) is within the prefix. A missing port is the scheme's default (80 for `http`,
    /// 443 for `https`).
    pub fn admits(&self, scheme: &str, host: &str, port: Option<u16>, path: &str) -> bool {
        if scheme != self.scheme {
            return false;
        }
        let host_ok = match &self.host {
            HostPattern::Exact(exact) => host == exact,
            HostPattern::Below(domain) => host
                .strip_suffix(domain.as_str())
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
        };
        if !host_ok || port.or(default_port(scheme)) != self.port.or(default_port(scheme)) {
            return false;
        }
        let path = if path.is_empty() { "/" } else { path };
        match path.strip_prefix(self.path.as_str()) {
            Some(rest) => self.path.ends_with('/') || rest.is_empty() || rest.starts_with('/'),
            None => false,
        }
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_name_members_and_elements() {
        assert_eq!(field_path("url").unwrap(), [FieldStep::Member("url")]);
        assert_eq!(
            field_path("files[]").unwrap(),
            [FieldStep::Member("files"), FieldStep::Each]
        );
        for bad in ["", "a..b", "[]", "a[0]", "a.", ".a", "a[]b"] {
            assert!(field_path(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn paths_are_resolved_lexically() {
        assert_eq!(normalize_path("/srv/a/../b//c/.").unwrap(), "/srv/b/c");
        assert_eq!(normalize_path("/").unwrap(), "/");
        assert_eq!(normalize_path("/a/..").unwrap(), "/");
        assert_eq!(normalize_path("/.."), Err(PathRefusal::AboveRoot));
        assert_eq!(normalize_path("srv/a"), Err(PathRefusal::NotAbsolute));
        assert_eq!(normalize_path("/srv/a\0b"), Err(PathRefusal::Nul));
        assert!(path_within("/srv/reports", "/srv/reports"));
        assert!(path_within("/srv/reports/a", "/srv/reports"));
        assert!(!path_within("/srv/reportsx", "/srv/reports"));
        assert!(path_within("/anything", "/"));
    }

    #[test]
    fn url_prefixes_match_scheme_host_port_and_path_on_a_boundary() {
        let api = UrlPrefix::parse("https://API.example.com/v1").unwrap();
        assert!(api.admits("https", "api.example.com", None, "/v1"));
        assert!(api.admits("https", "api.example.com", Some(443), "/v1/items"));
        assert!(!api.admits("https", "api.example.com", None, "/v10"));
        assert!(!api.admits("http", "api.example.com", None, "/v1"));
        assert!(!api.admits("https", "api.example.com", Some(8443), "/v1"));
        assert!(!api.admits("https", "api.example.com.evil", None, "/v1"));
        let six = UrlPrefix::parse("http://[::1]:8080/").unwrap();
        assert!(six.admits("http", "[::1]", Some(8080), "/a"));
        assert!(UrlPrefix::parse("http://[::1]/").is_ok());
        let any = UrlPrefix::parse("http://localhost:8080").unwrap();
        assert!(any.admits("http", "localhost", Some(8080), ""));
        assert!(!any.admits("http", "localhost", None, "/"));
        let below = UrlPrefix::parse("https://*.example.com/").unwrap();
        assert!(below.admits("https", "a.b.example.com", None, "/x"));
        assert!(!below.admits("https", "example.com", None, "/x"));
        assert!(!below.admits("https", "badexample.com", None, "/x"));
    }

    #[test]
    fn bad_prefixes_say_why() {
        for (entry, why) in [
            ("example.com", "no `://`"),
            ("https://user@example.com/", "names a user"),
            ("https://example.com/?q=1", "query"),
            ("https://exa mple.com/", "the host"),
            ("https://example.com:99999/", "the port"),
            ("https://example.com/a/../b", "`..`"),
            ("1http://example.com/", "the scheme"),
        ] {
            let error = UrlPrefix::parse(entry).unwrap_err();
            assert!(error.contains(why), "{entry}: {error}");
        }
    }
}
