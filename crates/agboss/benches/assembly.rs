//! Assembly at scale: 10,000 tools with distinct names over 100 agents (100 each), every tool
//! with a provided dependency, checked and made callable by `build()`.

use std::hint::black_box;
use std::sync::Arc;

use agboss::agent::AgentDescriptor;
use agboss::prelude::*;
use agboss::units::kilobytes;
use agboss::{Application, Workflow};
use agboss_core::component::SourceLocation;
use agboss_core::tool::{
    Tool, ToolDescriptor, ToolRegistration, tool_input_schema, tool_output_schema,
};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

/// The tools' input and output.
#[dto]
pub struct Query {
    /// Words.
    pub words: String,
}

/// A service every tool needs.
pub trait Index: Send + Sync {}
struct MemoryIndex;
impl Index for MemoryIndex {}

/// The code all generated tools share.
#[tool(name = "prototype-tool", description = "Prototype")]
pub struct Prototype {
    index: Arc<dyn Index>,
}

impl ToolHandler for Prototype {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        let _ = &self.index;
        Ok(input)
    }
}

const AGENTS: usize = 100;
const TOOLS_PER_AGENT: usize = 100;

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// 100 agents, each with 100 tools of its own; every third tool with its own bound.
fn generated_workflows() -> Vec<Workflow> {
    let location = SourceLocation {
        module_path: module_path!(),
        file: file!(),
        line: line!(),
    };
    let mut workflows: Vec<Workflow> = (0..10)
        .map(|w| Workflow::new(format!("workflow-{w}")))
        .collect();
    for a in 0..AGENTS {
        let tools: Vec<ToolRegistration> = (0..TOOLS_PER_AGENT)
            .map(|t| {
                let mut descriptor = ToolDescriptor::new(
                    leak(format!("generated-{a}-{t}-tool")),
                    "A generated tool",
                    "Prototype",
                    location,
                    tool_input_schema::<Prototype>,
                    tool_output_schema::<Prototype>,
                )
                .with_dependencies(Prototype::DESCRIPTOR.dependencies());
                if t % 3 == 0 {
                    descriptor = descriptor.with_max_result_size(kilobytes(16));
                }
                let descriptor: &'static ToolDescriptor = Box::leak(Box::new(descriptor));
                ToolRegistration::of::<Prototype>().with_descriptor(descriptor)
            })
            .collect();
        let agent: &'static AgentDescriptor = Box::leak(Box::new(AgentDescriptor::new(
            leak(format!("agent-{a}")),
            "A generated agent",
            "Generated",
            location,
            "openai/gpt-5-mini",
            &[],
            Box::leak(tools.into_boxed_slice()),
        )));
        let w = a % workflows.len();
        workflows[w] = workflows[w].clone().agent_descriptor(agent);
    }
    workflows
}

fn assembly(c: &mut Criterion) {
    let workflows = generated_workflows();
    let builder = || {
        workflows.iter().cloned().fold(
            Application::builder("generated").provide::<dyn Index>(Arc::new(MemoryIndex)),
            |builder, workflow| builder.workflow(workflow),
        )
    };
    let app = builder().build().unwrap();
    let tools: usize = app
        .workflows()
        .iter()
        .flat_map(|w| w.agents())
        .map(|a| a.tools().len())
        .sum();
    assert_eq!(tools, AGENTS * TOOLS_PER_AGENT);

    let mut group = c.benchmark_group("assembly");
    group.sample_size(30);
    group.bench_function("10000_tools_100_agents", |b| {
        b.iter_batched(
            builder,
            |builder| black_box(builder.build().unwrap()),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, assembly);
criterion_main!(benches);
