//! The rules [agboss](https://docs.rs/agboss) checks twice: once when compiling (its attribute
//! macros) and once when assembling an application (its runtime, for names made at run time or
//! read from configuration). Each rule lives here once, so the two checks cannot drift apart.
//!
//! It has no dependencies: the proc-macro crate and the runtime both link it.
//!
//! ```
//! use agboss_rules::{codes, names};
//!
//! let findings = names::check_component("search_issues", "tool");
//! assert_eq!(findings[0].code, &codes::NAME_KIND_SUFFIX);
//! assert_eq!(
//!     findings[0].to_string(),
//!     "[name.kind-suffix] tool name \"search_issues\" must be kebab-case ending in `-tool`: name it \"search-issues-tool\""
//! );
//! assert_eq!(agboss_rules::vars::variables_in("${ROOT}/notes"), ["ROOT"]);
//! assert!(agboss_rules::model_id::check("moonshotai/kimi-k2.6").is_ok());
//! ```

pub mod allow;
pub mod artifact_kind;
pub mod codes;
pub mod distance;
pub mod model_id;
pub mod names;
pub mod oauth;
pub mod vars;

pub use codes::{Code, Finding};
