//! What a workflow or an application provides, as declared: kept as a list (not a map) so that
//! assembly can report a type provided twice, and with the environment variables each reads.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::base::{Env, FromEnv};
use crate::deps::{ErasedValue, Providers};
use crate::knowledge::KnowledgeShelf;
#[cfg(feature = "mcp")]
use crate::mcp::McpHub;
use crate::model::{ModelRouter, ModelSettings};
use crate::time::Clock;

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
    /// Makes the value on first use, from the scope's environment and clock (a value given ready
    /// is cloned).
    make: Make,
}

type Make = Arc<dyn Fn(&Env, &Clock) -> Result<ErasedValue, String> + Send + Sync>;

impl ProvidedList {
    pub(crate) fn push_ready<T: ?Sized + Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.entries.push(Provided {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            env: &[],
            make: {
                let value: ErasedValue = Arc::new(value);
                Arc::new(move |_, _| Ok(value.clone()))
            },
        });
    }

    pub(crate) fn push_from_env<T: FromEnv>(&mut self) {
        self.push_made::<T>(T::VARIABLES, |env, _| T::from_env(env));
    }

    /// The model router from the configuration's `[models.*]`, made on first use.
    pub(crate) fn push_router(&mut self, models: BTreeMap<String, ModelSettings>) {
        self.push_made::<ModelRouter>(&[], move |env, clock| {
            Ok(ModelRouter::from_settings(&models, env, clock))
        });
    }

    /// The MCP servers' connections, made on first use.
    #[cfg(feature = "mcp")]
    pub(crate) fn push_mcp_hub(
        &mut self,
        credentials: Option<Arc<dyn crate::tool::CredentialProvider>>,
        authorizer: Option<Arc<dyn crate::mcp::Authorizer>>,
    ) {
        self.push_made::<McpHub>(&[], move |env, clock| {
            Ok(McpHub::new(env.clone(), clock.clone())
                .with_credentials(credentials.clone())
                .with_authorizer(authorizer.clone()))
        });
    }

    /// The knowledge bases' indexes, kept under `dir` (of the bases in `folders`, over the
    /// folders given there), their embeddings models reached as
    /// `router` reaches chat models (else as the configuration's `models` say); made on first
    /// use.
    pub(crate) fn push_knowledge_shelf(
        &mut self,
        dir: std::path::PathBuf,
        folders: Vec<(String, std::path::PathBuf)>,
        router: Option<Arc<ModelRouter>>,
        models: BTreeMap<String, ModelSettings>,
    ) {
        self.push_made::<KnowledgeShelf>(&[], move |env, clock| {
            let router = router
                .clone()
                .unwrap_or_else(|| Arc::new(ModelRouter::from_settings(&models, env, clock)));
            let shelf = folders
                .iter()
                .fold(KnowledgeShelf::new(dir.clone()), |shelf, (name, folder)| {
                    shelf.with_folder(name.clone(), folder.clone())
                });
            Ok(shelf.with_models(router, env.clone()))
        });
    }

    /// A `T` made by `make` on first use, from the variables `env` names.
    fn push_made<T: Send + Sync + 'static>(
        &mut self,
        env: &'static [&'static str],
        make: impl Fn(&Env, &Clock) -> Result<T, String> + Send + Sync + 'static,
    ) {
        self.entries.push(Provided {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            env,
            make: Arc::new(move |env, clock| {
                let value: Arc<T> = Arc::new(make(env, clock)?);
                Ok(Arc::new(value) as ErasedValue)
            }),
        });
    }

    /// The providers, each value made on first use from `env` and `clock`. For a type given
    /// twice the later one is kept (assembly has reported it already).
    pub(crate) fn to_providers(&self, env: &Env, clock: &Clock) -> Providers {
        let mut providers = Providers::new();
        for entry in &self.entries {
            let (make, env, clock) = (entry.make.clone(), env.clone(), clock.clone());
            providers.provide_lazy(
                entry.type_id,
                entry.type_name,
                Arc::new(move || make(&env, &clock)),
            );
        }
        providers
    }

    /// Puts `replacement` in the place of each entry of its type; whether there was one.
    pub(crate) fn replace(&mut self, replacement: &Provided) -> bool {
        let mut replaced = false;
        for entry in &mut self.entries {
            if entry.type_id == replacement.type_id {
                *entry = replacement.clone();
                replaced = true;
            }
        }
        replaced
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

#[cfg(test)]
mod tests {
    use super::*;

    trait Mailer: Send + Sync {
        fn name(&self) -> &'static str;
    }
    struct Real;
    impl Mailer for Real {
        fn name(&self) -> &'static str {
            "real"
        }
    }
    struct Double;
    impl Mailer for Double {
        fn name(&self) -> &'static str {
            "double"
        }
    }

    fn replacement() -> Provided {
        let mut list = ProvidedList::default();
        list.push_ready::<dyn Mailer>(Arc::new(Double));
        list.entries.remove(0)
    }

    #[test]
    fn a_replacement_takes_the_place_of_each_provider_of_its_type_only() {
        let mut list = ProvidedList::default();
        list.push_ready::<dyn Mailer>(Arc::new(Real));
        list.push_ready::<u32>(Arc::new(7));
        assert!(list.replace(&replacement()));
        assert_eq!(list.entries.len(), 2);
        let providers = list.to_providers(&Env::from_pairs::<&str, &str>([]), &Clock::system());
        let mailer: Arc<dyn Mailer> = providers.get::<dyn Mailer>().unwrap();
        assert_eq!(mailer.name(), "double");
        assert_eq!(*providers.get::<u32>().unwrap(), 7);

        let mut other = ProvidedList::default();
        other.push_ready::<u32>(Arc::new(7));
        assert!(
            !other.replace(&replacement()),
            "nothing of its type to replace"
        );
        assert_eq!(other.entries.len(), 1);
    }
}
