// #[channel_role(name = "RefundApproval" , approves = RefundInput , ask = Question , answered_by = Owner , expires_after = minutes (0))]
// pub struct RefundApproval { x : u8 , }

pub struct RefundApproval {
    x: u8,
}
::core::compile_error! {
    "[name.kind-suffix] channel name \"RefundApproval\" must be kebab-case ending in `-channel`: name it \"refund-approval-channel\""
}
::core::compile_error! {
    "#[channel_role] needs a description, which says what the role approves or asks: add a doc comment (`/// Approves card refunds`) or `description = \"...\"`"
}
::core::compile_error! {
    "unknown `answered_by` value `Owner`: did you mean `ThreadOwner`? the values are `ThreadOwner` (the owner of the execution's thread answers) or `Channel` (whoever holds the pause id answers, through the channel's own system)"
}
::core::compile_error! {
    "[channel.role-form] a role approves tool calls (`approves = ..`) or asks a question (`ask = .., answer = ..`), never both: remove `approves` or `ask`"
}
::core::compile_error! {
    "an `expires_after` of zero would expire every pause at once: give at least `minutes(1)`"
}
::core::compile_error! {
    "a channel role is a unit struct (`pub struct RefundApprovalChannel;`): what it approves and who answers are in the attribute, and a `#[channel]` implements it"
}
const _: () = {
    let _ = minutes;
};
