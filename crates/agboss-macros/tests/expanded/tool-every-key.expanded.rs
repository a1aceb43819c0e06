// #[tool(name = "search-issues-tool" , description = "Search the team's issues" , timeout = seconds (10) , max_result_size = kilobytes (0.5) , read_only = true , channel = RefundApproval , on_crash = ask , crate = my :: agboss)]
// pub struct SearchIssues { execution : ExecutionContext , issues : Arc < dyn IssuesApi > , }

///Search the team's issues
pub struct SearchIssues {
    execution: ExecutionContext,
    issues: Arc<dyn IssuesApi>,
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
            "issues",
            "Arc<dyn IssuesApi>",
            <Arc<dyn IssuesApi> as my::agboss::__private::Dependency>::requirement,
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_DESCRIPTOR: my::agboss::__private::ToolDescriptor = my::agboss::__private::ToolDescriptor::new(
            "search-issues-tool",
            "Search the team's issues",
            "SearchIssues",
            my::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            my::agboss::__private::tool_input_schema::<SearchIssues>,
            my::agboss::__private::tool_output_schema::<SearchIssues>,
        )
        .with_timeout(seconds(10u64))
        .with_max_result_size({
            #[allow(unused_imports)]
            use my::agboss::__private as __AGBOSS_PRIVATE;
            {
                let _: fn(u64) -> __AGBOSS_PRIVATE::ByteSize = kilobytes;
                __AGBOSS_PRIVATE::bytes(512u64)
            }
        })
        .read_only()
        .with_approval(
            my::agboss::__private::approval_for::<
                RefundApproval,
                <SearchIssues as my::agboss::__private::ToolHandler>::Input,
            >(),
        )
        .with_on_crash(my::agboss::__private::OnCrash::Ask)
        .with_dependencies(&__AGBOSS_DEPENDENCIES);
    #[automatically_derived]
    impl my::agboss::__private::Tool for SearchIssues {
        const DESCRIPTOR: &'static my::agboss::__private::ToolDescriptor = &__AGBOSS_DESCRIPTOR;
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
                            __AGBOSS_DESCRIPTOR.unresolved(0usize, why),
                        );
                    }
                },
                issues: match <Arc<
                    dyn IssuesApi,
                > as my::agboss::__private::Dependency>::resolve(__agboss_scope) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(why) => {
                        return ::core::result::Result::Err(
                            __AGBOSS_DESCRIPTOR.unresolved(1usize, why),
                        );
                    }
                },
            })
        }
    }
    my::agboss::__private::inventory::submit! {
        my::agboss::__private::ToolRegistration::of:: < SearchIssues > ()
    }
};
