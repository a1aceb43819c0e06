//! Spend: what an execution paid to models and other services, and what it may pay.
//!
//! Every execution has a [`SpendLedger`]. A tool that pays a service which is not a model
//! declares a [`SpendRecorder`] field and records each cost; the entry carries the tool and
//! the call, and counts in the execution's money limits. [`Budgets`] bound tokens and money;
//! the loop checks them before every model call.

mod budgets;
mod ledger;

pub use budgets::{BudgetExceededError, Budgets};
pub use ledger::{SpendEntry, SpendLedger, SpendRecorder};
