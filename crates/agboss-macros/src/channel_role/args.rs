//! The arguments of `#[channel_role(..)]`, as written.

use darling::FromMeta;
use syn::{Expr, TypePath};

use crate::header::HeaderArgs;

/// The keys `#[channel_role]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "answered_by",
    "approves",
    "ask",
    "answer",
    "reply_interpreter",
    "expires_after",
    "crate",
];

/// `#[channel_role(..)]` as written; checked in `check`.
#[derive(Debug, FromMeta)]
pub struct RoleArgs {
    #[darling(flatten)]
    pub header: HeaderArgs,
    pub answered_by: Option<Expr>,
    pub approves: Option<TypePath>,
    pub ask: Option<TypePath>,
    pub answer: Option<TypePath>,
    pub reply_interpreter: Option<TypePath>,
    pub expires_after: Option<Expr>,
}
