//! The manifest beside an index: for each file indexed, its size, modification time and
//! content hash (so that an unchanged file is only looked at, never read again) and the keys
//! of its passages (so that their embeddings are kept).

use std::collections::BTreeMap;
use std::fs::{self, Metadata};
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::knowledge::KnowledgeError;

/// The manifest's format; another one is read as no manifest (everything indexed again).
const VERSION: u32 = 1;

/// What the index holds of each file.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// Its format.
    pub version: u32,
    /// By source (the path relative to the folder).
    pub files: BTreeMap<String, FileEntry>,
}

/// One indexed file.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileEntry {
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time: seconds and nanoseconds since the Unix epoch.
    pub modified: (u64, u32),
    /// The XXH3 hash of its bytes.
    pub hash: u64,
    /// The keys of its passages (hashes of their heading and text), in order.
    pub keys: Vec<u64>,
}

/// A file's size and modification time, as the manifest keeps them.
pub fn stamp(meta: &Metadata) -> (u64, (u64, u32)) {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| (d.as_secs(), d.subsec_nanos()));
    (meta.len(), modified)
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Manifest {
        Manifest {
            version: VERSION,
            files: BTreeMap::new(),
        }
    }

    /// The manifest at `path`, or `None` when there is none or it cannot be read as one (the
    /// index is then made again from nothing).
    pub fn load(path: &Path) -> Option<Manifest> {
        let bytes = fs::read(path).ok()?;
        let manifest: Manifest = serde_json::from_slice(&bytes).ok()?;
        (manifest.version == VERSION).then_some(manifest)
    }

    /// Writes it to `path`, through a temporary file renamed over it.
    pub fn save(&self, path: &Path) -> Result<(), KnowledgeError> {
        let bytes = serde_json::to_vec(self).map_err(|e| KnowledgeError::Index {
            path: path.to_path_buf(),
            message: format!("could not write the manifest: {e}"),
        })?;
        write_replacing(path, &bytes)
    }
}

/// Writes `bytes` to `path` through `path.tmp`, renamed over it once written.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<(), KnowledgeError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let io = |source| KnowledgeError::Io {
        path: path.to_path_buf(),
        source,
    };
    fs::write(&tmp, bytes).map_err(io)?;
    fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_survives_a_round_trip_and_a_garbled_one_is_none()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("manifest.json");
        assert_eq!(Manifest::load(&path), None);
        let mut manifest = Manifest::new();
        manifest.files.insert(
            "a.md".into(),
            FileEntry {
                size: 3,
                modified: (1, 2),
                hash: u64::MAX,
                keys: vec![7, 8],
            },
        );
        manifest.save(&path)?;
        assert_eq!(Manifest::load(&path), Some(manifest));
        fs::write(&path, "{not json")?;
        assert_eq!(Manifest::load(&path), None);
        Ok(())
    }
}
