//! Workflows that include others: the tree as declared, flattened into the list assembly checks,
//! each workflow once, with where it sits in the tree ([`Placement`]).
//!
//! A name names one workflow in an application. Reached again through an include (another
//! parent, the same parent twice, or the application's list too), it is the same workflow when
//! it declares the same things, and is assembled once; otherwise the two are
//! `[workflow.duplicate-name]`, as two workflows the application lists under one name always are.
//! A workflow found among its own ancestors is `[workflow.include-cycle]`, and is not followed.

use agboss_rules::codes;

use super::Workflow;
use crate::base::Problem;

/// Where one workflow of the flattened list sits in the tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Placement {
    /// The names of the workflows it includes, each once, in declaration order.
    pub(super) includes: Vec<String>,
    /// The names of the workflows that include it, each once, in the order they were met.
    pub(super) included_by: Vec<String>,
}

impl Placement {
    /// ` (included by `support`, `sales`)`, or nothing for a workflow no other includes.
    pub(super) fn suffix(&self) -> String {
        if self.included_by.is_empty() {
            return String::new();
        }
        let parents: Vec<String> = self.included_by.iter().map(|p| format!("`{p}`")).collect();
        format!(" (included by {})", parents.join(", "))
    }
}

/// The workflows `listed` on an application and every workflow they include, depth first (a
/// parent before its children), each once, with their placements in the same order; every
/// problem of the tree into `problems`.
pub(super) fn flatten(
    listed: Vec<Workflow>,
    problems: &mut Vec<Problem>,
) -> (Vec<Workflow>, Vec<Placement>) {
    let mut flat = Flat::default();
    let mut listed_names: Vec<String> = Vec::new();
    for workflow in listed {
        if listed_names.contains(&workflow.name) {
            problems.push(duplicate(&workflow.name));
            flat.add(workflow, None, &mut Vec::new(), problems);
            continue;
        }
        listed_names.push(workflow.name.clone());
        flat.visit(workflow, None, &mut Vec::new(), problems);
    }
    (flat.workflows, flat.placements)
}

#[derive(Default)]
struct Flat {
    workflows: Vec<Workflow>,
    placements: Vec<Placement>,
}

impl Flat {
    /// Places `workflow`, met under `parent` below the ancestors `path`.
    fn visit(
        &mut self,
        workflow: Workflow,
        parent: Option<&str>,
        path: &mut Vec<String>,
        problems: &mut Vec<Problem>,
    ) {
        if let Some(at) = path.iter().position(|p| *p == workflow.name) {
            let mut cycle: Vec<&str> = path[at..].iter().map(String::as_str).collect();
            cycle.push(&workflow.name);
            problems.push(
                codes::WORKFLOW_INCLUDE_CYCLE
                    .finding(&[("workflow", &workflow.name), ("path", &cycle.join(" → "))])
                    .into(),
            );
            return;
        }
        if let Some(i) = self.workflows.iter().position(|w| w.name == workflow.name) {
            if same(&self.workflows[i], &self.placements[i], &workflow) {
                let included_by = &mut self.placements[i].included_by;
                if let Some(parent) = parent
                    && !included_by.iter().any(|p| p == parent)
                {
                    included_by.push(parent.to_owned());
                }
                // Its children by the same names must be the same too.
                self.visit_children(&workflow.name, workflow.includes, path, problems);
                return;
            }
            problems.push(duplicate(&workflow.name));
        }
        self.add(workflow, parent, path, problems);
    }

    /// Adds `workflow` as a workflow of its own, then its children below it.
    fn add(
        &mut self,
        mut workflow: Workflow,
        parent: Option<&str>,
        path: &mut Vec<String>,
        problems: &mut Vec<Problem>,
    ) {
        let children = std::mem::take(&mut workflow.includes);
        let placement = Placement {
            includes: names_of(&children),
            included_by: parent.map(str::to_owned).into_iter().collect(),
        };
        let name = workflow.name.clone();
        self.workflows.push(workflow);
        self.placements.push(placement);
        self.visit_children(&name, children, path, problems);
    }

    /// Visits the `children` workflow `parent` includes, below it.
    fn visit_children(
        &mut self,
        parent: &str,
        children: Vec<Workflow>,
        path: &mut Vec<String>,
        problems: &mut Vec<Problem>,
    ) {
        path.push(parent.to_owned());
        for child in children {
            self.visit(child, Some(parent), path, problems);
        }
        path.pop();
    }
}

