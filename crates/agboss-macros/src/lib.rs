//! Attribute macros of [agboss](https://docs.rs/agboss). Depend on the `agboss` facade, which
//! re-exports them; generated code reaches the runtime only through `::agboss::__private`.

mod attrs;
mod dto;
mod names;
mod tool;
mod units;

use proc_macro::TokenStream;

/// Makes a struct an agboss tool: a function a model can call.
///
/// The struct's fields are the tool's dependencies, resolved for every call; its
/// `impl ToolHandler` is the code. The attribute registers a descriptor (name, description,
/// schemas, timeout, bound, fields, source location) so that assembly and `describe` know the
/// tool without running it.
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | kebab-case ending in `-tool`, `[a-zA-Z0-9_-]`, at most 64 characters | required |
/// | `description` | what the tool does; the model reads it | required |
/// | `timeout` | `millis(n)`, `seconds(n)` or `minutes(n)`; a bare number does not compile | `seconds(30)` |
/// | `max_result_size` | `bytes(n)`, `kilobytes(n)` or `megabytes(n)`, at least 1 whole byte | the workflow's, else the application's, else 128 KB |
/// | `crate` | the path of the `agboss` crate, if renamed | `::agboss` |
///
/// Field types: `ExecutionContext`, `SpendRecorder`, `Clock`, or `Arc<T>` / `Arc<dyn Trait>`
/// provided by the application.
///
/// Every problem of one attribute is reported at once, each at the offending token with its
/// code and the fix: `[name.kind-suffix]`, `[tool.name-invalid]`, `[tool.name-too-long]`,
/// `[tools.max-result-size-invalid]`, unknown keys (with the valid ones), a missing `name` or
/// `description`.
///
/// See the `agboss` crate for examples.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args.into(), item.into()).into()
}

/// Derives `Serialize`, `Deserialize` and `JsonSchema` through agboss's re-exports, so a DTO
/// needs no serde or schemars line in `Cargo.toml`. Doc comments become the field descriptions
/// the model reads.
///
/// A struct refuses fields it does not declare (`#[serde(deny_unknown_fields)]`, which the
/// schema states as `additionalProperties: false`); `#[dto(open)]` accepts them.
/// `#[dto(crate = path)]` names a renamed `agboss`.
#[proc_macro_attribute]
pub fn dto(args: TokenStream, item: TokenStream) -> TokenStream {
    dto::expand(args.into(), item.into()).into()
}
