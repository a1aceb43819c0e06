// #[channel(name = "slack-refund-approval-channel" , crate = my :: agboss)]
// # [doc = r" Asks a finance manager in Slack."] pub struct SlackRefundApproval { execution : ExecutionContext , slack : Arc < dyn Slack > , }

/// Asks a finance manager in Slack.
pub struct SlackRefundApproval {
    execution: ExecutionContext,
    slack: Arc<dyn Slack>,
}
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_DEPENDENCIES: [my::agboss::__private::DependencySpec; 2usize] = [
        my::agboss::__private::DependencySpec::new(
            "execution",
            "ExecutionContext",
            <ExecutionContext as my::agboss::__private::Dependency>::requirement,
        ),
        my::agboss::__private::DependencySpec::new(
            "slack",
            "Arc<dyn Slack>",
            <Arc<dyn Slack> as my::agboss::__private::Dependency>::requirement,
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_CHANNEL: my::agboss::__private::ChannelDescriptor = my::agboss::__private::channel_descriptor::<
        SlackRefundApproval,
    >(
            "slack-refund-approval-channel",
            "Asks a finance manager in Slack.",
            "SlackRefundApproval",
            my::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
        )
        .with_dependencies(&__AGBOSS_DEPENDENCIES);
    #[automatically_derived]
    impl my::agboss::__private::Channel for SlackRefundApproval {
        const DESCRIPTOR: &'static my::agboss::__private::ChannelDescriptor = &__AGBOSS_CHANNEL;
        fn build(
            __agboss_scope: &my::agboss::__private::Scope<'_>,
        ) -> ::core::result::Result<Self, my::agboss::__private::DependencyError> {
            ::core::result::Result::Ok(Self {
                execution: match <ExecutionContext as my::agboss::__private::Dependency>::resolve(
                    __agboss_scope,
                ) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(why) => {
                        return ::core::result::Result::Err(
                            __AGBOSS_CHANNEL.unresolved(0usize, why),
                        );
                    }
                },
                slack: match <Arc<
                    dyn Slack,
                > as my::agboss::__private::Dependency>::resolve(__agboss_scope) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(why) => {
                        return ::core::result::Result::Err(
                            __AGBOSS_CHANNEL.unresolved(1usize, why),
                        );
                    }
                },
            })
        }
    }
    my::agboss::__private::inventory::submit! {
        my::agboss::__private::InfrastructureType::of:: < SlackRefundApproval >
        ("channel `slack-refund-approval-channel` (the application lists it: `.channel::<SlackRefundApproval>()`)")
    }
};
