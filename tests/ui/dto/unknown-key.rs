use agboss::prelude::*;

#[dto(opn)]
pub struct Query {
    pub query: String,
}

fn main() {}
