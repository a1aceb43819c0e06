//! Edit distance, and the nearest of some candidates: "did you mean `description`?".

/// The Levenshtein distance between `a` and `b`, in characters.
///
/// ```
/// assert_eq!(agboss_rules::distance::edit_distance("timout", "timeout"), 1);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// The candidate nearest to `name` if it is at most `max` edits away (the first of equals).
///
/// ```
/// use agboss_rules::distance::nearest;
/// let tools = ["fetch-page-tool", "note-save-tool"];
/// assert_eq!(nearest("fetch-pages-tool", tools, 3), Some("fetch-page-tool"));
/// assert_eq!(nearest("weather-tool", tools, 3), None);
/// ```
pub fn nearest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    max: usize,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (c, edit_distance(name, c)))
        .filter(|(_, d)| *d <= max)
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c)
}

/// The known attribute key `key` is a typo of: near by edit distance, a prefix either way, or
/// a shortening (`max_size` for `max_result_size`).
///
/// ```
/// use agboss_rules::distance::typo_of;
/// let keys = ["name", "description", "timeout", "max_result_size", "crate"];
/// assert_eq!(typo_of("desc", &keys), Some("description"));
/// assert_eq!(typo_of("timout", &keys), Some("timeout"));
/// assert_eq!(typo_of("max_size", &keys), Some("max_result_size"));
/// assert_eq!(typo_of("channel_of_doom", &keys), None);
/// ```
pub fn typo_of(key: &str, known: &[&'static str]) -> Option<&'static str> {
    known
        .iter()
        .map(|k| (*k, edit_distance(key, k)))
        .filter(|(k, d)| {
            *d <= 2.max(k.len() / 3)
                || k.starts_with(key)
                || key.starts_with(k)
                || is_shortening(key, k)
        })
        .min_by_key(|(_, d)| *d)
        .map(|(k, _)| k)
}

/// Every `_`-separated word of `key`, in order, among `known`'s words.
fn is_shortening(key: &str, known: &str) -> bool {
    let mut words = known.split('_');
    key.contains('_') && key.split('_').all(|w| words.any(|k| k == w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("résumé", "resume"), 2);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
