//! Tool defaults of workflows and applications, the framework's defaults of agents' runs, and
//! reading a configured size.

use crate::units::{ByteSize, bytes, kilobytes};

/// `defaults.tools` of a workflow or an application.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolDefaults {
    pub(crate) max_result_size: Option<SizeSetting>,
    pub(crate) max_tool_calls: Option<u32>,
}

/// A configured size: the value, or why what was written is not one.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SizeSetting {
    pub(crate) written: String,
    pub(crate) value: Result<ByteSize, String>,
}

impl ToolDefaults {
    /// No defaults: everything falls through to the next level.
    pub fn new() -> ToolDefaults {
        ToolDefaults::default()
    }

    /// The bound on what a model reads of one result, for tools without their own.
    pub fn max_result_size(mut self, bound: ByteSize) -> ToolDefaults {
        self.max_result_size = Some(SizeSetting {
            written: bound.to_string(),
            value: Ok(bound),
        });
        self
    }

    /// The limit of tool calls per agent run, for agents without their own.
    pub fn max_tool_calls(mut self, n: u32) -> ToolDefaults {
        self.max_tool_calls = Some(n);
        self
    }

    #[cfg(feature = "config")]
    pub(crate) fn set_size_from_text(&mut self, written: &str) {
        self.max_result_size = Some(SizeSetting {
            written: written.to_owned(),
            value: parse_size(written),
        });
    }
}

/// `"64 KB"`, `"0.5 KB"`, `"1000 bytes"`, `"1 MB"`: a number and its unit, a whole number of
/// bytes from 1.
pub(crate) fn parse_size(text: &str) -> Result<ByteSize, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().map_err(|_| {
        format!("\"{text}\" is not a size: write a number and its unit, such as \"64 KB\"")
    })?;
    let per_unit = match unit.trim() {
        "B" | "byte" | "bytes" => 1.0,
        "KB" | "kB" | "KiB" => 1024.0,
        "MB" | "MiB" => 1024.0 * 1024.0,
        "" => {
            return Err(format!(
                "\"{text}\" has no unit: write \"{text} KB\" or \"{text} bytes\""
            ));
        }
        other => {
            return Err(format!(
                "\"{other}\" is not a unit of size: use bytes, KB or MB"
            ));
        }
    };
    ByteSize::from_kilobytes_f64(number * per_unit / 1024.0).map_err(|e| match e {
        crate::units::ByteSizeError::Fractional { bytes, .. } => {
            format!("\"{text}\" is {bytes} bytes, not a whole number of bytes")
        }
        crate::units::ByteSizeError::NotPositive(_) => {
            format!("\"{text}\" keeps nothing: a bound keeps at least 1 byte")
        }
        crate::units::ByteSizeError::OutOfRange(_) => format!("\"{text}\" is out of range"),
    })
}

/// The default limit of tool calls per agent run.
pub const DEFAULT_MAX_TOOL_CALLS: u32 = 20;

/// The default cap of model turns per agent run: above what the other limits allow with their
/// defaults (20 tool calls, 2 answer retries, one answer), so that it stops only a run the others
/// would not.
pub const DEFAULT_MAX_TURNS: u32 = 30;

/// The default number of invalid structured answers sent back to the model before the run fails.
pub const DEFAULT_ANSWER_RETRIES: u32 = 2;

/// The bound on the history an agent reads of its thread when neither configuration, the agent
/// nor its model's context window sets one: 32 KB, about 8,000 tokens.
pub const DEFAULT_HISTORY_MAX_SIZE: ByteSize = kilobytes(32);

/// About how many bytes of text one token stands for, in common tokenizers and English text: to
/// turn a context window in tokens into a history bound in bytes.
const BYTES_PER_TOKEN: u64 = 4;

/// The history bound of an agent whose model reads `tokens` tokens per request: a quarter of the
/// window at [`BYTES_PER_TOKEN`], so one byte per token (2,048 tokens give 2 KB). The other
/// three quarters are for the system prompt, the tools' declarations, the run's own turns and
/// the answer.
pub(crate) fn history_max_size_for_window(tokens: u32) -> ByteSize {
    bytes(window_in_bytes(tokens) / 4)
}

/// About how many bytes of text a context window of `tokens` tokens holds.
fn window_in_bytes(tokens: u32) -> u64 {
    u64::from(tokens) * BYTES_PER_TOKEN
}

/// Whether a context window of `tokens` tokens holds less text than `size` bytes.
pub(crate) fn window_bytes_below(tokens: u32, size: ByteSize) -> bool {
    window_in_bytes(tokens) < size.get()
}

/// About how many tokens `size` bytes of text are.
pub(crate) fn tokens_in(size: ByteSize) -> u64 {
    size.get().div_ceil(BYTES_PER_TOKEN)
}

/// `defaults.agents` of a workflow or an application: the limits of a run, for agents that set
/// none of their own.
///
/// ```
/// use agboss_core::assembly::{AgentDefaults, Workflow};
///
/// let desk = Workflow::new("desk").agent_defaults(AgentDefaults::new().max_turns(12).answer_retries(1));
/// assert_eq!(desk.name(), "desk");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentDefaults {
    pub(crate) max_turns: Option<u32>,
    pub(crate) answer_retries: Option<u32>,
}

impl AgentDefaults {
    /// No defaults: everything falls through to the next level.
    pub fn new() -> AgentDefaults {
        AgentDefaults::default()
    }

    /// The cap of model turns per run (at least 1; `[agent.max-turns-invalid]` otherwise).
    pub fn max_turns(mut self, n: u32) -> AgentDefaults {
        self.max_turns = Some(n);
        self
    }

    /// How many invalid structured answers go back to the model before the run fails with
    /// `[answer.invalid]`; 0 fails on the first.
    pub fn answer_retries(mut self, n: u32) -> AgentDefaults {
        self.answer_retries = Some(n);
        self
    }
}

#[cfg(all(test, feature = "config"))]
mod tests {
    use super::*;
    use crate::units::{bytes, kilobytes, megabytes};

    #[test]
    fn sizes_need_their_unit() {
        assert_eq!(parse_size("64 KB"), Ok(kilobytes(64)));
        assert_eq!(parse_size("0.5KB"), Ok(bytes(512)));
        assert_eq!(parse_size("1000 bytes"), Ok(bytes(1000)));
        assert_eq!(parse_size("2 MB"), Ok(megabytes(2)));
        assert_eq!(
            parse_size("64").unwrap_err(),
            "\"64\" has no unit: write \"64 KB\" or \"64 bytes\""
        );
        assert_eq!(
            parse_size("0.1 KB").unwrap_err(),
            "\"0.1 KB\" is 102.4 bytes, not a whole number of bytes"
        );
        assert_eq!(
            parse_size("0 KB").unwrap_err(),
            "\"0 KB\" keeps nothing: a bound keeps at least 1 byte"
        );
        assert!(parse_size("many KB").is_err());
        assert!(parse_size("3 GB").is_err());
    }
}
