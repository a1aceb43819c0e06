// #[channel_role(name = "budget-question-channel" , description = "Asks the owner for a project's budget" , ask = BudgetAsk , answer = BudgetAnswer , answered_by = ThreadOwner , reply_interpreter = BudgetReader , expires_after = hours (24) , crate = my :: agboss)]
// pub struct BudgetQuestion ;

///Asks the owner for a project's budget
pub struct BudgetQuestion;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_ROLE: my::agboss::__private::RoleDescriptor = my::agboss::__private::RoleDescriptor::question::<
        BudgetAsk,
        BudgetAnswer,
    >(
            "budget-question-channel",
            "Asks the owner for a project's budget",
            "BudgetQuestion",
            my::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            my::agboss::__private::PauseAnswerer::ThreadOwner,
        )
        .with_interpreter(
            my::agboss::__private::InterpreterSpec::of::<BudgetQuestion, BudgetReader>(),
        )
        .with_expiry(hours(24u64));
    #[automatically_derived]
    impl my::agboss::__private::ChannelRole for BudgetQuestion {
        type Question = BudgetAsk;
        type Answer = BudgetAnswer;
        const DESCRIPTOR: &'static my::agboss::__private::RoleDescriptor = &__AGBOSS_ROLE;
    }
};
