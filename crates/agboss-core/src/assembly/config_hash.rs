//! A workflow's configuration hash: SHA-256 over one canonical JSON document of everything
//! that changes what its agents' models read or what their runs do (docs/durability.md,
//! "Configuration hash"), and what a resume does when the hash it finds in the journal is not
//! the workflow's now ([`OnConfigChange`]).
//!
//! The document holds values as assembly left them (the model in effect, each bound and limit
//! with where it came from), in declaration order where the model reads them in order (the
//! tools), and nothing that depends on the process: no addresses, no paths, no map order (the
//! JSON is written with sorted keys, `base::canonical_json`).

use std::fmt;

use serde_json::{Value, json};

use crate::agent::{AppAgent, AppTool};
use crate::base::{Setting, Source, canonical_json, sha256_tagged};
use crate::channel::RoleDescriptor;
use crate::knowledge::{KnowledgeDescriptor, KnowledgeSource};
use crate::masking::MaskingPolicy;
use crate::run::Approvals;
use crate::tool::{RoleRef, ToolDescriptor};
use crate::units::{ByteSize, TimeSpan};

/// The layout of the hashed document; it changes (and with it every hash) only when what the
/// document holds changes.
pub const CONFIG_DOCUMENT_VERSION: u32 = 1;

/// What resuming an execution does when its workflow's configuration hash is not the one its
/// journal recorded: the model would now read other prompts, tools, bounds or limits than
/// those the run began with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnConfigChange {
    /// Go on under the new configuration: a `tracing` warning names both hashes, and the
    /// journal records the change (`config_changed`), so the next resume compares with the new
    /// hash.
    #[default]
    Warn,
    /// Refuse to go on (`[resume.config-changed]`, naming both hashes): the execution stays as
    /// it is, to be resumed by a build with the configuration it began with, or under `Warn`.
    Refuse,
}

impl fmt::Display for OnConfigChange {
    /// `warn` or `refuse`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OnConfigChange::Warn => "warn",
            OnConfigChange::Refuse => "refuse",
        })
    }
}

/// A workflow's hash and the canonical document it hashes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ConfigHash {
    /// `sha256:<64 hex digits>`.
    pub(crate) hash: String,
    /// The canonical JSON hashed.
    pub(crate) document: String,
}

impl ConfigHash {
    /// The hash of workflow `workflow`'s `agents` as assembly left them, under the application's
    /// `approvals` (its roles, check-in role and permission checker), with the truncation
    /// marker `marker` (`tool::bound::truncation_marker()` outside tests).
    pub(crate) fn of(
        workflow: &str,
        agents: &[AppAgent],
        approvals: &Approvals,
        marker: &str,
    ) -> ConfigHash {
        let document = canonical_json(&document(workflow, agents, approvals, marker));
        ConfigHash {
            hash: sha256_tagged(&document),
            document,
        }
    }
}

/// The document: the workflow's name, the marker, the application's gating, and each agent.
fn document(workflow: &str, agents: &[AppAgent], approvals: &Approvals, marker: &str) -> Value {
    let checker = approvals.permissions().map(|checker| {
        json!({
            "name": checker.name(),
            "governs": checker.governs().iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        })
    });
    json!({
        "configDocument": CONFIG_DOCUMENT_VERSION,
        "workflow": workflow,
        "truncationMarker": marker,
        "checkInRole": approvals.check_in_role(),
        "permissionChecker": checker,
        "agents": agents.iter().map(agent).collect::<Vec<_>>(),
    })
}

