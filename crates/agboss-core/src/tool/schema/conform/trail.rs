//! Where in a JSON text a refusal happened, named as a path (`jobs[2].url`).
//!
//! The strict reader marks a [`Step`] each time an error leaves a member or an element, so the
//! steps of one refusal run from the innermost value out. They hold ordinals, not names: the
//! name of a member is read from the text only when a path is wanted, which costs a read that
//! succeeds nothing at all. Naming is done here once, for every type, rather than by a second
//! reading of each type through a path-tracking deserializer.
//!
//! The same scanner names where a serializer gave up, from the text it had written by then
//! ([`path_of_partial`]).

use std::cell::RefCell;
use std::ops::Range;

/// One step from a value into what it contains, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The value of an object's member, counted from 0 in the text's order.
    Member(usize),
    /// The key of an object's member (a key the type refused, such as an unknown field).
    Key(usize),
    /// An array's element.
    Element(usize),
}

/// The steps an error went out through, innermost first.
#[derive(Debug, Default)]
pub(crate) struct Trail(RefCell<Vec<Step>>);

impl Trail {
    /// Notes that `error` left `step`, and hands it on.
    pub(crate) fn marked<E>(&self, error: E, step: Step) -> E {
        self.mark(step);
        error
    }

    #[cold]
    fn mark(&self, step: Step) {
        self.0.borrow_mut().push(step);
    }

    /// The steps marked, innermost first.
    pub(crate) fn into_steps(self) -> Vec<Step> {
        self.0.into_inner()
    }
}

/// The path `steps` (innermost first) lead to in `text`, a JSON document, written as a model
/// reads paths (`place.rows[1]`), or `None` for the document itself. A step the text does not
/// have (which a well-behaved reader never marks) is written `?`, and the path ends there.
pub(crate) fn path_of(text: &str, steps: &[Step]) -> Option<String> {
    let mut path = Path::default();
    let mut value = text;
    for step in steps.iter().rev() {
        let found = match *step {
            Step::Member(n) | Step::Key(n) => member(value, n).map(|(key, inner)| {
                path.key(&key);
                value = inner;
            }),
            Step::Element(n) => element(value, n).map(|inner| {
                path.index(n);
                value = inner;
            }),
        };
        if found.is_none() {
            path.key("?");
            break;
        }
    }
    path.finish()
}

