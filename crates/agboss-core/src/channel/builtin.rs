//! The channels agboss ships: each is its own role, approves calls of any tool, and needs no
//! listing on the application. A tool names one as is: `#[tool(.., channel = AutoApproveChannel)]`.

use std::io::{BufRead, Write};

use serde_json::Value;

use super::{
    Approves, Channel, ChannelAsk, ChannelDescriptor, ChannelHandler, ChannelOutcome,
    ChannelRegistration, ChannelRole, PauseAnswerer, RoleDescriptor, ToolCallApprovalAsk,
    ToolCallApprovalDecision,
};
use crate::component::{DependencyError, SourceLocation};
use crate::tool::{Scope, ToolError};

macro_rules! builtin {
    ($(#[$doc:meta])* $ty:ident, $name:literal, $description:literal, $role:ident, $channel:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $ty;

        static $role: RoleDescriptor = RoleDescriptor::approval::<Value>(
            $name,
            $description,
            stringify!($ty),
            SourceLocation {
                module_path: module_path!(),
                file: file!(),
                line: line!(),
            },
            PauseAnswerer::Channel,
            "any tool input",
        )
        .with_builtin(ChannelRegistration::of::<$ty>);

        static $channel: ChannelDescriptor = ChannelDescriptor::new::<$ty>(
            $name,
            $description,
            stringify!($ty),
            SourceLocation {
                module_path: module_path!(),
                file: file!(),
                line: line!(),
            },
        );

        impl ChannelRole for $ty {
            type Question = ToolCallApprovalAsk<Value>;
            type Answer = ToolCallApprovalDecision<Value>;
            const DESCRIPTOR: &'static RoleDescriptor = &$role;
        }

        // Not listed under `[channel.wrong-tool]` as "other types that implement `Approves`":
        // that a built-in channel approves anything does not help fix a role that does not.
        #[diagnostic::do_not_recommend]
        impl<I> Approves<I> for $ty {}

        impl Channel for $ty {
            const DESCRIPTOR: &'static ChannelDescriptor = &$channel;

            fn build(_: &Scope<'_>) -> Result<Self, DependencyError> {
                Ok($ty)
            }
        }
    };
}

builtin!(
    /// Approves every call at once, without a pause: for tests, and for tools whose approval a
    /// deployment switches off.
    AutoApproveChannel,
    "auto-approve-channel",
    "Approves every call at once",
    AUTO_APPROVE_ROLE,
    AUTO_APPROVE_CHANNEL
);

builtin!(
    /// Refuses every call at once, without a pause: the model reads that the call was refused.
    AutoRejectChannel,
    "auto-reject-channel",
    "Refuses every call at once",
    AUTO_REJECT_ROLE,
    AUTO_REJECT_CHANNEL
);

builtin!(
    /// Asks on the terminal, and reads the answer from standard input: `y` (or `yes`) approves,
    /// `n` (or `no`) refuses, followed by the reason if you like (`n not this month`). Anything
    /// else refuses, saying what was typed. The answer is known when `send` returns, so there is
    /// no pause: for programs run by a person at a terminal, and scripted by piping answers in.
    TerminalUserChannel,
    "terminal-user-channel",
    "Asks the person at the terminal",
    TERMINAL_USER_ROLE,
    TERMINAL_USER_CHANNEL
);

// Not offered as "other types that implement `ChannelHandler`" when a `#[channel]` lacks its
// handler: a built-in channel is no model for one.
#[diagnostic::do_not_recommend]
impl ChannelHandler for AutoApproveChannel {
    type Role = Self;

    async fn send(&self, _: ChannelAsk<Self>) -> Result<ChannelOutcome<Self>, ToolError> {
        Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()))
    }
}

#[diagnostic::do_not_recommend]
impl ChannelHandler for AutoRejectChannel {
    type Role = Self;

    async fn send(&self, ask: ChannelAsk<Self>) -> Result<ChannelOutcome<Self>, ToolError> {
        Ok(ChannelOutcome::decided(ToolCallApprovalDecision::refuse(
            format!(
                "calls of `{}` are refused by this application (auto-reject-channel)",
                ask.value.tool
            ),
        )))
    }
}

#[diagnostic::do_not_recommend]
impl ChannelHandler for TerminalUserChannel {
    type Role = Self;

    async fn send(&self, ask: ChannelAsk<Self>) -> Result<ChannelOutcome<Self>, ToolError> {
        let prompt = format!(
            "Approve `{}` with {}? [y/N, or n and a reason] ",
            ask.value.tool, ask.value.arguments
        );
        let line = tokio::task::spawn_blocking(move || {
            let mut out = std::io::stdout();
            let _ = write!(out, "{prompt}");
            let _ = out.flush();
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map(|_| line)
        })
        .await
        .map_err(|e| ToolError::new(format!("the terminal could not be read: {e}")))?
        .map_err(|e| ToolError::new(format!("the terminal could not be read: {e}")))?;
        Ok(ChannelOutcome::decided(terminal_decision(&line)))
    }
}

/// `y`/`yes` approves; `n`/`no` refuses with the rest of the line as the reason; anything else
/// (an empty line, the end of input) refuses and says what was typed.
fn terminal_decision(line: &str) -> ToolCallApprovalDecision<Value> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    match word.to_ascii_lowercase().as_str() {
        "y" | "yes" => ToolCallApprovalDecision::approve(),
        "n" | "no" if !rest.trim().is_empty() => ToolCallApprovalDecision::refuse(rest.trim()),
        "n" | "no" => ToolCallApprovalDecision::refuse("the person at the terminal said no"),
        "" => ToolCallApprovalDecision::refuse("no answer came from the terminal"),
        _ => ToolCallApprovalDecision::refuse(format!(
            "the person at the terminal answered {line:?}, which is not yes"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_answers_read_as_decisions() {
        assert!(terminal_decision("y\n").is_approved());
        assert!(terminal_decision("YES").is_approved());
        assert_eq!(
            terminal_decision("n not this month\n"),
            ToolCallApprovalDecision::refuse("not this month")
        );
        assert_eq!(
            terminal_decision("no"),
            ToolCallApprovalDecision::refuse("the person at the terminal said no")
        );
        assert_eq!(
            terminal_decision(""),
            ToolCallApprovalDecision::refuse("no answer came from the terminal")
        );
        assert!(!terminal_decision("maybe").is_approved());
    }
}
