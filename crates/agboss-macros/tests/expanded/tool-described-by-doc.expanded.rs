// #[tool(name = "tuple-tool" , timeout = seconds (TIMEOUT_SECS) , max_result_size = kilobytes (64) , on_crash = report)]
// # [doc = r" Fields by position."] pub struct TupleTool (ExecutionContext , Arc < dyn Api >) ;

/// Fields by position.
pub struct TupleTool(ExecutionContext, Arc<dyn Api>);
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_DEPENDENCIES: [::agboss::__private::DependencySpec; 2usize] = [
        ::agboss::__private::DependencySpec::new(
            "0",
            "ExecutionContext",
            <ExecutionContext as ::agboss::__private::Dependency>::requirement,
        ),
        ::agboss::__private::DependencySpec::new(
            "1",
            "Arc<dyn Api>",
            <Arc<dyn Api> as ::agboss::__private::Dependency>::requirement,
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_DESCRIPTOR: ::agboss::__private::ToolDescriptor = ::agboss::__private::ToolDescriptor::new(
            "tuple-tool",
            "Fields by position.",
            "TupleTool",
            ::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            ::agboss::__private::tool_input_schema::<TupleTool>,
            ::agboss::__private::tool_output_schema::<TupleTool>,
        )
        .with_timeout({
            const __AGBOSS_AMOUNT: u64 = TIMEOUT_SECS;
            ::core::assert!(
                __AGBOSS_AMOUNT > 0, "a timeout of zero would end every call at once"
            );
            seconds(__AGBOSS_AMOUNT)
        })
        .with_max_result_size({
            #[allow(unused_imports)]
            use ::agboss::__private as __AGBOSS_PRIVATE;
            kilobytes(64u64)
        })
        .with_on_crash(::agboss::__private::OnCrash::Report)
        .with_dependencies(&__AGBOSS_DEPENDENCIES);
    #[automatically_derived]
    impl ::agboss::__private::Tool for TupleTool {
        const DESCRIPTOR: &'static ::agboss::__private::ToolDescriptor = &__AGBOSS_DESCRIPTOR;
        fn build(
            __agboss_scope: &::agboss::__private::Scope<'_>,
        ) -> ::core::result::Result<Self, ::agboss::__private::DependencyError> {
            ::core::result::Result::Ok(
                Self(
                    match <ExecutionContext as ::agboss::__private::Dependency>::resolve(
                        __agboss_scope,
                    ) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(why) => {
                            return ::core::result::Result::Err(
                                __AGBOSS_DESCRIPTOR.unresolved(0usize, why),
                            );
                        }
                    },
                    match <Arc<
                        dyn Api,
                    > as ::agboss::__private::Dependency>::resolve(__agboss_scope) {
                        ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(why) => {
                            return ::core::result::Result::Err(
                                __AGBOSS_DESCRIPTOR.unresolved(1usize, why),
                            );
                        }
                    },
                ),
            )
        }
    }
    ::agboss::__private::inventory::submit! {
        ::agboss::__private::ToolRegistration::of:: < TupleTool > ()
    }
};
