//! [`Registry`]: every registration of one kind that the program links, found through
//! `inventory`, sorted once.

use std::sync::OnceLock;

use super::Component;

/// A registration `inventory` collects: it names the component it registers.
pub trait Registered: Sync + 'static {
    /// The registered component's header.
    fn component(&self) -> &Component;
}

/// Every `T` submitted to `inventory` anywhere in the program, collected on first use and
/// sorted by name, then by Rust type (inventory's own order is unspecified), so lists and
/// `describe` are the same on every run. Two registrations may share a name; assembly reports
/// that where it matters.
///
/// One `static` per kind:
///
/// ```
/// # use agboss_core::component::{Component, Registered, Registry};
/// # pub struct WidgetRegistration { component: Component }
/// # impl Registered for WidgetRegistration { fn component(&self) -> &Component { &self.component } }
/// inventory::collect!(WidgetRegistration);
/// static WIDGETS: Registry<WidgetRegistration> = Registry::new();
///
/// assert!(WIDGETS.all().is_empty());
/// ```
pub struct Registry<T: 'static> {
    sorted: OnceLock<Vec<&'static T>>,
}

impl<T: 'static> Registry<T> {
    /// A registry not yet collected.
    pub const fn new() -> Registry<T> {
        Registry {
            sorted: OnceLock::new(),
        }
    }
}

impl<T: 'static> Default for Registry<T> {
    fn default() -> Registry<T> {
        Registry::new()
    }
}

impl<T: Registered + inventory::Collect> Registry<T> {
    /// Every registration, sorted by name, then by Rust type.
    pub fn all(&'static self) -> &'static [&'static T] {
        self.sorted.get_or_init(|| {
            let mut all: Vec<&'static T> = inventory::iter::<T>.into_iter().collect();
            all.sort_by_key(|r| (r.component().name(), r.component().rust_type()));
            all
        })
    }
}
