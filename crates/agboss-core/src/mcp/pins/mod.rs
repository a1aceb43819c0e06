//! Pinned definitions: what a server says each declared tool is, hashed, and judged by a
//! [`PinKeeper`] before a call is sent. A definition is pinned at first sight; a call is sent
//! only while the server's definition is the approved one. It uses the server's declaration and
//! `McpError`, nothing of the transport or OAuth.
//!
//! - `pin.rs`: [`Definition`] (a tool's definition as canonical JSON and its SHA-256), the
//!   [`PinKeeper`] that judges it ([`Verdict`]), [`MemoryPins`], and the hub's slot for the
//!   keeper (`PinSlot`);
//! - `definitions.rs`: `Listing`, a session's definitions of its declared tools, listed again
//!   when the server says they changed (`list_changed`), each judged by the keeper.

mod definitions;
mod pin;

pub use pin::{Definition, MemoryPins, PinFuture, PinKeeper, Verdict, canonical_json};

pub(crate) use definitions::Listing;
pub(crate) use pin::PinSlot;
