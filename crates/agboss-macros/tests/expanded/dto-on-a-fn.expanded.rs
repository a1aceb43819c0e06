// #[dto(opn)]
// pub fn f () { }

pub fn f() {}
::core::compile_error! {
    "expected one of: `struct`, `enum`, `union`"
}
::core::compile_error! {
    "unknown #[dto] key `opn` (did you mean `open`?); the keys are `open`, `crate`"
}
