//! [`Budgets`]: what an execution may spend, and the error when it has.

use agboss_rules::codes;

use crate::units::Usd;

/// Token and money limits of one execution, checked before every model call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Budgets {
    /// Tokens (input and output) the loop's model calls may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Money the execution may spend: model calls and what tools record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_usd: Option<Usd>,
}

impl Budgets {
    /// No limits.
    pub fn none() -> Budgets {
        Budgets::default()
    }

    /// At most `n` tokens.
    pub fn tokens(mut self, n: u64) -> Budgets {
        self.max_tokens = Some(n);
        self
    }

    /// At most `amount`.
    pub fn usd(mut self, amount: Usd) -> Budgets {
        self.max_usd = Some(amount);
        self
    }

    /// The budget spent once `tokens` were used and `spent` paid, tokens first; `None` while
    /// both are under their limits.
    pub fn exceeded(&self, tokens: u64, spent: Usd) -> Option<BudgetExceededError> {
        if let Some(limit) = self.max_tokens
            && tokens >= limit
        {
            return Some(BudgetExceededError::Tokens {
                limit,
                used: tokens,
            });
        }
        match self.max_usd {
            Some(limit) if spent >= limit => Some(BudgetExceededError::Usd { limit, spent }),
            _ => None,
        }
    }
}

/// A budget ran out: the run stops before its next model call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BudgetExceededError {
    /// The token budget.
    #[error("{}", codes::BUDGETS_TOKENS.fill(&[("used", used), ("limit", limit)]))]
    Tokens {
        /// The limit.
        limit: u64,
        /// Tokens used.
        used: u64,
    },
    /// The money budget.
    #[error("{}", codes::BUDGETS_USD.fill(&[("spent", spent), ("limit", limit)]))]
    Usd {
        /// The limit.
        limit: Usd,
        /// What was spent (model calls and tools).
        spent: Usd,
    },
}

impl BudgetExceededError {
    /// `budgets.tokens` or `budgets.usd`.
    pub fn code(&self) -> &'static str {
        match self {
            BudgetExceededError::Tokens { .. } => codes::BUDGETS_TOKENS.id(),
            BudgetExceededError::Usd { .. } => codes::BUDGETS_USD.id(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::usd;

    #[test]
    fn a_budget_is_spent_at_its_limit_tokens_first() {
        let budgets = Budgets::none().tokens(100).usd(usd("0.01"));
        assert_eq!(budgets.exceeded(99, usd("0.0099")), None);
        assert_eq!(
            budgets.exceeded(100, usd("0.02")),
            Some(BudgetExceededError::Tokens {
                limit: 100,
                used: 100
            })
        );
        assert_eq!(
            budgets.exceeded(5, usd("0.01")),
            Some(BudgetExceededError::Usd {
                limit: usd("0.01"),
                spent: usd("0.01")
            })
        );
        assert_eq!(Budgets::none().exceeded(u64::MAX, usd("1000")), None);
    }
}
