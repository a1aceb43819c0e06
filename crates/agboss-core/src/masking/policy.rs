//! [`MaskingPolicy`]: which entities are masked, the user's own patterns, and masking a text or
//! the kept part of a cut one.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

use regex::Regex;

use super::Entity;
use super::engine::{Engine, Kind, Matcher, Span, merge};
use super::tail::partial;

/// The built-in entities' patterns, compiled once per process.
static BUILT_IN: LazyLock<Vec<(Entity, Option<Regex>)>> = LazyLock::new(|| {
    Entity::ALL
        .into_iter()
        .map(|e| (e, Regex::new(e.pattern()).ok()))
        .collect()
});

/// What a tool's result, an approval question and a knowledge base's block are masked with
/// before a model or a person reads them, or a journal keeps them: the kinds of [`Entity`] it
/// finds, and patterns of the application's own, each with a name. What is found is replaced by
/// a placeholder that names it: `[email]`, `[card]`, `[employee-id]`.
///
/// ```
/// use agboss_core::masking::{Entity, MaskingPolicy};
///
/// let policy = MaskingPolicy::standard()
///     .without(Entity::Phone)
///     .with_pattern("employee-id", r"EMP-\d{6}")
///     .unwrap();
/// assert_eq!(
///     policy.mask("EMP-004211 wrote from ada@example.com, +44 20 7946 0958"),
///     "[employee-id] wrote from [email], +44 20 7946 0958"
/// );
/// // Nothing found: the text is borrowed, not copied.
/// assert!(matches!(policy.mask("nothing here"), std::borrow::Cow::Borrowed(_)));
/// ```
///
/// Cloning is cheap (the patterns are shared). Two policies are equal when they mask the same
/// entities and the same patterns under the same names.
#[derive(Clone)]
pub struct MaskingPolicy {
    inner: Arc<Inner>,
}

struct Inner {
    entities: Vec<Entity>,
    /// The user's patterns: name and regex, in the order added.
    patterns: Vec<(String, Regex)>,
    engine: Engine,
}

/// A pattern given to [`MaskingPolicy::with_pattern`] that cannot be used: its name or its
/// regular expression, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("masking pattern `{name}`: {why}")]
pub struct MaskingPatternError {
    /// The name it was given.
    pub name: String,
    /// What is wrong with it.
    pub why: String,
}

impl MaskingPolicy {
    /// Every built-in entity: email addresses, phone numbers, card numbers, IBANs, and API keys
    /// and tokens.
    pub fn standard() -> MaskingPolicy {
        MaskingPolicy::of(Entity::ALL.to_vec(), Vec::new())
    }

    /// No entity: a start for a policy of chosen entities ([`with`](Self::with)) or of the
    /// application's patterns only.
    pub fn empty() -> MaskingPolicy {
        MaskingPolicy::of(Vec::new(), Vec::new())
    }

    /// This policy with `entity` masked too.
    pub fn with(&self, entity: Entity) -> MaskingPolicy {
        let mut entities = self.inner.entities.clone();
        entities.push(entity);
        MaskingPolicy::of(entities, self.inner.patterns.clone())
    }

    /// This policy with `entity` no longer masked.
    pub fn without(&self, entity: Entity) -> MaskingPolicy {
        let mut entities = self.inner.entities.clone();
        entities.retain(|e| *e != entity);
        MaskingPolicy::of(entities, self.inner.patterns.clone())
    }

