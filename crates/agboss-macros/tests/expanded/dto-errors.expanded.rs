// #[dto(opn)]
// pub union Bits { a : u8 }

pub union Bits {
    a: u8,
}
::core::compile_error! {
    "unknown #[dto] key `opn` (did you mean `open`?); the keys are `open`, `crate`"
}
::core::compile_error! {
    "#[dto] goes on a struct or an enum, not a union"
}
