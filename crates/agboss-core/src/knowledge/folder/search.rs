//! The three ways a folder index ranks passages: BM25 over the query's terms (any text is a
//! query: its words are OR-ed, nothing in it is syntax), cosine over embeddings (the nearest
//! keys' passages), and the reciprocal rank fusion of both.

use std::collections::HashMap;

use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Term};

use super::store::{Store, failed};
use crate::knowledge::{KnowledgeError, Passage};

/// The `k` of reciprocal rank fusion: a passage's fused score is the sum of `1 / (K + rank)`
/// over the lists it is in, ranks counted from 1.
pub const RRF_K: f32 = 60.0;

/// Best first: higher score, then source, then line.
fn ranked(passages: &mut [Passage]) {
    passages.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.source.cmp(&b.source))
            .then(a.line.cmp(&b.line))
    });
}

/// The `top_k` passages that best match the terms of `query` by BM25 (blocking). A query with
/// no terms finds nothing.
pub fn full_text(store: &Store, query: &str, top_k: usize) -> Result<Vec<Passage>, KnowledgeError> {
    let terms = Store::terms(query);
    if terms.is_empty() || top_k == 0 {
        return Ok(Vec::new());
    }
    let clauses: Vec<(Occur, Box<dyn Query>)> = terms
        .iter()
        .map(|term| {
            let term = Term::from_field_text(store.fields.text, term);
            let query: Box<dyn Query> =
                Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
            (Occur::Should, query)
        })
        .collect();
    let query = BooleanQuery::new(clauses);
    let searcher = store.reader.searcher();
    // Enough beyond `top_k` that passages tied with the last one kept are all seen, so that
    // ties are broken by source and line rather than by the index's order.
    let mut limit = top_k * 2 + 8;
    loop {
        let hits = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(|e| failed(&store.dir, e))?;
        let full = hits.len() == limit;
        let tied = full && hits.get(top_k - 1).map(|h| h.0) == hits.last().map(|h| h.0);
        if tied && limit < 1 << 16 {
            limit *= 4;
            continue;
        }
        let mut out = hits
            .into_iter()
            .map(|(score, address)| store.passage(&searcher, address, score))
            .collect::<Result<Vec<_>, _>>()?;
        ranked(&mut out);
        out.truncate(top_k);
        return Ok(out);
    }
}

/// The passages of `nearest` (keys with their cosine, best first), at most `top_k` (blocking).
pub fn by_keys(
    store: &Store,
    nearest: &[(u64, f32)],
    top_k: usize,
) -> Result<Vec<Passage>, KnowledgeError> {
    let searcher = store.reader.searcher();
    let mut out = Vec::new();
    for (key, similarity) in nearest {
        let term = Term::from_field_u64(store.fields.key, *key);
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        let found = searcher
            .search(&query, &DocSetCollector)
            .map_err(|e| failed(&store.dir, e))?;
        let mut addresses: Vec<DocAddress> = found.into_iter().collect();
        addresses.sort();
        let mut same: Vec<Passage> = addresses
            .into_iter()
            .map(|address| store.passage(&searcher, address, *similarity))
            .collect::<Result<_, _>>()?;
        ranked(&mut same);
        out.extend(same);
        if out.len() >= top_k {
            break;
        }
    }
    out.truncate(top_k);
    Ok(out)
}

/// The reciprocal rank fusion of `lists` (each best first), at most `top_k`: a passage is
/// known by its source and lines; its score becomes the fused one.
pub fn fused(lists: [Vec<Passage>; 2], top_k: usize) -> Vec<Passage> {
    let mut by_place: HashMap<(String, u32, u32), Passage> = HashMap::new();
    for list in lists {
        for (rank, mut passage) in list.into_iter().enumerate() {
            let share = 1.0 / (RRF_K + rank as f32 + 1.0);
            let place = (passage.source.clone(), passage.line, passage.end_line);
            by_place
                .entry(place)
                .and_modify(|p| p.score += share)
                .or_insert_with(|| {
                    passage.score = share;
                    passage
                });
        }
    }
    let mut out: Vec<Passage> = by_place.into_values().collect();
    ranked(&mut out);
    out.truncate(top_k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(source: &str, line: u32) -> Passage {
        Passage {
            source: source.into(),
            heading: String::new(),
            line,
            end_line: line,
            text: String::new(),
            score: 0.0,
        }
    }

    #[test]
    fn fusion_favours_passages_high_in_both_lists() {
        let full = vec![at("a.md", 1), at("b.md", 1), at("c.md", 1)];
        let semantic = vec![at("b.md", 1), at("d.md", 1), at("a.md", 9)];
        let fused = fused([full, semantic], 3);
        let order: Vec<String> = fused.iter().map(Passage::location).collect();
        assert_eq!(order, ["b.md:1", "a.md:1", "d.md:1"]);
        let expected = 1.0 / 62.0 + 1.0 / 61.0;
        assert!((fused[0].score - expected).abs() < 1e-6);
    }
}
