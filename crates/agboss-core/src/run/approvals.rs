//! [`Approvals`]: the roles an application's tools wait for, each with the channel that
//! implements it and what its channels are built from.

use std::collections::HashMap;
use std::sync::Arc;

use crate::channel::{ChannelRegistration, RoleDescriptor};
use crate::policy::PermissionChecker;
use crate::tool::{SchemaCheck, ToolEnv};

/// The roles of an application, by name: the channel that answers each, and the check of its
/// answers. Made at assembly.
#[derive(Clone, Default)]
pub struct Approvals {
    roles: HashMap<&'static str, Arc<ApprovalRole>>,
    /// What the application decides about calls of tools that declare capabilities.
    permissions: Option<Arc<dyn PermissionChecker>>,
    /// The checker's name, shared by every decision it journals.
    checker_name: Arc<str>,
    /// The role asked for a check-in or a permission's `Ask` when the tool names none.
    check_in_role: Option<&'static str>,
    /// The application's providers and clock: what channels are built from.
    env: ToolEnv,
}

/// One role, its channel, and the compiled schema of its answer.
pub(crate) struct ApprovalRole {
    pub(crate) role: &'static RoleDescriptor,
    pub(crate) channel: ChannelRegistration,
    pub(crate) answer: SchemaCheck,
}

impl Approvals {
    /// No roles: channels are built in `env`.
    pub fn new(env: ToolEnv) -> Approvals {
        Approvals {
            roles: HashMap::new(),
            permissions: None,
            checker_name: Arc::from(""),
            check_in_role: None,
            env,
        }
    }

    /// With `checker` deciding about calls of tools that declare capabilities it governs, and
    /// `check_in_role` (one of its roles) asked when a tool that must ask a person names none.
    pub fn with_consent(
        mut self,
        checker: Option<Arc<dyn PermissionChecker>>,
        check_in_role: Option<&'static str>,
    ) -> Approvals {
        self.checker_name = Arc::from(checker.as_ref().map_or("", |c| c.name()));
        self.permissions = checker;
        self.check_in_role = check_in_role;
        self
    }

    /// The application's permission checker, if it has one.
    pub fn permissions(&self) -> Option<&Arc<dyn PermissionChecker>> {
        self.permissions.as_ref()
    }

    /// The checker's name, as its decisions are journaled.
    pub(crate) fn checker_name(&self) -> &Arc<str> {
        &self.checker_name
    }

    /// The role asked for a check-in or a permission's `Ask` when the tool names none.
    pub fn check_in_role(&self) -> Option<&'static str> {
        self.check_in_role
    }

    /// Whether the checker governs one of `capabilities`.
    pub fn governs_any(&self, capabilities: &[crate::tool::Capability]) -> bool {
        self.permissions
            .as_ref()
            .is_some_and(|c| capabilities.iter().any(|cap| c.governs().contains(cap)))
    }

    /// Role `role` answered by `channel`; why its answer schema does not compile, if it does
    /// not.
    pub fn insert(
        &mut self,
        role: &'static RoleDescriptor,
        channel: ChannelRegistration,
    ) -> Result<(), String> {
        let answer = SchemaCheck::compile(role.answer_schema()).map_err(|e| e.to_string())?;
        self.roles.insert(
            role.name(),
            Arc::new(ApprovalRole {
                role,
                channel,
                answer,
            }),
        );
        Ok(())
    }

    /// The role named `name`.
    pub fn role(&self, name: &str) -> Option<&'static RoleDescriptor> {
        self.roles.get(name).map(|r| r.role)
    }

    /// The channel answering role `name`.
    pub fn channel(&self, name: &str) -> Option<ChannelRegistration> {
        self.roles.get(name).map(|r| r.channel)
    }

    /// Checks `answer` against role `name`'s answer schema.
    pub fn check_answer(&self, name: &str, answer: &serde_json::Value) -> Result<(), String> {
        let role = self
            .roles
            .get(name)
            .ok_or_else(|| format!("this application has no role `{name}`"))?;
        role.answer
            .check_value(answer)
            .map_err(|issues| issues.to_string())
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Arc<ApprovalRole>> {
        self.roles.get(name)
    }

    /// What channels are built in.
    pub(crate) fn env(&self) -> &ToolEnv {
        &self.env
    }
}