/// The path of the value a serializer was writing when it stopped, from the text it had
/// written (`{"a":[1,{"b":`: `a[1].b`), or `None` for the document itself.
pub(crate) fn path_of_partial(written: &str) -> Option<String> {
    enum Open {
        Object(Option<String>),
        Array(usize),
    }
    let bytes = written.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => open.push(Open::Object(None)),
            b'[' => open.push(Open::Array(0)),
            b'}' | b']' => {
                open.pop();
            }
            b',' => match open.last_mut() {
                Some(Open::Array(n)) => *n += 1,
                Some(Open::Object(key)) => *key = None,
                None => {}
            },
            b'"' => {
                let Some(end) = skip_string(bytes, i) else {
                    break;
                };
                if let Some(Open::Object(key @ None)) = open.last_mut() {
                    // A string read where a key is expected is the key; a `:` must follow it.
                    let after = skip_space(bytes, end);
                    if bytes.get(after) == Some(&b':') {
                        *key = Some(unescaped(&written[i..end]));
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = Path::default();
    for frame in &open {
        match frame {
            Open::Object(Some(key)) => path.key(key),
            Open::Object(None) => break,
            Open::Array(n) => path.index(*n),
        }
    }
    path.finish()
}

/// A path as it is written: members joined by `.`, elements as `[i]`.
#[derive(Default)]
struct Path(String);

impl Path {
    fn key(&mut self, key: &str) {
        if !self.0.is_empty() {
            self.0.push('.');
        }
        self.0.push_str(key);
    }

    fn index(&mut self, index: usize) {
        use std::fmt::Write;
        let _ = write!(self.0, "[{index}]");
    }

    fn finish(self) -> Option<String> {
        (!self.0.is_empty()).then_some(self.0)
    }
}

/// The key and the value's text of the `n`th member of the object `text` begins with.
fn member(text: &str, n: usize) -> Option<(String, &str)> {
    let (key, value) = nth_entry(text, n, b'{')?;
    Some((unescaped(&text[key?]), value))
}

/// The text of the `n`th element of the array `text` begins with.
fn element(text: &str, n: usize) -> Option<&str> {
    nth_entry(text, n, b'[').map(|(_, value)| value)
}

/// The `n`th entry of the container (`open` is `{` or `[`) `text` begins with: where its key
/// is (for an object) and its value's text.
fn nth_entry(text: &str, n: usize, open: u8) -> Option<(Option<Range<usize>>, &str)> {
    let bytes = text.as_bytes();
    let mut i = expect(bytes, skip_space(bytes, 0), open)?;
    for at in 0..=n {
        i = skip_space(bytes, i);
        if at > 0 {
            i = skip_space(bytes, expect(bytes, i, b',')?);
        }
        let key = if open == b'{' {
            let end = skip_string(bytes, i)?;
            let key = i..end;
            i = skip_space(bytes, expect(bytes, skip_space(bytes, end), b':')?);
            Some(key)
        } else {
            None
        };
        let end = skip_value(bytes, i)?;
        if at == n {
            return Some((key, &text[i..end]));
        }
        i = end;
    }
    None
}

/// A key's text (with its quotes) as the string it stands for.
fn unescaped(quoted: &str) -> String {
    serde_json::from_str::<String>(quoted).unwrap_or_else(|_| quoted.trim_matches('"').to_owned())
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn expect(bytes: &[u8], i: usize, byte: u8) -> Option<usize> {
    (bytes.get(i) == Some(&byte)).then_some(i + 1)
}

/// The end of the string that starts (with its quote) at `i`.
fn skip_string(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match *bytes.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The end of the value that starts at `i`.
fn skip_value(bytes: &[u8], i: usize) -> Option<usize> {
    match *bytes.get(i)? {
        b'"' => skip_string(bytes, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match *bytes.get(j)? {
                    b'"' => {
                        j = skip_string(bytes, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while bytes
                .get(j)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Step, path_of, path_of_partial};

    #[test]
    fn names_members_and_elements_from_the_text() {
        let text = r#" { "a" : 1, "b\"c": [ {"x": "}"}, { "y" : [1, 2, {"z": null}] } ] } "#;
        let steps = [
            Step::Member(0),
            Step::Element(2),
            Step::Member(0),
            Step::Element(1),
            Step::Member(1),
        ];
        assert_eq!(path_of(text, &steps).as_deref(), Some("b\"c[1].y[2].z"));
        assert_eq!(path_of(text, &[Step::Member(0)]).as_deref(), Some("a"));
        assert_eq!(path_of(text, &[Step::Key(1)]).as_deref(), Some("b\"c"));
        assert_eq!(path_of(text, &[]), None);
        assert_eq!(path_of(text, &[Step::Member(5)]).as_deref(), Some("?"));
        assert_eq!(path_of("[1]", &[Step::Member(0)]).as_deref(), Some("?"));
    }

    #[test]
    fn names_where_a_writer_stopped() {
        assert_eq!(path_of_partial(""), None);
        assert_eq!(path_of_partial("{"), None);
        assert_eq!(path_of_partial(r#"{"a":"#).as_deref(), Some("a"));
        assert_eq!(
            path_of_partial(r#"{"a":"x,]}","b":[1,{"c":[{"d":"#).as_deref(),
            Some("b[1].c[0].d")
        );
        assert_eq!(path_of_partial(r#"{"a":1,"#), None);
        assert_eq!(path_of_partial(r#"[1,2,"#).as_deref(), Some("[2]"));
        assert_eq!(
            path_of_partial(r#"{"a":{"b":1},"c":"#).as_deref(),
            Some("c")
        );
    }
}
