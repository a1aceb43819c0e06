use agboss::prelude::*;

#[channel(nam = "slack-refunds-channel")]
pub struct SlackRefunds<T> {
    value: T,
}

fn main() {}
