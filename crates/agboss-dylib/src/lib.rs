//! agboss as one shared library, for development builds.
//!
//! An application that depends on this crate, and names it once, links the `agboss` facade and
//! everything below it (the runtime, `jsonschema`, `tokio`, the providers' HTTP client, ..)
//! from one shared object built once, instead of copying all of it into the program on every
//! build. The program is the same; the link after an edit takes a fraction of the time. It is
//! for development: a program linked this way needs the shared object and the Rust standard
//! library's at run time, which `cargo run` and `cargo test` find for it.
//!
//! Make it optional, so that release builds stay one static binary:
//!
//! ```toml
//! [dependencies]
//! agboss = "0.1"
//! agboss-dylib = { version = "0.1", optional = true }
//!
//! [features]
//! dynamic-linking = ["dep:agboss-dylib"]
//! ```
//!
//! and name it where the program starts (under `#[cfg(feature = "dynamic-linking")]`), so that
//! rustc links it:
//!
//! ```no_run
//! use agboss_dylib as _;
//!
//! fn main() {
//!     for tool in agboss::tool::registered_tools() {
//!         println!("{tool:?}");
//!     }
//! }
//! ```
//!
//! then build with `cargo run --features dynamic-linking`. Nothing else changes: the program
//! still writes `use agboss::prelude::*;`, and every `#[tool]` it declares registers as before.
//! What it saves, measured on a crate of 100 tools, is in docs/performance.md. rustdoc does not
//! run examples of a dylib: `tests/support/dylib-app` in agboss's repository is this program,
//! under test.

// Named, so that the facade and every crate under it are part of this shared object.
#[allow(unused_imports)]
use agboss as _;
