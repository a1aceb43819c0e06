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

/// A registration that is only its descriptor (an agent's, an MCP server's): what the kind's
/// attribute submits to `inventory`. Each kind adds its `of::<T>()` constructor, bound by its
/// own trait.
#[derive(Debug)]
pub struct Registration<D: 'static> {
    descriptor: &'static D,
}

impl<D: 'static> Registration<D> {
    /// The registration of `descriptor`.
    pub const fn new(descriptor: &'static D) -> Registration<D> {
        Registration { descriptor }
    }

    /// The registered descriptor.
    pub fn descriptor(&self) -> &'static D {
        self.descriptor
    }
}

/// The registry of one component kind: `inventory` collects `$registration` (whose
/// `descriptor()` derefs to a [`Component`]), and the function `$list` returns every one linked
/// into the program, sorted by name, then by Rust type.
///
/// A kind whose registration is only its descriptor names it `Registration<Descriptor>` and
/// the trait its attribute implements; this writes the alias and its `of::<T>()` too.
macro_rules! registry {
    (
        $(#[$alias_doc:meta])* $alias_vis:vis type $alias:ident = Registration<$descriptor:ty> of $kind:path;
        $(#[$doc:meta])* $vis:vis fn $list:ident();
    ) => {
        $(#[$alias_doc])*
        $alias_vis type $alias = $crate::component::Registration<$descriptor>;

        impl $crate::component::Registration<$descriptor> {
            /// The registration of `T`, as its attribute submits it.
            pub const fn of<T: $kind>() -> $alias {
                $crate::component::Registration::new(T::DESCRIPTOR)
            }
        }

        $crate::component::registry! {
            $(#[$doc])*
            $vis fn $list() -> $alias
        }
    };
    ($(#[$doc:meta])* $vis:vis fn $list:ident() -> $registration:ty) => {
        impl $crate::component::Registered for $registration {
            fn component(&self) -> &$crate::component::Component {
                self.descriptor()
            }
        }

        inventory::collect!($registration);

        $(#[$doc])*
        $vis fn $list() -> &'static [&'static $registration] {
            static REGISTRY: $crate::component::Registry<$registration> =
                $crate::component::Registry::new();
            REGISTRY.all()
        }
    };
}

/// `impl Deref<Target = Component>` for a descriptor that holds its header in a field named
/// `component`: `descriptor.name()` reads the same on every kind.
macro_rules! derefs_to_component {
    ($descriptor:ty) => {
        impl ::std::ops::Deref for $descriptor {
            type Target = $crate::component::Component;

            fn deref(&self) -> &$crate::component::Component {
                &self.component
            }
        }
    };
}

pub(crate) use {derefs_to_component, registry};
