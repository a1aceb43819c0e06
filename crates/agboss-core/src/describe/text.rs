//! The text form of `describe`.

use std::fmt::Write;

use super::{access, approval, asks, gating, origin};
use crate::agent::{AppAgent, AppTool};
use crate::app::Application;
use crate::assembly::AppWorkflow;
use crate::base::Setting;
use crate::knowledge::{KnowledgeMode, KnowledgeSource};
use crate::masking::MaskingPolicy;

/// The application as a tree:
///
/// ```text
/// desk-application · maxResultSize 64 KB (desk-application)
/// workflow desk
///   config sha256:70bf25f42d181688 (on change: warn)
///   notes  moonshotai/kimi-k2.6 · thinking default · history 5 turns + 10 summaries within 32 KB (built-in) · max tool calls 20 (built-in) · maxResultSize 64 KB (desk-application)
///     · note-search-tool (read, local) ← NOTES_FILE — Find the user's saved notes … · maxResultSize 64 KB (own)
///     · note-save-tool (write, local, waits for approval: note-approval-channel) ← NOTES_FILE — Save a note for the user · maxResultSize 64 KB (desk-application)
/// unassigned tools: none
/// ```
///
/// Under each workflow's name, its configuration hash (the first 16 hex digits) and what a
/// resume under another does. A workflow another includes is written under it, two spaces deeper, with
/// `(included by <parents>)`; under a second parent it is named only (`: described above`).
pub fn text(app: &Application) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} · maxResultSize {}",
        app.name(),
        app.max_result_size()
    );
    let mut tree = Tree {
        app,
        out,
        written: Vec::new(),
    };
    // A workflow others include is written under each of them, indented; the others at the top.
    for workflow in app.workflows() {
        if workflow.included_by().is_empty() {
            tree.workflow(workflow, 0);
        }
    }
    let mut out = tree.out;
    let mut unassigned = Vec::new();
    for workflow in app.workflows() {
        for tool in workflow.unassigned_tools() {
            unassigned.push(format!("{} ({})", tool.name(), workflow.name()));
        }
    }
    let unassigned = if unassigned.is_empty() {
        "none".to_owned()
    } else {
        unassigned.join(", ")
    };
    let _ = writeln!(out, "unassigned tools: {unassigned}");
    out
}

/// `sha256:` and the first 16 hex digits of a configuration hash: enough to tell two apart by
/// eye; the JSON has it whole.
fn short_hash(hash: &str) -> &str {
    hash.get(..("sha256:".len() + 16)).unwrap_or(hash)
}

/// The workflows written so far, each in full once.
struct Tree<'a> {
    app: &'a Application,
    out: String,
    written: Vec<&'a str>,
}

impl<'a> Tree<'a> {
    /// `workflow`, its agents and their tools, then the workflows it includes one level deeper;
    /// a workflow written already (another parent includes it too) is named only.
    fn workflow(&mut self, workflow: &'a AppWorkflow, depth: usize) {
        let pad = "  ".repeat(depth);
        let out = &mut self.out;
        let included = match workflow.included_by() {
            [] => String::new(),
            parents => format!(" (included by {})", parents.join(", ")),
        };
        if self.written.contains(&workflow.name()) {
            let _ = writeln!(
                out,
                "{pad}workflow {}{included}: described above",
                workflow.name()
            );
            return;
        }
        self.written.push(workflow.name());
        let _ = writeln!(out, "{pad}workflow {}{included}", workflow.name());
        let _ = writeln!(
            out,
            "{pad}  config {} (on change: {})",
            short_hash(workflow.config_hash()),
            workflow.on_config_change()
        );
        for agent in workflow.agents() {
            agent_line(out, &pad, agent);
            knowledge_lines(out, &pad, agent);
            for tool in agent.tools() {
                tool_line(out, &pad, tool, self.app);
            }
            if let Some(answer) = agent.descriptor().answer() {
                let _ = writeln!(
                    out,
                    "{pad}    · {} (answer) — the agent's structured answer",
                    answer.tool_name()
                );
            }
        }
        for child in workflow.includes() {
            if let Some(child) = self.app.workflow(child) {
                self.workflow(child, depth + 1);
            }
        }
    }
}

fn agent_line(out: &mut String, pad: &str, agent: &AppAgent) {
    let descriptor = agent.descriptor();
    // Its runs must say who owns their thread: some of its tools wait for that person.
    let owner = if agent.needs_owner() {
        format!(" · needs an owner ({})", agent.owner_roles().join(", "))
    } else {
        String::new()
    };
    let budget = agent
        .max_duration()
        .map(|budget| format!(" · time budget {budget}"))
        .unwrap_or_default();
    let masking = agent.masking().map(masking_text).unwrap_or_default();
    let _ = writeln!(
        out,
        "{pad}  {}  {} · thinking {} · history {} within {} · max tool calls {} · maxResultSize {}{budget}{masking}{owner}",
        agent.name(),
        agent.model(),
        descriptor.thinking(),
        descriptor.history(),
        agent.history_max_size(),
        agent.max_tool_calls(),
        agent.max_result_size(),
    );
}

/// ` · masking email, card, ... (source)`: what the agent's results are masked of (entities,
/// then the names of the policy's own patterns) and where the policy was set.
fn masking_text(masking: &Setting<MaskingPolicy>) -> String {
    let policy = &masking.value;
    let names: Vec<&str> = policy
        .entities()
        .iter()
        .map(|e| e.name())
        .chain(policy.patterns().map(|(name, _)| name))
        .collect();
    let names = match names.is_empty() {
        true => "nothing".to_owned(),
        false => names.join(", "),
    };
    format!(" · masking {names} ({})", masking.source)
}

