//! What a tool whose work does not stop on its own uses.
//!
//! - `blocking.rs`: bounded blocking work with a stop flag ([`blocking`], [`BlockingPool`],
//!   [`StopFlag`]).
//! - `subprocess.rs`: child processes in their own group, stopped with the call
//!   ([`Subprocess`]).
//! - `text_stream.rs`: results read while they are made, up to the bound, their producer
//!   stopped there ([`TextStream`], [`TextSender`]).
//! - `lossy.rs`: bytes no one vouches for made text a model may read ([`text_from_bytes`]).

mod blocking;
pub(crate) mod lossy;
mod subprocess;
pub(crate) mod text_stream;

pub use blocking::{BlockingPool, StopFlag, blocking};
pub use lossy::{LossyText, TextOutput, text_from_bytes};
pub use subprocess::Subprocess;
#[cfg(feature = "mcp")]
pub(crate) use text_stream::complete_utf8_prefix;
pub use text_stream::{ResultCut, Stopped, StreamedText, TextSender, TextStream};
