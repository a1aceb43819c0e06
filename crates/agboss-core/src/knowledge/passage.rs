//! What a search finds ([`Passage`]), and the DTOs of a knowledge base's search tool
//! ([`KnowledgeQuery`] in, [`KnowledgeHits`] out).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One piece of a knowledge base's documents that a search found, with where it came from, so
/// that an answer can cite it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Passage {
    /// Where the passage comes from: a path relative to the knowledge base's folder
    /// (`guides/tools.md`), or whatever names a document in a base of the user's own.
    pub source: String,
    /// The headings above the passage, outermost first, joined with ` > `
    /// (`Tools > Result size`); empty when the document has none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub heading: String,
    /// The first line of the passage in its document, counted from 1.
    pub line: u32,
    /// The last line of the passage in its document.
    pub end_line: u32,
    /// The passage's text.
    pub text: String,
    /// How well it matched: higher is better, comparable only within one search.
    pub score: f32,
}

impl Passage {
    /// `source:line-end_line`, or `source:line` for one line: how a citation names it.
    pub fn location(&self) -> String {
        if self.end_line > self.line {
            format!("{}:{}-{}", self.source, self.line, self.end_line)
        } else {
            format!("{}:{}", self.source, self.line)
        }
    }
}

/// What a model asks a knowledge base's search tool: the input of `search-<name>-tool`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeQuery {
    /// What to look for, in words: the search matches them against the documents' text.
    #[schemars(length(min = 1, max = 2000))]
    pub query: String,
    /// How many passages to return at most; the knowledge base's own number when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 50))]
    pub top_k: Option<u32>,
}

impl KnowledgeQuery {
    /// A query for `query`, with the knowledge base's number of passages.
    pub fn new(query: impl Into<String>) -> KnowledgeQuery {
        KnowledgeQuery {
            query: query.into(),
            top_k: None,
        }
    }

    /// The same query, for at most `top_k` passages.
    pub fn with_top_k(mut self, top_k: u32) -> KnowledgeQuery {
        self.top_k = Some(top_k);
        self
    }
}

/// What a knowledge base's search tool answers: the passages found, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeHits {
    /// The passages found, best first; empty when nothing matched.
    pub passages: Vec<Passage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_names_the_lines() {
        let mut passage = Passage {
            source: "guides/tools.md".into(),
            heading: "Tools > Result size".into(),
            line: 40,
            end_line: 58,
            text: "..".into(),
            score: 1.0,
        };
        assert_eq!(passage.location(), "guides/tools.md:40-58");
        passage.end_line = 40;
        assert_eq!(passage.location(), "guides/tools.md:40");
    }
}
