use agboss::prelude::*;
#[allow(unused_imports)]
use agboss::units::{bytes, kilobytes};

#[dto]
pub struct Rows {
    pub rows: Vec<String>,
}

#[dto]
pub struct Query {
    pub rows: u32,
}

/// Charts rows.
#[tool(name = "chart-rows-tool", result_kind = "Dataset/*")]
pub struct ChartRows;

impl ToolHandler for ChartRows {
    type Input = Query;
    type Output = Rows;

    async fn run(&self, _input: Query) -> Result<Rows, ToolError> {
        Ok(Rows { rows: Vec::new() })
    }
}

fn main() {}