    /// This policy with what `pattern` (a regular expression of the `regex` crate) matches
    /// replaced by `[name]`. The name is lowercase letters, digits, `-` and `_`, and neither a
    /// built-in entity's name nor one given already.
    ///
    /// # Errors
    ///
    /// [`MaskingPatternError`], naming the pattern, when the name is not such a name or the
    /// pattern is not a valid regular expression.
    pub fn with_pattern(
        &self,
        name: &str,
        pattern: &str,
    ) -> Result<MaskingPolicy, MaskingPatternError> {
        let error = |why: String| MaskingPatternError {
            name: name.to_owned(),
            why,
        };
        let well_formed = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !well_formed {
            return Err(error(
                "a name is lowercase letters, digits, `-` and `_`".into(),
            ));
        }
        let taken = Entity::ALL.iter().any(|e| e.name() == name)
            || self.inner.patterns.iter().any(|(n, _)| n == name);
        if taken {
            return Err(error("the name is taken already".into()));
        }
        let regex = Regex::new(pattern)
            .map_err(|e| error(format!("not a valid regular expression: {e}")))?;
        if regex.is_match("") {
            return Err(error("it matches the empty text".into()));
        }
        let mut patterns = self.inner.patterns.clone();
        patterns.push((name.to_owned(), regex));
        Ok(MaskingPolicy::of(self.inner.entities.clone(), patterns))
    }

    fn of(mut entities: Vec<Entity>, patterns: Vec<(String, Regex)>) -> MaskingPolicy {
        entities.sort_by_key(|e| Entity::ALL.iter().position(|a| a == e));
        entities.dedup();
        let built_in = entities.iter().filter_map(|entity| {
            let (_, regex) = BUILT_IN.iter().find(|(e, _)| e == entity)?;
            Some(Matcher {
                kind: Kind::Entity(*entity),
                regex: regex.clone()?,
            })
        });
        let own = patterns.iter().map(|(name, regex)| Matcher {
            kind: Kind::Named(name.clone()),
            regex: regex.clone(),
        });
        let engine = Engine::new(built_in.chain(own).collect());
        MaskingPolicy {
            inner: Arc::new(Inner {
                entities,
                patterns,
                engine,
            }),
        }
    }

    /// The built-in entities it masks.
    pub fn entities(&self) -> &[Entity] {
        &self.inner.entities
    }

    /// The application's patterns: each name with its regular expression as written.
    pub fn patterns(&self) -> impl Iterator<Item = (&str, &str)> {
        self.inner
            .patterns
            .iter()
            .map(|(name, regex)| (name.as_str(), regex.as_str()))
    }

    /// `text` with every entity and pattern found replaced by its placeholder, also where JSON
    /// or URL escapes hide it (`ada\u0040example.com`, `ada%40example.com`). Borrowed when
    /// nothing is found.
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.inner.engine.mask(text)
    }

    /// Like [`mask`](Self::mask), for the kept part of a text a bound cut: what is left at its
    /// end of an entity the cut went through (`ada@exam`, `4111 1111 11`, `sk-proj-9f`) is
    /// replaced by that entity's placeholder too, though no longer whole.
    ///
    /// ```
    /// use agboss_core::masking::MaskingPolicy;
    ///
    /// let policy = MaskingPolicy::standard();
    /// assert_eq!(policy.mask_kept("write to ada@exam"), "write to [email]");
    /// ```
    pub fn mask_kept<'a>(&self, kept: &'a str) -> Cow<'a, str> {
        let engine = &self.inner.engine;
        let mut spans = engine.find(kept);
        let tail = partial(kept).and_then(|(start, entity)| {
            let matcher = engine
                .matchers
                .iter()
                .position(|m| matches!(m.kind, Kind::Entity(e) if e == entity))?;
            Some(Span {
                range: start..kept.len(),
                matcher,
            })
        });
        match tail {
            Some(tail) => {
                spans.push(tail);
                spans = merge(spans);
            }
            None if spans.is_empty() => return Cow::Borrowed(kept),
            None => {}
        }
        Cow::Owned(engine.replace(kept, &spans))
    }
}

impl PartialEq for MaskingPolicy {
    fn eq(&self, other: &MaskingPolicy) -> bool {
        self.entities() == other.entities() && self.patterns().eq(other.patterns())
    }
}

impl Eq for MaskingPolicy {}

impl fmt::Debug for MaskingPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MaskingPolicy")
            .field("entities", &self.inner.entities)
            .field("patterns", &self.patterns().collect::<Vec<_>>())
            .finish()
    }
}