/// What one agent's model reads and what bounds its runs.
fn agent(agent: &AppAgent) -> Value {
    let descriptor = agent.descriptor();
    let answer = descriptor
        .answer()
        .map(|answer| json!({ "tool": answer.tool_name(), "schema": answer.schema() }));
    let mut document = json!({
        "name": agent.name(),
        "model": agent.model(),
        "thinking": descriptor.thinking().to_string(),
        "prompt": descriptor.prompt(),
        "history": {
            "turns": descriptor.history().turns(),
            "summaries": descriptor.history().summaries(),
        },
        "historyMaxSize": size(agent.history_max_size()),
        "maxResultSize": size(agent.max_result_size()),
        "maxToolCalls": count(agent.max_tool_calls()),
        "maxTurns": count(agent.max_turns()),
        "answerRetries": count(agent.answer_retries()),
        "maxDuration": agent.max_duration().map(duration),
        "toolChoice": agent.tool_choice(),
        "firstTurnToolChoice": agent.first_turn_tool_choice(),
        "answer": answer,
        "tools": agent.tools().iter().map(tool).collect::<Vec<_>>(),
    });
    // Only an agent that reads knowledge bases has the key, so that other agents' hashes stay
    // as they were before knowledge bases existed.
    if !descriptor.knowledge().is_empty()
        && let Some(fields) = document.as_object_mut()
    {
        let bases = descriptor
            .knowledge()
            .iter()
            .map(|k| knowledge(k.descriptor()));
        fields.insert("knowledge".into(), Value::Array(bases.collect()));
    }
    // Absent when nothing is masked: the hashes of agents without masking stay as they were.
    if let (Some(masking), Some(fields)) = (agent.masking(), document.as_object_mut()) {
        fields.insert("masking".to_owned(), masking_of(masking));
    }
    document
}

/// One knowledge base as an agent reads it: its mode, its number of passages and where its
/// passages come from (in context mode its block is bounded by the agent's `maxResultSize`; in
/// tool mode its search tool is among the agent's tools).
fn knowledge(base: &KnowledgeDescriptor) -> Value {
    let source = match base.source() {
        KnowledgeSource::Folder(folder) => json!({
            "folder": folder.folder,
            "documents": folder.documents,
            "search": folder.search,
            "embeddings": folder.embeddings,
        }),
        KnowledgeSource::Own => json!({ "own": base.rust_type() }),
    };
    json!({
        "name": base.name(),
        "description": base.description(),
        "mode": base.mode().as_str(),
        "topK": base.top_k(),
        "source": source,
    })
}

/// The masking in effect for an agent: the entities it masks, the application's patterns (each
/// name with its expression) and where the policy was set.
fn masking_of(masking: &Setting<MaskingPolicy>) -> Value {
    let policy = &masking.value;
    let patterns = policy
        .patterns()
        .map(|(name, pattern)| json!({ "name": name, "pattern": pattern }));
    json!({
        "entities": policy.entities().iter().map(|e| e.name()).collect::<Vec<_>>(),
        "patterns": patterns.collect::<Vec<_>>(),
        "source": source(&masking.source),
    })
}

/// One tool as its agent has it: what the model reads of it, and the contract its calls run.
fn tool(tool: &AppTool) -> Value {
    let descriptor = tool.descriptor();
    let (input, output) = match descriptor.schemas() {
        Ok(schemas) => (schemas.input().clone(), schemas.output().clone()),
        Err(error) => (json!({ "error": error.to_string() }), Value::Null),
    };
    let mut entry = json!({
        "name": descriptor.name(),
        "description": descriptor.description(),
        "input": input,
        "output": output,
        "maxResultSize": size(tool.bound()),
        "timeoutMs": millis(descriptor.timeout()),
        "readOnly": descriptor.is_read_only(),
        "onCrash": descriptor.on_crash().as_str(),
        "repeatedWhen": descriptor.repeated_when().as_str(),
        "maxArgumentSize": descriptor.max_argument_size().get(),
        "untrustedOutput": descriptor.has_untrusted_output(),
        "approval": descriptor.approval().map(role),
        "asks": descriptor.asks().iter().map(role).collect::<Vec<_>>(),
        "capabilities": descriptor.capabilities().iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        "checkIn": descriptor.check_in().map(|c| c.describe()),
        "needs": descriptor.needs(),
    });
    if let Some(fields) = entry.as_object_mut() {
        for (key, value) in declared(descriptor) {
            fields.insert(key.to_owned(), value);
        }
    }
    entry
}

