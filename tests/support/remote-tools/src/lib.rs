//! Tools defined in a crate of their own: the registry must see them without any call.

use agboss::prelude::*;

/// Nothing to ask for.
#[dto]
pub struct Nothing {}

/// The time of day as text.
#[dto]
pub struct TimeOfDay {
    /// `HH:MM`.
    pub time: String,
}

/// A tool that lives in another crate.
#[tool(name = "remote-clock-tool", description = "Tells the time of day")]
pub struct RemoteClock;

impl ToolHandler for RemoteClock {
    type Input = Nothing;
    type Output = TimeOfDay;

    async fn run(&self, _: Nothing) -> Result<TimeOfDay, ToolError> {
        Ok(TimeOfDay {
            time: "12:00".into(),
        })
    }
}