/// One line per knowledge base the agent reads: its mode (in tool mode, its search tool, listed
/// below with the other tools; in context mode, the bound its block is cut to), where its
/// passages come from, and how many a search returns.
fn knowledge_lines(out: &mut String, pad: &str, agent: &AppAgent) {
    for base in agent.descriptor().knowledge() {
        let base = base.descriptor();
        let mode = match base.mode() {
            KnowledgeMode::Tool => format!("tool mode: {}", base.search_tool().descriptor().name()),
            KnowledgeMode::Context => {
                format!(
                    "context mode, each block within {}",
                    agent.max_result_size()
                )
            }
        };
        let source = match base.source() {
            KnowledgeSource::Folder(folder) => {
                let mut source = format!(
                    "folder {}, {}, {}",
                    folder.folder, folder.documents, folder.search
                );
                if let Some(model) = folder.embeddings {
                    source.push_str(&format!(" ({model})"));
                }
                source
            }
            KnowledgeSource::Own => format!("own search ({})", base.rust_type()),
        };
        let _ = writeln!(
            out,
            "{pad}    · knowledge {} ({mode}; {source}; top {}) — {}",
            base.name(),
            base.top_k(),
            base.description(),
        );
    }
}

fn tool_line(out: &mut String, pad: &str, tool: &AppTool, app: &Application) {
    let descriptor = tool.descriptor();
    let env = if tool.env_vars().is_empty() {
        String::new()
    } else {
        format!(" ← {}", tool.env_vars().join(", "))
    };
    let mut waits = approval(descriptor)
        .map(|(role, _)| format!(", waits for approval: {role}"))
        .unwrap_or_default();
    let asked: Vec<&str> = asks(descriptor).into_iter().map(|(role, _)| role).collect();
    if !asked.is_empty() {
        waits.push_str(&format!(", asks: {}", asked.join(", ")));
    }
    let gating = gating(descriptor, app);
    if let Some(check_in) = gating.check_in {
        waits.push_str(&format!(", check-in: {check_in}"));
    }
    if !gating.capabilities.is_empty() {
        let listed: Vec<String> = gating
            .capabilities
            .iter()
            .map(|(capability, governed)| match governed {
                Some(checker) => format!("{capability} (governed by {checker})"),
                None => (*capability).to_owned(),
            })
            .collect();
        waits.push_str(&format!(", capabilities: {}", listed.join(", ")));
    }
    // An MCP tool's output is never vouched for; its `mcp <server>` says so already.
    if descriptor.has_untrusted_output() && descriptor.origin().remote().is_none() {
        waits.push_str(", untrusted output");
    }
    if !descriptor.server_claims().is_empty() {
        let claims = descriptor.server_claims().join(", ");
        waits.push_str(&format!(", server claims: {claims}"));
    }
    // Only a tool that may not simply run again after a crash says so.
    if descriptor.on_crash() != crate::tool::OnCrash::Rerun {
        waits.push_str(&format!(", on crash: {}", descriptor.on_crash()));
    }
    if let Some(ceiling) = descriptor.result_ceiling() {
        waits.push_str(&format!(", result ceiling {}", ceiling.size));
    }
    for list in descriptor.allowlists() {
        let what = match list.kind() {
            crate::tool::AllowKind::Paths => "paths",
            crate::tool::AllowKind::Urls => "urls",
        };
        let within = list.within().join(" ");
        waits.push_str(&format!(", {} {what} under {within}", list.field()));
    }
    if descriptor.max_argument_size() != crate::tool::ToolDescriptor::DEFAULT_MAX_ARGUMENT_SIZE {
        waits.push_str(&format!(
            ", max argument size {}",
            descriptor.max_argument_size()
        ));
    }
    // Only a tool that is not noted by the default rule says when it is.
    if descriptor.repeated_when() != crate::tool::RepeatedWhen::default() {
        waits.push_str(&format!(", repeated when: {}", descriptor.repeated_when()));
    }
    waits.push_str(&super::artifacts::text(descriptor));
    // The names of the credentials it needs, never a value.
    if !descriptor.needs().is_empty() {
        waits.push_str(&format!(", needs: {}", descriptor.needs().join(", ")));
    }
    let _ = writeln!(
        out,
        "{pad}    · {} ({}, {}{waits}){env} — {} · maxResultSize {}",
        descriptor.name(),
        access(descriptor),
        origin(descriptor),
        short(descriptor.description()),
        tool.bound(),
    );
}

/// A description cut to about 60 characters at a word, ending with `…` when cut.
fn short(description: &str) -> String {
    const LIMIT: usize = 60;
    let first_line = description.lines().next().unwrap_or("");
    if first_line.chars().count() <= LIMIT && first_line.len() == description.trim_end().len() {
        return first_line.to_owned();
    }
    let mut cut: String = first_line.chars().take(LIMIT).collect();
    if first_line.chars().count() > LIMIT
        && let Some(space) = cut.rfind(' ')
    {
        cut.truncate(space);
    }
    format!("{} …", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn long_descriptions_are_cut_at_a_word() {
        assert_eq!(
            short("Save a note for the user"),
            "Save a note for the user"
        );
        assert_eq!(
            short(
                "Find the user's saved notes that contain some words, oldest first, at most fifty"
            ),
            "Find the user's saved notes that contain some words, oldest …"
        );
        assert_eq!(short("First line\nsecond line"), "First line …");
    }
}
