// #[channel_role(name = "refund-approval-channel" , approves = RefundCardInput , answered_by = PauseAnswerer :: Channel)]
// # [doc = r" Approves card refunds."] pub struct RefundApproval ;

/// Approves card refunds.
pub struct RefundApproval;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_ROLE: ::agboss::__private::RoleDescriptor = ::agboss::__private::RoleDescriptor::approval::<
        RefundCardInput,
    >(
        "refund-approval-channel",
        "Approves card refunds.",
        "RefundApproval",
        ::agboss::__private::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        },
        PauseAnswerer::Channel,
        "RefundCardInput",
    );
    #[automatically_derived]
    impl ::agboss::__private::ChannelRole for RefundApproval {
        type Question = ::agboss::__private::ToolCallApprovalAsk<RefundCardInput>;
        type Answer = ::agboss::__private::ToolCallApprovalDecision<RefundCardInput>;
        const DESCRIPTOR: &'static ::agboss::__private::RoleDescriptor = &__AGBOSS_ROLE;
    }
    #[automatically_derived]
    impl ::agboss::__private::Approves<RefundCardInput> for RefundApproval {}
};
