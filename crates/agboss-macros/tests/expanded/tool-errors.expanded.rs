// #[tool(name = "Search Issues" , descripton = "Search" , timeout = seconds (0) , max_result_size = kilobytes (0))]
// pub struct SearchIssues < T > (T) ;

pub struct SearchIssues<T>(T);
::core::compile_error! {
    "unknown #[tool] key `descripton` (did you mean `description`?); the keys are `name`, `description`, `timeout`, `max_result_size`, `read_only`, `channel`, `on_crash`, `crate`"
}
::core::compile_error! {
    "[tool.name-invalid] name \"Search Issues\" has characters model providers refuse (' '): use only letters, digits, `_` and `-`"
}
::core::compile_error! {
    "[name.kind-suffix] tool name \"Search Issues\" must be kebab-case ending in `-tool`: name it \"search-issues-tool\""
}
::core::compile_error! {
    "a timeout of zero would end every call at once: give at least `millis(1)`"
}
::core::compile_error! {
    "[tools.max-result-size-invalid] `max_result_size`: `kilobytes(0)` keeps nothing: a bound keeps at least 1 byte, such as `kilobytes(64)`"
}
::core::compile_error! {
    "a tool cannot be generic: each tool is one registered type with one name; make a struct per tool"
}
const _: () = {
    let _ = seconds;
};
const _: () = {
    let _ = kilobytes;
};
