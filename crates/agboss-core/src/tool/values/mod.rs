//! What a tool's descriptor declares and its stages pass to one another: plain values, so the
//! descriptor holds them without knowing the stages, and the stages read them without knowing
//! each other.
//!
//! - `capability.rs`: [`Capability`], what a call touches, which a permission checker may govern.
//! - `check_in.rs`: [`CheckIn`], when a person is asked before a call runs.
//! - `permission.rs`: [`Permission`], a checker's decision, and [`CallSeen`].
//! - `role_ref.rs`: [`RoleRef`], a role a tool names (approval or questions).
//! - `ceiling.rs`: [`ResultCeiling`] and its refusal.
//! - `repeat.rs`: [`RepeatedWhen`] and the [`CallDigest`] a finished call is compared by.
//! - `result_kind.rs`: [`ResultKind`] and [`WantedArgument`], what a tool declares of artifacts.

mod capability;
mod ceiling;
mod check_in;
mod permission;
mod repeat;
mod result_kind;
mod role_ref;

pub use capability::Capability;
pub use ceiling::ResultCeiling;
pub use check_in::{CheckIn, CheckInFn, EvidenceFn};
pub use permission::{CallSeen, Permission, PermissionKind};
pub use repeat::{CallDigest, Digest, RepeatedWhen};
pub use result_kind::{ResultKind, WantedArgument};
pub use role_ref::RoleRef;