/// The names of `children`, each once.
fn names_of(children: &[Workflow]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(children.len());
    for child in children {
        if !names.contains(&child.name) {
            names.push(child.name.clone());
        }
    }
    names
}

/// Whether `again` declares what `first` (placed at `placement`) did: the same agents and tools,
/// the same includes by name, the same defaults, `on_config_change` and masking, and providers of the same types (their values
/// cannot be compared: the first declaration's are kept).
fn same(first: &Workflow, placement: &Placement, again: &Workflow) -> bool {
    let agents = first.agents.len() == again.agents.len()
        && first
            .agents
            .iter()
            .zip(&again.agents)
            .all(|(a, b)| std::ptr::eq(*a, *b));
    let tools = first.tools.len() == again.tools.len()
        && first
            .tools
            .iter()
            .zip(&again.tools)
            .all(|(a, b)| std::ptr::eq(a.descriptor(), b.descriptor()));
    let provided = first.provided.entries.len() == again.provided.entries.len()
        && first
            .provided
            .entries
            .iter()
            .zip(&again.provided.entries)
            .all(|(a, b)| a.type_id == b.type_id);
    agents
        && tools
        && provided
        && first.defaults == again.defaults
        && first.agent_defaults == again.agent_defaults
        && first.on_config_change == again.on_config_change
        && first.masking == again.masking
        && first.agent_masking == again.agent_masking
        && placement.includes == names_of(&again.includes)
}

fn duplicate(name: &str) -> Problem {
    codes::WORKFLOW_DUPLICATE_NAME
        .finding(&[("workflow", &name)])
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes_of(problems: &[Problem]) -> Vec<String> {
        problems.iter().map(|p| p.code().to_string()).collect()
    }

    fn names(workflows: &[Workflow]) -> Vec<&str> {
        workflows.iter().map(|w| w.name.as_str()).collect()
    }

    #[test]
    fn children_come_after_their_parent_each_once() {
        let billing = || Workflow::new("billing").include(Workflow::new("ledger"));
        let mut problems = Vec::new();
        let (flat, placed) = flatten(
            vec![
                Workflow::new("support").include(billing()),
                Workflow::new("sales").include(billing()).include(billing()),
                billing(),
            ],
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(names(&flat), ["support", "billing", "ledger", "sales"]);
        assert_eq!(placed[1].included_by, ["support", "sales"]);
        assert_eq!(placed[1].includes, ["ledger"]);
        assert_eq!(placed[2].included_by, ["billing"]);
        assert_eq!(placed[3].includes, ["billing"]);
        assert_eq!(placed[1].suffix(), " (included by `support`, `sales`)");
        assert_eq!(placed[0].suffix(), "");
    }

    #[test]
    fn a_workflow_inside_itself_is_a_cycle_with_its_path() {
        let mut problems = Vec::new();
        let looped = Workflow::new("a").include(Workflow::new("b").include(Workflow::new("a")));
        let (flat, _) = flatten(
            vec![looped, Workflow::new("c").include(Workflow::new("c"))],
            &mut problems,
        );
        assert_eq!(names(&flat), ["a", "b", "c"]);
        assert_eq!(
            problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "[workflow.include-cycle] workflow `a` includes itself (a → b → a): a workflow cannot contain itself; remove one of these includes",
                "[workflow.include-cycle] workflow `c` includes itself (c → c): a workflow cannot contain itself; remove one of these includes",
            ]
        );
    }

    #[test]
    fn another_declaration_under_a_used_name_is_a_duplicate() {
        let mut problems = Vec::new();
        let (flat, _) = flatten(
            vec![
                Workflow::new("support").include(Workflow::new("billing")),
                Workflow::new("billing").include(Workflow::new("ledger")),
                Workflow::new("support"),
            ],
            &mut problems,
        );
        assert_eq!(
            codes_of(&problems),
            ["workflow.duplicate-name", "workflow.duplicate-name"]
        );
        // Both are kept, so that each one's own problems are reported too.
        assert_eq!(
            names(&flat),
            ["support", "billing", "billing", "ledger", "support"]
        );
    }
}
