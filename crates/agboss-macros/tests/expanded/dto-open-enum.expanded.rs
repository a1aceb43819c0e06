// #[dto(open , crate = my :: agboss)]
// pub enum Verdict { Yes , No }

#[derive(
    my::agboss::__private::serde::Serialize,
    my::agboss::__private::serde::Deserialize,
    my::agboss::__private::schemars::JsonSchema
)]
#[serde(crate = "my::agboss::__private::serde")]
#[schemars(crate = "my::agboss::__private::schemars")]
pub enum Verdict {
    Yes,
    No,
}
