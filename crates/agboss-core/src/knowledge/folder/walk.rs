//! Listing the documents under a folder: recursively, in a stable order, skipping hidden
//! folders and files, `target/` and `node_modules/`, and not following links to folders.

use std::fs;
use std::path::{Path, PathBuf};

use super::spec::Documents;
use crate::knowledge::KnowledgeError;

/// Folders never read, besides hidden ones.
const SKIPPED_FOLDERS: &[&str] = &["target", "node_modules"];

/// A document found under the folder.
#[derive(Clone, Debug)]
pub struct Found {
    /// Its path relative to the folder, `/`-separated: the passages' `source`.
    pub source: String,
    /// Its full path.
    pub path: PathBuf,
}

/// The `documents` under `folder`, sorted by their source.
pub fn documents(folder: &Path, documents: Documents) -> Result<Vec<Found>, KnowledgeError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| KnowledgeError::Io { path, source }
    };
    let meta = fs::metadata(folder).map_err(io(folder))?;
    if !meta.is_dir() {
        return Err(KnowledgeError::Io {
            path: folder.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
        });
    }
    let mut out = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let kind = entry.file_type().map_err(io(&path))?;
            if kind.is_dir() {
                if !SKIPPED_FOLDERS.contains(&name.as_ref()) {
                    pending.push(path);
                }
                continue;
            }
            // A link is read when it leads to a file; a link to a folder is not followed.
            let is_file = kind.is_file() || (kind.is_symlink() && path.is_file());
            if is_file && documents.takes(&path) {
                out.push(Found {
                    source: source_of(folder, &path),
                    path,
                });
            }
        }
    }
    out.sort_by(|a, b| a.source.cmp(&b.source));
    Ok(out)
}

/// `path` relative to `folder`, its parts joined with `/`.
fn source_of(folder: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(folder).unwrap_or(path);
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_and_build_folders_are_skipped() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        for file in [
            "a.md",
            "guides/b.markdown",
            "guides/deep/c.txt",
            ".git/d.md",
            "target/e.md",
            "node_modules/x/f.md",
            "guides/.hidden.md",
            "src/lib.rs",
        ] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().ok_or("no parent")?)?;
            fs::write(&path, "text")?;
        }
        let found: Vec<String> = documents(root, Documents::Text)?
            .into_iter()
            .map(|f| f.source)
            .collect();
        assert_eq!(found, ["a.md", "guides/b.markdown", "guides/deep/c.txt"]);
        let code: Vec<String> = documents(root, Documents::Code)?
            .into_iter()
            .map(|f| f.source)
            .collect();
        assert_eq!(code, ["src/lib.rs"]);
        let missing = documents(&root.join("nowhere"), Documents::Text);
        let message = missing.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("nowhere"), "{message}");
        Ok(())
    }
}