/// What only some tools declare: a ceiling, allowlists, artifacts, an MCP server's tool and
/// what the server claims of it. Absent keys keep the hashes of tools that declare none of it.
fn declared(descriptor: &ToolDescriptor) -> Vec<(&'static str, Value)> {
    let mut declared = Vec::new();
    if let Some(ceiling) = descriptor.result_ceiling() {
        let ceiling = json!({ "size": ceiling.size.get(), "hint": ceiling.hint });
        declared.push(("resultCeiling", ceiling));
    }
    if !descriptor.allowlists().is_empty() {
        let lists = descriptor.allowlists().iter().map(|list| {
            json!({ "field": list.field(), "kind": list.kind().key(), "within": list.within() })
        });
        declared.push(("allowlists", lists.collect::<Vec<_>>().into()));
    }
    if let Some(kind) = descriptor.result_kind() {
        let above = kind.above.map(ByteSize::get);
        declared.push(("resultKind", json!({ "kind": kind.kind, "above": above })));
    }
    if !descriptor.wants().is_empty() {
        let wants = descriptor
            .wants()
            .iter()
            .map(|w| json!([w.argument, w.kind]));
        declared.push(("wants", wants.collect::<Vec<_>>().into()));
    }
    if let Some(remote) = descriptor.origin().remote() {
        let remote = json!({
            "protocol": remote.protocol(),
            "server": remote.server(),
            "tool": remote.tool(),
        });
        declared.push(("remote", remote));
    }
    if !descriptor.server_claims().is_empty() {
        declared.push(("serverClaims", descriptor.server_claims().into()));
    }
    declared
}

/// A role a tool waits for or asks, with who answers it.
fn role(role: &RoleRef) -> Value {
    let answered_by = role
        .declaration::<RoleDescriptor>()
        .map(RoleDescriptor::answered_by);
    json!({ "role": role.role(), "answeredBy": answered_by })
}

fn size(setting: &Setting<ByteSize>) -> Value {
    json!({ "bytes": setting.value.get(), "source": source(&setting.source) })
}

fn count(setting: &Setting<u32>) -> Value {
    json!({ "value": setting.value, "source": source(&setting.source) })
}

fn duration(setting: &Setting<TimeSpan>) -> Value {
    json!({ "ms": millis(setting.value), "source": source(&setting.source) })
}

fn millis(span: TimeSpan) -> u64 {
    u64::try_from(span.as_duration().as_millis()).unwrap_or(u64::MAX)
}

