//! Infrastructure: services that belong to the application, never to a workflow (stores,
//! model routers, channel transports), and the registry that says which types are such.

use std::any::TypeId;

/// A type that only the application may provide. Mark one with
/// [`infrastructure!`](crate::infrastructure); a workflow that provides it fails assembly with
/// `[di.infrastructure-in-workflow]`.
#[derive(Debug)]
pub struct InfrastructureType {
    type_id: fn() -> TypeId,
    type_name: fn() -> &'static str,
    what: &'static str,
}

impl InfrastructureType {
    /// `T`, described as `what` (`"a message queue"`).
    pub const fn of<T: ?Sized + 'static>(what: &'static str) -> InfrastructureType {
        InfrastructureType {
            type_id: TypeId::of::<T>,
            type_name: std::any::type_name::<T>,
            what,
        }
    }

    /// The marked type's id.
    pub fn type_id(&self) -> TypeId {
        (self.type_id)()
    }

    /// The marked type's name.
    pub fn type_name(&self) -> &'static str {
        (self.type_name)()
    }

    /// What it is, in words.
    pub fn what(&self) -> &'static str {
        self.what
    }
}

inventory::collect!(InfrastructureType);

/// The infrastructure type with id `type_id`, if it is one.
pub fn infrastructure_type(type_id: TypeId) -> Option<&'static InfrastructureType> {
    inventory::iter::<InfrastructureType>().find(|t| t.type_id() == type_id)
}

/// Marks a type as infrastructure: `agboss::infrastructure!(dyn MessageQueue, "a message queue");`.
#[macro_export]
macro_rules! infrastructure {
    ($ty:ty, $what:expr $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::deps::InfrastructureType::of::<$ty>($what)
        }
    };
}
