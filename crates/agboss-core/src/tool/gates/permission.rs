//! [`PermissionChecker`]: what an application says about calls of tools that declare the
//! capabilities it governs, and what it is told of each call; and the `permission` gate that
//! asks it, failing closed.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::Value;

use crate::context::Execution;
use crate::tool::pipeline::{AskPerson, Check, GateCall, Part, Stage, Verdict};
use crate::tool::race::panic_message;
use crate::tool::{CallSeen, Capability, Permission, PermissionKind, ToolFailure, ToolOrigin};

/// Decides about calls of tools that declare a capability it governs. Asked once per declared,
/// governed capability of each call, before the call runs; a tool that declares none, or only
/// capabilities it does not govern, is never asked about.
pub trait PermissionChecker: Send + Sync + 'static {
    /// Its name, journaled with each decision it makes.
    fn name(&self) -> &str;

    /// The capabilities it decides about.
    fn governs(&self) -> &[Capability];

    /// Its decision about one capability of one call. Called on the loop's path before the
    /// call runs: keep it quick, and keep what it reads in the request.
    fn check(&self, request: &PermissionRequest<'_>) -> Permission;
}

/// What a checker is told of one call.
#[derive(Debug)]
pub struct PermissionRequest<'a> {
    /// The capability asked about.
    pub capability: Capability,
    /// The tool's name.
    pub tool: &'a str,
    /// Where its work is done: here, or an MCP server's tool.
    pub origin: &'a ToolOrigin,
    /// The call's arguments as the call contract accepts them (JSON text): checked against
    /// the tool's input schema and allowlists, `{}` for empty arguments, without the `null`s of
    /// optional fields. Read them with [`arguments`](Self::arguments), which parses them.
    pub arguments_text: &'a str,
    /// The execution it belongs to (owner, tenant, thread).
    pub execution: &'a Execution,
    /// The calls the run made before this turn, oldest first.
    pub calls: &'a [CallSeen],
    /// Whether content nobody vouches for (a result of an MCP tool, or of a tool declared
    /// `untrusted_output`) entered the run since its last message from a person.
    pub untrusted_since_person: bool,
}

impl PermissionRequest<'_> {
    /// The call's arguments, parsed.
    pub fn arguments(&self) -> Value {
        serde_json::from_str(self.arguments_text).unwrap_or(Value::Null)
    }
}

/// The `permission` gate: the application's checker asked once per capability the tool
/// declares and the checker governs, a decision journaled for the call read back instead of
/// asked again. A denial refuses the call; an `Ask` asks a person. A checker that panics cannot
/// decide: a person is asked, and nothing is journaled for it.
pub(crate) struct PermissionGate {
    pub(crate) checker: Arc<dyn PermissionChecker>,
    /// The tool's capabilities the checker governs.
    pub(crate) governed: Vec<Capability>,
}

impl Stage for PermissionGate {
    fn name(&self) -> &str {
        "permission"
    }

    fn part(&self) -> Part {
        Part::Gate
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        let mut asked = Vec::new();
        for &capability in &self.governed {
            let journaled = call.history().and_then(|h| h.permission(capability));
            let permission = match journaled {
                Some(permission) => permission,
                None => match self.ask(call, capability) {
                    Ok(permission) => {
                        call.decided.push((capability, permission.clone()));
                        permission
                    }
                    Err(why) => {
                        asked.push(why);
                        continue;
                    }
                },
            };
            match permission.kind {
                PermissionKind::Allow => {}
                PermissionKind::Deny => {
                    return Check::Now(Verdict::Refuse(ToolFailure::Refused(format!(
                        "not permitted: {} (rule `{}`)",
                        permission.reason, permission.rule
                    ))));
                }
                PermissionKind::Ask => asked.push(format!(
                    "{} (rule `{}`)",
                    permission.reason, permission.rule
                )),
            }
        }
        Check::Now(match asked.is_empty() {
            true => Verdict::Pass,
            false => Verdict::Ask(AskPerson {
                why: Some(asked.join("; ")),
                evidence: None,
            }),
        })
    }
}

impl PermissionGate {
    /// The checker's decision about `capability` of `call`, traced; why it could not decide
    /// when it panicked.
    fn ask(&self, call: &GateCall<'_>, capability: Capability) -> Result<Permission, String> {
        let tool = call.tool();
        let decide = |calls: &[CallSeen], untrusted: bool| {
            let request = PermissionRequest {
                capability,
                tool: tool.name(),
                origin: tool.origin(),
                arguments_text: call.arguments(),
                execution: call.execution(),
                calls,
                untrusted_since_person: untrusted,
            };
            catch_unwind(AssertUnwindSafe(|| self.checker.check(&request)))
        };
        let mut decided = None;
        match call.history() {
            Some(history) => history.seen(&mut |calls, untrusted| {
                decided = Some(decide(calls, untrusted));
            }),
            None => decided = Some(decide(&[], false)),
        }
        let checker = self.checker.name();
        let permission = match decided {
            Some(Ok(permission)) => permission,
            Some(Err(panic)) => {
                return Err(format!(
                    "the permission checker `{checker}` could not decide about `{capability}`: it panicked: {}",
                    panic_message(&*panic)
                ));
            }
            None => {
                return Err(format!(
                    "the permission checker `{checker}` was not asked about `{capability}`"
                ));
            }
        };
        tracing::info!(
            execution_id = %call.execution().execution_id(),
            call_id = %call.call_id(),
            tool = tool.name(),
            capability = capability.as_str(),
            checker,
            decision = ?permission.kind,
            rule = %permission.rule,
            "agboss.permission"
        );
        Ok(permission)
    }
}
