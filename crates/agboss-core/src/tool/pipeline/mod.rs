//! The call pipeline: the stages every call of a tool passes, in one declared order, built once
//! per tool as an agent has it.
//!
//! Gates check a call before it runs: its arguments read once as the contract accepts them, the
//! permission checker, the tool's check-in, the approval of a person, the questions it may ask,
//! the application's middleware, and the credentials it needs. Rules shape its result after:
//! the ceiling, the artifact kept aside, the bound, the mask, the middleware again, retries of
//! a transient error, a fatal error that ends the run, and the notes. A gate that cannot decide
//! fails closed: it asks a person or refuses.
//!
//! - `stage.rs`: [`Stage`], the one trait every stage is a value of, and what it answers.
//! - `call.rs`: what stages read ([`GateCall`], [`CallEnd`], [`CallHistory`]).
//! - `output.rs`: [`ToolOutput`], a result on its way to the model, and [`CallOutcome`], what
//!   the model then reads; `marker.rs`: how a cut is made and said.
//! - `list.rs`: [`Pipeline`] and the table of the order.
//! - `middleware.rs`: [`Middleware`], the stage an application writes.

mod call;
mod list;
pub(crate) mod marker;
mod middleware;
mod output;
mod stage;

pub use call::{CallEnd, CallHistory, GateCall};
pub(crate) use list::{Finish, Ruled};
pub use list::{GATE_ORDER, MIDDLEWARE, Pipeline, RULE_ORDER};
pub(crate) use middleware::MiddlewareStage;
pub use middleware::{Middleware, MiddlewareFuture};
pub use output::{CallOutcome, ToolOutput};
pub use stage::{AskPerson, Check, Part, Place, Stage, StageFuture, Then, Verdict};
