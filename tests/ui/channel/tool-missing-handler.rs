use std::sync::Arc;

use agboss::channel::AutoApproveChannel;
use agboss::prelude::*;

pub trait Notes: Send + Sync {}

#[tool(name = "note-save-tool", description = "Saves a note", channel = AutoApproveChannel)]
pub struct NoteSave {
    notes: Arc<dyn Notes>,
}

fn main() {}
