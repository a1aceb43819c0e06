// #[dto()]
// # [doc = r" Words to look for."] pub struct Query { # [doc = r" The words."] pub query : String , }

#[derive(
    ::agboss::__private::serde::Serialize,
    ::agboss::__private::serde::Deserialize,
    ::agboss::__private::schemars::JsonSchema
)]
#[serde(crate = "::agboss::__private::serde")]
#[schemars(crate = "::agboss::__private::schemars")]
#[serde(deny_unknown_fields)]
/// Words to look for.
pub struct Query {
    /// The words.
    pub query: String,
}
