//! [`Providers`]: the values an application gives to the tools that declare them.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// The `Arc<T>` values an application provides, one per type `T`.
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

#[derive(Clone)]
struct Entry {
    /// An `Arc<T>` behind `Any`.
    value: Arc<dyn Any + Send + Sync>,
    type_name: &'static str,
}

impl Providers {
    /// No providers.
    pub fn new() -> Providers {
        Providers::default()
    }

    /// Provides `value` to every field of type `Arc<T>`; replaces an earlier value for `T`.
    pub fn provide<T: ?Sized + Send + Sync + 'static>(&mut self, value: Arc<T>) -> &mut Self {
        self.values.insert(
            TypeId::of::<T>(),
            Entry {
                value: Arc::new(value),
                type_name: std::any::type_name::<T>(),
            },
        );
        self
    }

    /// The value provided for `T`.
    pub fn get<T: ?Sized + Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|entry| entry.value.downcast_ref::<Arc<T>>())
            .cloned()
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
