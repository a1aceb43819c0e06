// #[channel(name = "SlackRefunds" , descripton = "Asks")]
// pub struct SlackRefunds < T > (T) ;

pub struct SlackRefunds<T>(T);
::core::compile_error! {
    "unknown #[channel] key `descripton` (did you mean `description`?); the keys are `name`, `description`, `crate`"
}
::core::compile_error! {
    "[name.kind-suffix] channel name \"SlackRefunds\" must be kebab-case ending in `-channel`: name it \"slack-refunds-channel\""
}
::core::compile_error! {
    "a channel cannot be generic: each channel is one listed type with one name; make a struct per channel"
}
