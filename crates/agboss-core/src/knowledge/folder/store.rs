//! The tantivy index under a folder index: its schema, its tokenizer (tantivy's
//! `SimpleTokenizer`, lowercased, tokens of 40 bytes or more dropped; no stemming, no stop
//! words), opening or creating it, and reading a passage back from a stored document.

use std::path::{Path, PathBuf};

use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
    Value,
};
use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer};
use tantivy::{DocAddress, Index, IndexReader, ReloadPolicy, Searcher, TantivyDocument};

use crate::knowledge::{KnowledgeError, Passage};

/// The name the tokenizer is registered under.
const TOKENIZER: &str = "agboss";

/// Tokens of this many bytes or more are dropped (hashes, base64 blobs).
const LONGEST_TOKEN: usize = 40;

/// The fields of a passage's document.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    /// Its text: indexed with frequencies (no positions: no phrase queries), and stored.
    pub text: Field,
    /// The file it comes from, as one term (deleting a file's passages) and stored.
    pub source: Field,
    /// Its heading path, stored.
    pub heading: Field,
    /// Its first line, stored.
    pub line: Field,
    /// Its last line, stored.
    pub end_line: Field,
    /// The hash of its heading and text, indexed: how its embedding finds it.
    pub key: Field,
}

/// An open tantivy index and its reader.
pub struct Store {
    /// The index.
    pub index: Index,
    /// Its reader, reloaded after every commit.
    pub reader: IndexReader,
    /// Its fields.
    pub fields: Fields,
    /// The folder it lives in.
    pub dir: PathBuf,
    /// Whether it was created by this opening (an index made from nothing).
    pub created: bool,
}

/// The schema and its fields.
fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER)
        .set_index_option(IndexRecordOption::WithFreqs);
    let text_options = TextOptions::default()
        .set_indexing_options(indexing)
        .set_stored();
    let fields = Fields {
        text: builder.add_text_field("text", text_options),
        source: builder.add_text_field("source", STRING | STORED),
        heading: builder.add_text_field("heading", STORED),
        line: builder.add_u64_field("line", STORED),
        end_line: builder.add_u64_field("end_line", STORED),
        key: builder.add_u64_field("key", INDEXED | STORED),
    };
    (builder.build(), fields)
}

/// The analyzer of texts and queries alike.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(LONGEST_TOKEN))
        .filter(LowerCaser)
        .build()
}

/// The error of an index that could not be opened: what failed, and what to do.
pub fn unusable(dir: &Path, error: impl std::fmt::Display) -> KnowledgeError {
    KnowledgeError::Index {
        path: dir.to_path_buf(),
        message: format!(
            "it cannot be used ({error}); delete the folder {} and index again",
            dir.display()
        ),
    }
}

/// An error of the index at `dir` while it was in use.
pub fn failed(dir: &Path, error: impl std::fmt::Display) -> KnowledgeError {
    KnowledgeError::Index {
        path: dir.to_path_buf(),
        message: error.to_string(),
    }
}

impl Store {
    /// The index in `dir`, created (with its folder) when there is none; an index that cannot
    /// be read, or that was made with other fields, is an error that says to delete it.
    pub fn open(dir: &Path) -> Result<Store, KnowledgeError> {
        let (schema, fields) = schema();
        let created = !dir.join("meta.json").exists();
        let index = if created {
            std::fs::create_dir_all(dir).map_err(|source| KnowledgeError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            Index::create_in_dir(dir, schema).map_err(|e| unusable(dir, e))?
        } else {
            let index = Index::open_in_dir(dir).map_err(|e| unusable(dir, e))?;
            if index.schema() != schema {
                return Err(unusable(dir, "it was made with other fields"));
            }
            index
        };
        index.tokenizers().register(TOKENIZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(|e| unusable(dir, e))?;
        Ok(Store {
            index,
            reader,
            fields,
            dir: dir.to_path_buf(),
            created,
        })
    }

    /// The passage stored at `address`, with `score`.
    pub fn passage(
        &self,
        searcher: &Searcher,
        address: DocAddress,
        score: f32,
    ) -> Result<Passage, KnowledgeError> {
        let doc: TantivyDocument = searcher.doc(address).map_err(|e| failed(&self.dir, e))?;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        };
        let number = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_u64())
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or_default()
        };
        Ok(Passage {
            source: text(self.fields.source),
            heading: text(self.fields.heading),
            line: number(self.fields.line),
            end_line: number(self.fields.end_line),
            text: text(self.fields.text),
            score,
        })
    }

    /// The terms of `text` as the index makes them.
    pub fn terms(text: &str) -> Vec<String> {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(token) = stream.next() {
            out.push(token.text.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_split_at_non_alphanumerics_lowercased_and_bounded() {
        let long = "a".repeat(40);
        let kept = "b".repeat(39);
        let text = format!("Fn_name() camelCase 3.14 naïve {long} {kept} über-Straße");
        assert_eq!(
            Store::terms(&text),
            [
                "fn",
                "name",
                "camelcase",
                "3",
                "14",
                "naïve",
                &kept,
                "über",
                "straße"
            ]
        );
    }
}
