//! What an MCP server's OAuth declaration may say of its addresses: the redirect of the
//! authorization code grant and the client's metadata document. Checked at compile time where
//! the address names no variable.

/// Whether `host` (as a URL writes it) names the loopback interface: `127.0.0.1`, `[::1]` or
/// `localhost`, where a program a person runs listens for the browser's return.
pub fn is_loopback_host(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "[::1]" | "localhost")
}

/// Why `redirect` cannot be the redirect address of OAuth's authorization code grant, if it
/// cannot: an `http` address on the loopback interface (`127.0.0.1`, `[::1]`, `localhost`),
/// as a program a person runs listens on, or an `https` one.
pub fn redirect_problem(redirect: &str) -> Option<&'static str> {
    let Some((scheme, rest)) = redirect.split_once("://") else {
        return Some("is not an address");
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match host.rsplit_once(':') {
        Some((name, port)) if !name.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    match scheme {
        "https" if !host.is_empty() => None,
        "http" if is_loopback_host(host) => None,
        "http" => Some("is `http` on a host other than the loopback interface"),
        _ => Some("is neither `http` on the loopback interface nor `https`"),
    }
}

/// Why `url` cannot be the address of a client's metadata document, if it cannot: an
/// `https` address with a path (the document's address is the client's id).
pub fn client_metadata_url_problem(url: &str) -> Option<&'static str> {
    let Some(rest) = url.strip_prefix("https://") else {
        return Some("is not an `https` address");
    };
    match rest.split_once('/') {
        Some((host, path)) if !host.is_empty() && !path.is_empty() => None,
        _ => Some("has no path after its host"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_is_loopback_http_or_https() {
        for fine in [
            "http://127.0.0.1:8765/callback",
            "http://localhost:3000/callback",
            "http://[::1]:9000/cb",
            "https://desk.example/oauth/callback",
        ] {
            assert_eq!(redirect_problem(fine), None, "{fine}");
        }
        assert_eq!(
            redirect_problem("http://desk.example/cb"),
            Some("is `http` on a host other than the loopback interface")
        );
        assert_eq!(
            redirect_problem("desk://callback"),
            Some("is neither `http` on the loopback interface nor `https`")
        );
        assert_eq!(
            redirect_problem("127.0.0.1:8765"),
            Some("is not an address")
        );
    }

    #[test]
    fn a_metadata_document_is_https_with_a_path() {
        assert_eq!(
            client_metadata_url_problem("https://desk.example/client.json"),
            None
        );
        assert_eq!(
            client_metadata_url_problem("https://desk.example/"),
            Some("has no path after its host")
        );
        assert_eq!(
            client_metadata_url_problem("http://desk.example/client.json"),
            Some("is not an `https` address")
        );
    }
}
