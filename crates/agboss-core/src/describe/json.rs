//! The JSON form of `describe` (schema in docs/describe.md).

use std::collections::BTreeMap;

use serde_json::{Value, json as object};

use super::{access, approval, asks, gating};
use crate::agent::{AppAgent, AppTool};
use crate::app::Application;
use crate::knowledge::{KnowledgeMode, KnowledgeSource};
use crate::tool::ToolDescriptor;
use crate::units::ByteSize;

/// The version of the document's schema; it changes only when a field changes meaning or goes
/// away (new fields may appear without it, as `approval` did).
pub const DESCRIBE_VERSION: u32 = 1;

/// The application as a JSON document: `workflows[].agents[]` with their effective settings
/// (every workflow once, those others include too: `workflows[].includes` and
/// `workflows[].includedBy` name the tree's edges; `workflows[].configHash` is its whole
/// configuration hash, `onConfigChange` `warn` or `refuse`),
/// and `schemas.tools[name]` with each tool's own declaration (`maxResultSize` in bytes, or
/// `null` for a tool without its own bound: its agent's `maxResultSize` applies; with
/// `resultCeiling` (`size` in bytes, `hint`), `repeatedWhen`, `allowlists` (`field`, `kind`
/// `paths` or `urls`, `within`), `maxArgumentSize` (bytes), `resultKind` (`kind`,
/// `artifactAbove` in bytes or `null`) and `wants` (argument to kind) only when the tool
/// declares them).
pub fn json(app: &Application) -> Value {
    let mut tools: BTreeMap<&str, Value> = BTreeMap::new();
    let workflows: Vec<Value> = app
        .workflows()
        .iter()
        .map(|workflow| {
            let agents: Vec<Value> = workflow
                .agents()
                .iter()
                .map(|agent| {
                    for tool in agent.tools() {
                        tools
                            .entry(tool.descriptor().name())
                            .or_insert_with(|| tool_schema(tool.descriptor(), app));
                    }
                    agent_entry(agent)
                })
                .collect();
            for tool in workflow.unassigned_tools() {
                tools
                    .entry(tool.name())
                    .or_insert_with(|| tool_schema(tool, app));
            }
            object!({
                "name": workflow.name(),
                "configHash": workflow.config_hash(),
                "onConfigChange": workflow.on_config_change().to_string(),
                "includes": workflow.includes(),
                "includedBy": workflow.included_by(),
                "maxResultSize": workflow.max_result_size().value.get(),
                "maxResultSizeSource": workflow.max_result_size().source.to_string(),
                "agents": agents,
                "unassignedTools": workflow.unassigned_tools().iter().map(|t| t.name()).collect::<Vec<_>>(),
            })
        })
        .collect();
    object!({
        "describeVersion": DESCRIBE_VERSION,
        "application": {
            "name": app.name(),
            "maxResultSize": app.max_result_size().value.get(),
            "maxResultSizeSource": app.max_result_size().source.to_string(),
        },
        "workflows": workflows,
        "schemas": { "tools": tools },
        "findings": super::lint::findings_json(&super::check(app)),
    })
}

fn agent_entry(agent: &AppAgent) -> Value {
    let descriptor = agent.descriptor();
    let mut entry = object!({
        "name": agent.name(),
        "description": descriptor.description(),
        "model": agent.model(),
        "thinking": descriptor.thinking().to_string(),
        "history": {
            "turns": descriptor.history().turns(),
            "summaries": descriptor.history().summaries(),
        },
        "historyMaxSize": agent.history_max_size().value.get(),
        "historyMaxSizeSource": agent.history_max_size().source.to_string(),
        "prompts": descriptor.prompt_files().iter().map(|p| p.path()).collect::<Vec<_>>(),
        "maxToolCalls": agent.max_tool_calls().value,
        "maxToolCallsSource": agent.max_tool_calls().source.to_string(),
        "maxResultSize": agent.max_result_size().value.get(),
        "maxResultSizeSource": agent.max_result_size().source.to_string(),
        "answerTool": descriptor.answer().map(|a| a.tool_name()),
        "needsOwner": agent.needs_owner(),
        "ownerRoles": agent.owner_roles(),
        "tools": agent.tools().iter().map(agent_tool).collect::<Vec<_>>(),
    });
    // Only an agent that reads knowledge bases has the key.
    if !descriptor.knowledge().is_empty()
        && let Some(entry) = entry.as_object_mut()
    {
        let bases = descriptor.knowledge().iter().map(|k| {
            let base = k.descriptor();
            let mut source = match base.source() {
                KnowledgeSource::Folder(folder) => serde_json::json!({
                    "folder": folder.folder,
                    "documents": folder.documents,
                    "search": folder.search,
                    "embeddings": folder.embeddings,
                }),
                KnowledgeSource::Own => serde_json::json!({ "own": base.rust_type() }),
            };
            if let Some(fields) = source.as_object_mut() {
                fields.insert("name".into(), base.name().into());
                fields.insert("description".into(), base.description().into());
                fields.insert("mode".into(), base.mode().as_str().into());
                fields.insert("topK".into(), base.top_k().into());
                let tool = (base.mode() == KnowledgeMode::Tool)
                    .then(|| base.search_tool().descriptor().name());
                fields.insert("searchTool".into(), tool.into());
            }
            source
        });
        entry.insert("knowledge".into(), Value::Array(bases.collect()));
    }
    // Only an agent whose results are masked has the key.
    if let (Some(masking), Some(entry)) = (agent.masking(), entry.as_object_mut()) {
        let policy = &masking.value;
        entry.insert(
            "masking".into(),
            serde_json::json!({
                "entities": policy.entities().iter().map(|e| e.name()).collect::<Vec<_>>(),
                "patterns": policy.patterns().map(|(name, _)| name).collect::<Vec<_>>(),
                "source": masking.source.to_string(),
            }),
        );
    }
    // Only an agent with a time budget has these keys.
    if let (Some(budget), Some(entry)) = (agent.max_duration(), entry.as_object_mut()) {
        let millis = u64::try_from(budget.value.as_duration().as_millis()).unwrap_or(u64::MAX);
        entry.insert("maxDurationMs".into(), millis.into());
        entry.insert("maxDurationSource".into(), budget.source.to_string().into());
    }
    entry
}

