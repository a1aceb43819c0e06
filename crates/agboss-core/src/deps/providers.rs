//! [`Providers`]: the values an application gives to the tools that declare them.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

/// Why a dependency has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unresolved {
    /// Nothing provides its type.
    NotProvided,
    /// Its provider could not make it, for this reason (`NOTES_FILE is not set`).
    Failed(String),
}

/// The `Arc<T>` values an application provides, one per type `T`.
///
/// A value is given ready ([`provide`](Self::provide)) or made on first use
/// ([`provide_lazy`](Self::provide_lazy)), as environment-backed services are, so that
/// `describe` and assembly never need the environment.
///
/// ```
/// use agboss_core::deps::Providers;
/// use std::sync::Arc;
///
/// trait Greeter: Send + Sync { fn hello(&self) -> String; }
/// struct English;
/// impl Greeter for English { fn hello(&self) -> String { "hello".into() } }
///
/// let mut providers = Providers::new();
/// providers.provide::<dyn Greeter>(Arc::new(English));
/// assert_eq!(providers.get::<dyn Greeter>().unwrap().hello(), "hello");
/// ```
#[derive(Clone, Default)]
pub struct Providers {
    values: HashMap<TypeId, Entry, BuildHasherDefault<TypeIdHasher>>,
}

/// An `Arc<T>` behind `Any`, as providers store values.
pub type ErasedValue = Arc<dyn Any + Send + Sync>;

/// Makes a lazily provided value; an `Err` says why it cannot be made.
pub type MakeValue = Arc<dyn Fn() -> Result<ErasedValue, String> + Send + Sync>;

#[derive(Clone)]
struct Entry {
    slot: Slot,
    type_name: &'static str,
}

#[derive(Clone)]
enum Slot {
    Ready(ErasedValue),
    Lazy(Arc<Lazy>),
}

struct Lazy {
    make: MakeValue,
    made: OnceLock<Result<ErasedValue, String>>,
}

impl Lazy {
    /// The value, made on the first call.
    fn value(&self) -> Result<&ErasedValue, &String> {
        self.made.get_or_init(|| (self.make)()).as_ref()
    }
}

impl Providers {
    /// No providers.
    pub fn new() -> Providers {
        Providers::default()
    }

    /// Provides `value` to every field of type `Arc<T>`; replaces an earlier value for `T`.
    pub fn provide<T: ?Sized + Send + Sync + 'static>(&mut self, value: Arc<T>) -> &mut Self {
        self.insert(
            TypeId::of::<T>(),
            std::any::type_name::<T>(),
            Slot::Ready(Arc::new(value)),
        );
        self
    }

    /// Provides the `Arc<T>` that `make` returns (an [`ErasedValue`] holding an `Arc<T>`),
    /// made once, on first use; an error is what calls that need it report.
    pub fn provide_lazy(
        &mut self,
        type_id: TypeId,
        type_name: &'static str,
        make: MakeValue,
    ) -> &mut Self {
        let lazy = Lazy {
            make,
            made: OnceLock::new(),
        };
        self.insert(type_id, type_name, Slot::Lazy(Arc::new(lazy)));
        self
    }

    /// Adds every value of `other`, replacing values for the same types.
    pub fn extend(&mut self, other: &Providers) {
        for (id, entry) in &other.values {
            self.values.insert(*id, entry.clone());
        }
    }

    /// The value provided for `T`, made now if it is lazy.
    pub fn get<T: ?Sized + Send + Sync + 'static>(&self) -> Result<Arc<T>, Unresolved> {
        let entry = self
            .values
            .get(&TypeId::of::<T>())
            .ok_or(Unresolved::NotProvided)?;
        let value = match &entry.slot {
            Slot::Ready(value) => value,
            Slot::Lazy(lazy) => lazy
                .value()
                .map_err(|reason| Unresolved::Failed(reason.clone()))?,
        };
        value.downcast_ref::<Arc<T>>().cloned().ok_or_else(|| {
            Unresolved::Failed(format!(
                "the value provided for `{}` has another type",
                entry.type_name
            ))
        })
    }

    /// Makes every lazy value now; the reasons of those that cannot be made, by type name.
    pub fn make_all(&self) -> Vec<(&'static str, String)> {
        let mut failed: Vec<_> = self
            .values
            .values()
            .filter_map(|entry| match &entry.slot {
                Slot::Lazy(lazy) => lazy
                    .value()
                    .err()
                    .map(|reason| (entry.type_name, reason.clone())),
                Slot::Ready(_) => None,
            })
            .collect();
        failed.sort();
        failed
    }

    /// Whether something is provided for the type with id `type_id`.
    pub fn contains(&self, type_id: TypeId) -> bool {
        self.values.contains_key(&type_id)
    }

    /// The names of the provided types, sorted.
    pub fn type_names(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.values.values().map(|e| e.type_name).collect();
        names.sort_unstable();
        names
    }

    fn insert(&mut self, type_id: TypeId, type_name: &'static str, slot: Slot) {
        self.values.insert(type_id, Entry { slot, type_name });
    }
}

impl fmt::Debug for Providers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.type_names()).finish()
    }
}

/// `TypeId`s are already hashes; hashing them again would only cost time.
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_ne_bytes(word);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(5) ^ n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_lazy_value_is_made_once_on_first_use() {
        let made = Arc::new(AtomicUsize::new(0));
        let mut providers = Providers::new();
        let counter = made.clone();
        providers.provide_lazy(
            TypeId::of::<String>(),
            "String",
            Arc::new(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(Arc::new(Arc::new(String::from("made"))) as ErasedValue)
            }),
        );
        assert_eq!(made.load(Ordering::SeqCst), 0);
        assert_eq!(*providers.get::<String>().unwrap(), "made");
        assert_eq!(*providers.get::<String>().unwrap(), "made");
        assert_eq!(made.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_value_that_cannot_be_made_says_why() {
        let mut providers = Providers::new();
        providers.provide_lazy(
            TypeId::of::<String>(),
            "String",
            Arc::new(|| Err("NOTES_FILE is not set".into())),
        );
        assert_eq!(
            providers.get::<String>().unwrap_err(),
            Unresolved::Failed("NOTES_FILE is not set".into())
        );
        assert_eq!(
            providers.make_all(),
            [("String", "NOTES_FILE is not set".to_owned())]
        );
        assert_eq!(providers.get::<u8>().unwrap_err(), Unresolved::NotProvided);
    }
}
