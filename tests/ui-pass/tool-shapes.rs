//! Every shape a tool may take compiles without a warning.
#![deny(warnings)]

use std::sync::Arc;

use agboss::prelude::*;
use agboss::tool::Tool;
use agboss::units::{kilobytes, millis, minutes, seconds};

/// Words to look for.
#[dto]
pub struct Query {
    /// The words.
    pub query: String,
}

/// A service.
pub trait Api: Send + Sync {}

const TIMEOUT_SECS: u64 = 12;

/// A unit struct.
#[tool(name = "unit-tool", description = "No fields", timeout = millis(250))]
pub struct UnitTool;

/// A tuple struct.
#[tool(name = "tuple-tool", description = "Fields by position", timeout = minutes(2))]
pub struct TupleTool(ExecutionContext, Arc<dyn Api>);

/// Named fields, a constant timeout and a fractional bound of whole bytes.
#[tool(
    name = "named-tool",
    description = "Fields by name",
    timeout = seconds(TIMEOUT_SECS),
    max_result_size = kilobytes(1.5),
)]
pub struct NamedTool {
    clock: Clock,
    spend: SpendRecorder,
}

/// A bound given in full path form.
#[tool(name = "pathed-tool", description = "Full paths", max_result_size = agboss::units::bytes(100))]
pub struct PathedTool;

macro_rules! echo {
    ($($ty:ty),*) => {$(
        impl ToolHandler for $ty {
            type Input = Query;
            type Output = Query;

            async fn run(&self, input: Query) -> Result<Query, ToolError> {
                Ok(input)
            }
        }
    )*};
}

echo!(UnitTool, TupleTool, NamedTool, PathedTool);

fn main() {
    assert_eq!(NamedTool::DESCRIPTOR.timeout(), seconds(12));
    assert_eq!(NamedTool::DESCRIPTOR.max_result_size(), Some(agboss::units::bytes(1536)));
}

/// The fields are read like any struct's.
pub fn fields(t: &TupleTool, n: &NamedTool) -> usize {
    let _ = (&t.0, &t.1, &n.clock, &n.spend);
    4
}
