//! [`SourceLocation`]: where a component is declared, with its path normalized.

use std::fmt;

/// Where a component is declared: what `#[tool]`, `#[agent]` and the other attributes record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// `module_path!()` of the declaration.
    pub module_path: &'static str,
    /// `file!()` of the declaration.
    pub file: &'static str,
    /// `line!()` of the declaration.
    pub line: u32,
}

impl SourceLocation {
    /// The file's path with `.` and `..` resolved: `file!()` of an example is
    /// `crates/agboss/../../examples/desk/scout.rs`, its path `examples/desk/scout.rs`. Paths
    /// are relative to the workspace root for the workspace's own crates, as cargo builds them.
    ///
    /// ```
    /// use agboss_core::component::SourceLocation;
    ///
    /// let here = SourceLocation { module_path: "desk::scout", file: "crates/agboss/../../examples/desk/./scout.rs", line: 9 };
    /// assert_eq!(here.path(), "examples/desk/scout.rs");
    /// assert_eq!(here.to_string(), "examples/desk/scout.rs:9");
    /// ```
    pub fn path(&self) -> String {
        let absolute = self.file.starts_with('/');
        let mut parts: Vec<&str> = Vec::new();
        for part in self.file.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." if parts.last().is_some_and(|p| *p != "..") => {
                    parts.pop();
                }
                // Above a relative start, or above the root: kept as written.
                ".." if !absolute => parts.push(".."),
                ".." => {}
                part => parts.push(part),
            }
        }
        let joined = parts.join("/");
        if absolute {
            format!("/{joined}")
        } else {
            joined
        }
    }
}

impl fmt::Display for SourceLocation {
    /// `examples/desk/scout.rs:9`: the [`path`](Self::path) and the line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path(), self.line)
    }
}

#[cfg(test)]
mod tests {
    use super::SourceLocation;

    fn path(file: &'static str) -> String {
        SourceLocation {
            module_path: "m",
            file,
            line: 1,
        }
        .path()
    }

    #[test]
    fn source_paths_are_normalized_lexically() {
        assert_eq!(
            path("crates/agboss/../../examples/desk/scout.rs"),
            "examples/desk/scout.rs"
        );
        assert_eq!(path("tests/common/mod.rs"), "tests/common/mod.rs");
        assert_eq!(
            path("../outside/x.rs"),
            "../outside/x.rs",
            "above the start stays"
        );
        assert_eq!(
            path("/home/u/.cargo/registry/a/../b/src/lib.rs"),
            "/home/u/.cargo/registry/b/src/lib.rs"
        );
        assert_eq!(path("src\\win\\..\\lib.rs"), "src/lib.rs");
    }
}
