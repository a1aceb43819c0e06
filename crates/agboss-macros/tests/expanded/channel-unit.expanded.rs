// #[channel(name = "inbox-channel" , description = "Asks in the inbox")]
// pub struct Inbox ;

///Asks in the inbox
pub struct Inbox;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_CHANNEL: ::agboss::__private::ChannelDescriptor = ::agboss::__private::channel_descriptor::<
        Inbox,
    >(
        "inbox-channel",
        "Asks in the inbox",
        "Inbox",
        ::agboss::__private::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        },
    );
    #[automatically_derived]
    impl ::agboss::__private::Channel for Inbox {
        const DESCRIPTOR: &'static ::agboss::__private::ChannelDescriptor = &__AGBOSS_CHANNEL;
        fn build(
            _: &::agboss::__private::Scope<'_>,
        ) -> ::core::result::Result<Self, ::agboss::__private::DependencyError> {
            ::core::result::Result::Ok(Self)
        }
    }
    ::agboss::__private::inventory::submit! {
        ::agboss::__private::InfrastructureType::of:: < Inbox >
        ("channel `inbox-channel` (the application lists it: `.channel::<Inbox>()`)")
    }
};
