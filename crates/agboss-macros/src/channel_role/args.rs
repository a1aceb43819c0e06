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
    /// `ThreadOwner` or `Channel`, bare or as `PauseAnswerer::..`.
    pub answered_by: Option<Expr>,
    /// The approval form: the input DTO of the tools whose calls it approves.
    pub approves: Option<TypePath>,
    /// Or the question form: the DTOs of its question and of its answer.
    pub ask: Option<TypePath>,
    pub answer: Option<TypePath>,
    /// A type that reads free-text replies as the role's answer.
    pub reply_interpreter: Option<TypePath>,
    /// A time span: how long its pauses take answers.
    pub expires_after: Option<Expr>,
}