fn agent_tool(tool: &AppTool) -> Value {
    let pipeline = tool.pipeline();
    object!({
        "name": tool.descriptor().name(),
        "maxResultSize": tool.bound().value.get(),
        "maxResultSizeSource": tool.bound().source.to_string(),
        "env": tool.env_vars(),
        "pipeline": {
            "gates": pipeline.gates().collect::<Vec<_>>(),
            "rules": pipeline.rules().collect::<Vec<_>>(),
        },
    })
}

fn tool_schema(tool: &ToolDescriptor, app: &Application) -> Value {
    let mut schema = tool_declaration(tool, app);
    // What is not the default only: a ceiling, and a rule for repeated calls.
    if let Some(ceiling) = tool.result_ceiling() {
        schema["resultCeiling"] = object!({ "size": ceiling.size.get(), "hint": ceiling.hint });
    }
    if tool.repeated_when() != crate::tool::RepeatedWhen::default() {
        schema["repeatedWhen"] = Value::from(tool.repeated_when().as_str());
    }
    if tool.retries() > 0 {
        schema["retries"] = object!({
            "count": tool.retries(),
            "backoffMs": u64::try_from(tool.retry_backoff().as_duration().as_millis()).unwrap_or(u64::MAX),
        });
    }
    if !tool.allowlists().is_empty() {
        let lists: Vec<Value> = tool
            .allowlists()
            .iter()
            .map(|list| {
                object!({
                    "field": list.field(),
                    "kind": list.kind().key().trim_start_matches("allow_"),
                    "within": list.within(),
                })
            })
            .collect();
        schema["allowlists"] = Value::from(lists);
    }
    if tool.max_argument_size() != ToolDescriptor::DEFAULT_MAX_ARGUMENT_SIZE {
        schema["maxArgumentSize"] = Value::from(tool.max_argument_size().get());
    }
    super::artifacts::json(tool, &mut schema);
    // The names of the credentials it needs, never a value.
    if !tool.needs().is_empty() {
        schema["needs"] = Value::from(tool.needs().to_vec());
    }
    schema
}

fn tool_declaration(tool: &ToolDescriptor, app: &Application) -> Value {
    let gating = gating(tool, app);
    let (input, output) = match tool.schemas() {
        Ok(schemas) => (schemas.input().clone(), schemas.output().clone()),
        Err(error) => (object!({ "error": error.to_string() }), Value::Null),
    };
    object!({
        "description": tool.description(),
        "access": access(tool),
        "source": tool.source(),
        "mcp": tool.origin().remote().filter(|r| r.protocol() == "mcp").map(|r| object!({ "server": r.server(), "tool": r.tool() })),
        "waitsForApproval": approval(tool).is_some(),
        "approval": approval(tool).map(|(role, answered_by)| object!({
            "role": role,
            "answeredBy": answered_by,
        })),
        "asks": asks(tool).into_iter().map(|(role, answered_by)| object!({
            "role": role,
            "answeredBy": answered_by,
        })).collect::<Vec<_>>(),
        "capabilities": gating.capabilities.iter().map(|(capability, governed)| object!({
            "capability": capability,
            "governedBy": governed,
        })).collect::<Vec<_>>(),
        "checkIn": gating.check_in,
        "untrustedOutput": tool.has_untrusted_output(),
        "serverClaims": tool.server_claims(),
        "onCrash": tool.on_crash().as_str(),
        "timeoutMs": tool.timeout().as_duration().as_millis() as u64,
        "timeout": tool.timeout().to_string(),
        "maxResultSize": tool.max_result_size().map(ByteSize::get),
        "dependencies": tool.dependencies().iter().map(|d| object!({
            "field": d.field(),
            "type": d.type_written(),
        })).collect::<Vec<_>>(),
        "rustType": tool.rust_type(),
        "module": tool.location().module_path,
        "file": tool.location().path(),
        "line": tool.location().line,
        "input": input,
        "output": output,
    })
}