/// Where a setting came from, its kind spelled out (a workflow and an application may share a
/// name).
fn source(source: &Source) -> String {
    match source {
        Source::Own => "own".to_owned(),
        Source::Configuration => "configuration".to_owned(),
        Source::Workflow(name) => format!("workflow:{name}"),
        Source::Application(name) => format!("application:{name}"),
        Source::ContextWindow(tokens) => format!("context-window:{tokens}"),
        Source::BuiltIn => "built-in".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{AgentDescriptor, PromptFile};
    use crate::assembly::{Declarations, ToolDefaults, Workflow, assemble};
    use crate::component::SourceLocation;
    use crate::units::{kilobytes, seconds};

    const HERE: SourceLocation = SourceLocation {
        module_path: module_path!(),
        file: file!(),
        line: line!(),
    };

    static HELPER: AgentDescriptor = AgentDescriptor::new(
        "helper",
        "Helps",
        "Helper",
        HERE,
        "openai/gpt-5-mini",
        &[PromptFile::new("helper.md", "You help.\n")],
        &[],
    );

    /// The same agent, told otherwise.
    static HELPER_RETOLD: AgentDescriptor = AgentDescriptor::new(
        "helper",
        "Helps",
        "Helper",
        HERE,
        "openai/gpt-5-mini",
        &[PromptFile::new("helper.md", "You help, briefly.\n")],
        &[],
    );

    /// The same agent, described otherwise and declared elsewhere: nothing a model reads.
    static HELPER_REDESCRIBED: AgentDescriptor = AgentDescriptor::new(
        "helper",
        "Helps people",
        "OtherHelper",
        SourceLocation {
            module_path: "elsewhere",
            file: "src/elsewhere.rs",
            line: 7,
        },
        "openai/gpt-5-mini",
        &[PromptFile::new("prompts/helper.md", "You help.\n")],
        &[],
    );

    fn hash_of(workflow: Workflow) -> (String, String) {
        let mut declarations = Declarations::new("app", seconds(30));
        declarations.workflows.push(workflow);
        let assembly = assemble(declarations).expect("assembles");
        let workflow = &assembly.workflows()[0];
        (
            workflow.config_hash().to_owned(),
            workflow.config_document().to_owned(),
        )
    }

    fn desk(agent: &'static AgentDescriptor) -> Workflow {
        Workflow::new("desk").agent_descriptor(agent)
    }

    #[test]
    fn the_same_declarations_give_the_same_hash_and_document() {
        let (hash, document) = hash_of(desk(&HELPER));
        assert_eq!(hash_of(desk(&HELPER)), (hash.clone(), document.clone()));
        assert!(hash.starts_with("sha256:"), "{hash}");
        assert_eq!(hash.len(), "sha256:".len() + 64);
        assert_eq!(hash, sha256_tagged(&document));
    }

    #[test]
    fn the_document_is_written_out_in_full_with_sorted_keys() {
        let (_, document) = hash_of(desk(&HELPER));
        assert_eq!(
            document,
            concat!(
                r#"{"agents":[{"answer":null,"answerRetries":{"source":"built-in","value":2},"#,
                r#""firstTurnToolChoice":null,"history":{"summaries":10,"turns":5},"#,
                r#""historyMaxSize":{"bytes":32768,"source":"built-in"},"maxDuration":null,"#,
                r#""maxResultSize":{"bytes":131072,"source":"built-in"},"#,
                r#""maxToolCalls":{"source":"built-in","value":20},"#,
                r#""maxTurns":{"source":"built-in","value":30},"model":"openai/gpt-5-mini","#,
                r#""name":"helper","prompt":"You help.","thinking":"default","toolChoice":null,"#,
                r#""tools":[]}],"checkInRole":null,"configDocument":1,"permissionChecker":null,"#,
                r#""truncationMarker":"\n[result truncated: {total} bytes, the first {kept} kept]","#,
                r#""workflow":"desk"}"#
            )
        );
    }

    #[test]
    fn a_prompt_a_bound_or_the_marker_changes_it() {
        let (base, _) = hash_of(desk(&HELPER));
        assert_ne!(hash_of(desk(&HELPER_RETOLD)).0, base, "prompt");
        let bounded = desk(&HELPER).defaults(ToolDefaults::new().max_result_size(kilobytes(64)));
        assert_ne!(hash_of(bounded).0, base, "bound");
        let mut declarations = Declarations::new("app", seconds(30));
        declarations.workflows.push(desk(&HELPER));
        let assembly = assemble(declarations).expect("assembles");
        let workflow = &assembly.workflows()[0];
        let approvals = assembly.approvals();
        let marked = ConfigHash::of("desk", workflow.agents(), approvals, "\n[cut: {kept}]");
        assert_ne!(marked.hash, base, "marker");
        let same = ConfigHash::of(
            "desk",
            workflow.agents(),
            approvals,
            &crate::tool::bound::truncation_marker(),
        );
        assert_eq!(same.hash, base);
    }

    #[test]
    fn the_masking_in_effect_changes_it_and_is_written_out() {
        use crate::masking::{Entity, MaskingPolicy};
        let (base, _) = hash_of(desk(&HELPER));
        let standard = desk(&HELPER).masking(MaskingPolicy::standard());
        let (masked, document) = hash_of(standard);
        assert_ne!(masked, base);
        assert!(
            document.contains(concat!(
                r#""masking":{"entities":["secret","email","iban","card","phone"],"#,
                r#""patterns":[],"source":"workflow:desk"}"#
            )),
            "{document}"
        );
        let fewer = desk(&HELPER).masking(MaskingPolicy::standard().without(Entity::Phone));
        assert_ne!(hash_of(fewer).0, masked, "an entity off");
        let own = MaskingPolicy::standard()
            .with_pattern("ticket", "TCK-[0-9]+")
            .unwrap();
        let (with_own, document) = hash_of(desk(&HELPER).masking(own));
        assert_ne!(with_own, masked, "a pattern of the application's");
        assert!(document.contains(r#""patterns":[{"name":"ticket","pattern":"TCK-[0-9]+"}]"#));
    }

    #[test]
    fn where_an_agent_is_declared_and_how_it_is_described_do_not() {
        let (base, document) = hash_of(desk(&HELPER));
        assert_eq!(hash_of(desk(&HELPER_REDESCRIBED)).0, base);
        assert!(!document.contains(file!()), "{document}");
        let refusing = desk(&HELPER).on_config_change(OnConfigChange::Refuse);
        assert_eq!(hash_of(refusing).0, base, "the setting itself");
    }
}
