//! What a workflow or an application provides, as declared: kept as a list (not a map) so that
//! assembly can report a type provided twice, and with the environment variables each reads.

use std::any::TypeId;
use std::sync::Arc;

use super::{Env, FromEnv};
use crate::deps::{ErasedValue, Providers};

/// The providers of one scope, in declaration order.
#[derive(Clone, Default)]
pub(crate) struct ProvidedList {
    pub(crate) entries: Vec<Provided>,
}

#[derive(Clone)]
pub(crate) struct Provided {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
    /// The variables a `FromEnv` provider reads; empty for values given ready.
    pub(crate) env: &'static [&'static str],
    how: How,
}

#[derive(Clone)]
enum How {
    Ready(ErasedValue),
    FromEnv(fn(&Env) -> Result<ErasedValue, String>),
    Router(std::collections::BTreeMap<String, crate::config::ModelSettings>),
    McpHub,
}

impl ProvidedList {
    pub(crate) fn push_ready<T: ?Sized + Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.entries.push(Provided {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            env: &[],
            how: How::Ready(Arc::new(value)),
        });
    }

    pub(crate) fn push_from_env<T: FromEnv>(&mut self) {
        fn make<T: FromEnv>(env: &Env) -> Result<ErasedValue, String> {
            let value: Arc<T> = Arc::new(T::from_env(env)?);
            Ok(Arc::new(value))
        }
        self.entries.push(Provided {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            env: T::VARIABLES,
            how: How::FromEnv(make::<T>),
        });
    }

    /// The model router from the configuration's `[models.*]`, made on first use.
    pub(crate) fn push_router(
        &mut self,
        models: std::collections::BTreeMap<String, crate::config::ModelSettings>,
    ) {
        self.entries.push(Provided {
            type_id: TypeId::of::<crate::model::ModelRouter>(),
            type_name: std::any::type_name::<crate::model::ModelRouter>(),
            env: &[],
            how: How::Router(models),
        });
    }

    /// The MCP servers' connections, made on first use.
    pub(crate) fn push_mcp_hub(&mut self) {
        self.entries.push(Provided {
            type_id: TypeId::of::<crate::mcp::McpHub>(),
            type_name: std::any::type_name::<crate::mcp::McpHub>(),
            env: &[],
            how: How::McpHub,
        });
    }

    /// The providers, environment-backed ones made on first use from `env`. For a type given
    /// twice the later one is kept (assembly has reported it already).
    pub(crate) fn to_providers(&self, env: &Env, clock: &crate::time::Clock) -> Providers {
        let mut providers = Providers::new();
        for entry in &self.entries {
            match &entry.how {
                How::Ready(value) => {
                    let value = value.clone();
                    providers.provide_lazy(
                        entry.type_id,
                        entry.type_name,
                        Arc::new(move || Ok(value.clone())),
                    );
                }
                How::FromEnv(make) => {
                    let (make, env) = (*make, env.clone());
                    providers.provide_lazy(
                        entry.type_id,
                        entry.type_name,
                        Arc::new(move || make(&env)),
                    );
                }
                How::McpHub => {
                    let (env, clock) = (env.clone(), clock.clone());
                    providers.provide_lazy(
                        entry.type_id,
                        entry.type_name,
                        Arc::new(move || {
                            let hub = crate::mcp::McpHub::new(env.clone(), clock.clone());
                            Ok(Arc::new(Arc::new(hub)) as ErasedValue)
                        }),
                    );
                }
                How::Router(models) => {
                    let (models, env, clock) = (models.clone(), env.clone(), clock.clone());
                    providers.provide_lazy(
                        entry.type_id,
                        entry.type_name,
                        Arc::new(move || {
                            let router =
                                crate::model::ModelRouter::from_settings(&models, &env, &clock);
                            Ok(Arc::new(Arc::new(router)) as ErasedValue)
                        }),
                    );
                }
            }
        }
        providers
    }

    /// The variables the provider of `type_id` reads.
    pub(crate) fn env_of(&self, type_id: TypeId) -> Option<&'static [&'static str]> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.type_id == type_id)
            .map(|e| e.env)
    }
}
