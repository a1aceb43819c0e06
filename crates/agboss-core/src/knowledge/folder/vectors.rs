//! The passages' embeddings, kept beside the index in one binary file (`vectors.bin`) and in
//! memory, normalized, for a brute-force cosine search.
//!
//! The file, all numbers little-endian: the magic `AGBVEC1\n`, the model's name (u32 length,
//! UTF-8 bytes), the dimension (u32), the count (u64), then per vector its key (u64) and its
//! `dimension` f32s. It is rewritten whole after an update, through a temporary file.

use std::collections::HashSet;
use std::path::Path;

use crate::knowledge::KnowledgeError;

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"AGBVEC1\n";

/// Embeddings by passage key, of one model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vectors {
    /// The model that made them.
    pub model: String,
    /// Their dimension (0 while there are none).
    pub dimension: usize,
    /// The keys, in the order of `data`.
    pub keys: Vec<u64>,
    /// The vectors, normalized to length 1, one after another.
    pub data: Vec<f32>,
}

/// `vector` scaled to length 1 (a zero vector stays zero).
fn normalized(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
    vector
}

impl Vectors {
    /// No vectors, for `model`.
    pub fn empty(model: &str) -> Vectors {
        Vectors {
            model: model.to_owned(),
            ..Vectors::default()
        }
    }

    /// The keys it holds a vector for.
    pub fn key_set(&self) -> HashSet<u64> {
        self.keys.iter().copied().collect()
    }

    /// A new set: the vectors of these keys kept, `added` ones appended, the rest dropped.
    /// Added vectors of another dimension than the first one's are an error.
    pub fn rebuilt(
        &self,
        keep: &HashSet<u64>,
        added: Vec<(u64, Vec<f32>)>,
    ) -> Result<Vectors, String> {
        let mut out = Vectors::empty(&self.model);
        out.dimension = self.dimension;
        for (i, key) in self.keys.iter().enumerate() {
            if keep.contains(key) {
                out.keys.push(*key);
                let d = self.dimension;
                out.data.extend_from_slice(&self.data[i * d..(i + 1) * d]);
            }
        }
        if out.keys.is_empty() {
            out.dimension = 0;
        }
        for (key, vector) in added {
            if out.dimension == 0 {
                out.dimension = vector.len();
            }
            if vector.len() != out.dimension {
                return Err(format!(
                    "an embedding of {} numbers among embeddings of {}",
                    vector.len(),
                    out.dimension
                ));
            }
            out.keys.push(key);
            out.data.extend(normalized(vector));
        }
        Ok(out)
    }

    /// The `k` keys whose vectors are nearest `query` by cosine, best first, with their
    /// similarity; ties by key. Brute force: one dot product per vector.
    pub fn nearest(&self, query: Vec<f32>, k: usize) -> Vec<(u64, f32)> {
        if self.dimension == 0 || query.len() != self.dimension {
            return Vec::new();
        }
        let query = normalized(query);
        let mut scored: Vec<(u64, f32)> = self
            .data
            .chunks_exact(self.dimension)
            .zip(&self.keys)
            .map(|(v, key)| (*key, v.iter().zip(&query).map(|(a, b)| a * b).sum()))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
    }

    /// The bytes of its file.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.model.len() + self.data.len() * 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.model.len() as u32).to_le_bytes());
        out.extend_from_slice(self.model.as_bytes());
        out.extend_from_slice(&(self.dimension as u32).to_le_bytes());
        out.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for (i, key) in self.keys.iter().enumerate() {
            out.extend_from_slice(&key.to_le_bytes());
            for x in &self.data[i * self.dimension..(i + 1) * self.dimension] {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Reads `bytes`, or says what is wrong with them.
    fn decode(bytes: &[u8]) -> Result<Vectors, String> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let piece = bytes.get(at..at + n).ok_or("the file is cut short")?;
            at += n;
            Ok(piece)
        };
        if take(8)? != MAGIC {
            return Err("not a vectors file".into());
        }
        let u32_of = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        let name_len = u32_of(take(4)?);
        let model = String::from_utf8_lossy(take(name_len)?).into_owned();
        let dimension = u32_of(take(4)?);
        let count_bytes = take(8)?;
        let mut count = [0u8; 8];
        count.copy_from_slice(count_bytes);
        let count = usize::try_from(u64::from_le_bytes(count)).map_err(|e| e.to_string())?;
        let mut out = Vectors {
            model,
            dimension,
            keys: Vec::with_capacity(count.min(1 << 20)),
            data: Vec::new(),
        };
        for _ in 0..count {
            let mut key = [0u8; 8];
            key.copy_from_slice(take(8)?);
            out.keys.push(u64::from_le_bytes(key));
            let raw = take(dimension * 4)?;
            out.data.extend(
                raw.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        Ok(out)
    }

    /// The vectors at `path` if they are `model`'s; none when the file is absent, of another
    /// model, or unreadable (they are then made again by the next update).
    pub fn load(path: &Path, model: &str) -> Vectors {
        let Ok(bytes) = std::fs::read(path) else {
            return Vectors::empty(model);
        };
        match Vectors::decode(&bytes) {
            Ok(vectors) if vectors.model == model => vectors,
            Ok(_) => Vectors::empty(model),
            Err(e) => {
                tracing::warn!("{}: {e}; the embeddings are made again", path.display());
                Vectors::empty(model)
            }
        }
    }

    /// Writes them to `path`.
    pub fn save(&self, path: &Path) -> Result<(), KnowledgeError> {
        super::manifest::write_replacing(path, &self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_rank_by_cosine() -> Result<(), Box<dyn std::error::Error>> {
        let vectors = Vectors::empty("m").rebuilt(
            &Default::default(),
            vec![
                (1, vec![1.0, 0.0]),
                (2, vec![0.0, 3.0]),
                (3, vec![1.0, 1.0]),
            ],
        )?;
        let near = vectors.nearest(vec![2.0, 0.1], 2);
        assert_eq!(near.iter().map(|n| n.0).collect::<Vec<_>>(), [1, 3]);
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("vectors.bin");
        vectors.save(&path)?;
        assert_eq!(Vectors::load(&path, "m"), vectors);
        assert_eq!(Vectors::load(&path, "other").keys.len(), 0);
        let kept = vectors.rebuilt(&[2u64].into_iter().collect(), vec![])?;
        assert_eq!(kept.keys, [2]);
        assert!(
            vectors
                .rebuilt(&Default::default(), vec![(9, vec![1.0])])
                .is_ok()
        );
        assert!(kept.rebuilt(&kept.key_set(), vec![(9, vec![1.0])]).is_err());
        std::fs::write(&path, b"AGBVEC1\n\x01")?;
        assert_eq!(Vectors::load(&path, "m").keys.len(), 0);
        Ok(())
    }
}
