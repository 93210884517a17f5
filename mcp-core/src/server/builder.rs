//! [`ServerBuilder`]: a [`Server`] set up in one expression. Everything it
//! sets but the session settings, the page size, the bus and the
//! `requestState` key can also be changed on the built server until it is
//! first served (and its lists at any time).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::fast_map::FastIndexMap;

use super::catalog::{Catalog, Offers};
use super::registry::{CompletionFn, Parts};
use super::request_state::RequestStateKey;
use super::subscriptions::ChangeBus;
use super::{Context, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use crate::Result;
use crate::jsonrpc::RpcError;
use crate::schema::{CompleteRequestParams, CompleteResultCompletion, Implementation};
use crate::session::SessionConfig;
use crate::skills::SkillCatalog;
use crate::tasks::{TaskConfig, TaskManager};

/// Builds a [`Server`].
pub struct ServerBuilder {
    implementation: Implementation,
    instructions: Option<String>,
    page_size: usize,
    config: SessionConfig,
    offers: Offers,
    tools: FastIndexMap<String, ToolDef>,
    resources: FastIndexMap<String, ResourceDef>,
    templates: FastIndexMap<String, ResourceTemplateDef>,
    prompts: FastIndexMap<String, PromptDef>,
    completion: Option<CompletionFn>,
    tasks: Option<TaskConfig>,
    skills: Option<SkillCatalog>,
    bus: Option<ChangeBus>,
    request_state_key: Option<RequestStateKey>,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("implementation", &self.implementation)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Sets the instructions sent to clients at initialization.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets the server's human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.implementation.title = Some(title.into());
        self
    }

    /// Items per page of `*/list` results (default 100).
    #[must_use]
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// Session limits and timeouts for every session of this server.
    #[must_use]
    pub fn session_config(mut self, config: SessionConfig) -> Self {
        self.config = config;
        self
    }

    /// Registers a tool (replacing one of the same name).
    #[must_use]
    pub fn tool(mut self, tool: ToolDef) -> Self {
        self.tools.insert(tool.tool.name.clone(), tool);
        self
    }

    /// Declares the tools capability even with no tools yet (for servers
    /// that add tools once served; before that, registering one is enough).
    #[must_use]
    pub fn offer_tools(mut self) -> Self {
        self.offers.tools = true;
        self
    }

    /// Registers a resource.
    #[must_use]
    pub fn resource(mut self, resource: ResourceDef) -> Self {
        self.resources
            .insert(resource.resource.uri.clone(), resource);
        self
    }

    /// Registers a resource template.
    #[must_use]
    pub fn resource_template(mut self, template: ResourceTemplateDef) -> Self {
        self.templates
            .insert(template.template.uri_template.clone(), template);
        self
    }

    /// Declares the resources capability even with no resources yet.
    #[must_use]
    pub fn offer_resources(mut self) -> Self {
        self.offers.resources = true;
        self
    }

    /// Registers a prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: PromptDef) -> Self {
        self.prompts.insert(prompt.prompt.name.clone(), prompt);
        self
    }

    /// Declares the prompts capability even with no prompts yet.
    #[must_use]
    pub fn offer_prompts(mut self) -> Self {
        self.offers.prompts = true;
        self
    }

    /// Sets the handler of `completion/complete` (declares `completions`).
    #[must_use]
    pub fn completion<F, Fut>(mut self, complete: F) -> Self
    where
        F: Fn(CompleteRequestParams, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResultCompletion, RpcError>> + Send + 'static,
    {
        self.completion = Some(Arc::new(move |params, cx| Box::pin(complete(params, cx))));
        self
    }

    /// Runs tool calls as tasks (declares `tasks`). Tools opt in with
    /// [`ToolDef::task_support`]; a server with such a tool gets the default
    /// [`TaskConfig`] without calling this.
    #[must_use]
    pub fn tasks(mut self, config: TaskConfig) -> Self {
        self.tasks = Some(config);
        self
    }

    /// Announces changes (list changes, resource updates) on `bus`, which
    /// servers of one process share so that a change reaches every
    /// `subscriptions/listen` stream (by default each server has its own).
    #[must_use]
    pub fn change_bus(mut self, bus: ChangeBus) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Seals the `requestState` of input-required rounds with `key`: give
    /// every replica behind one load balancer the same key (by default each
    /// process draws its own).
    #[must_use]
    pub fn request_state_key(mut self, key: RequestStateKey) -> Self {
        self.request_state_key = Some(key);
        self
    }

    /// Serves `skills` (the skills extension, declared in the capabilities
    /// with the `resources` capability): `skills/list`, `skills/get`, their
    /// files through `resources/read` (each `SKILL.md` also listed), and
    /// `resources/directory/read` if the catalog offers it.
    #[must_use]
    pub fn skills(mut self, skills: SkillCatalog) -> Self {
        self.skills = Some(skills);
        self
    }

    /// Builds the server.
    pub fn build(self) -> Server {
        let mut catalog = Catalog::new(self.implementation);
        catalog.instructions = self.instructions;
        catalog.declared = self.offers;
        catalog.completion = self.completion;
        catalog.tasks = self.tasks.map(|c| Arc::new(TaskManager::new(c)));
        for tool in self.tools.values() {
            catalog.ensure_tasks_for(tool);
        }
        catalog.tools = Arc::new(self.tools);
        catalog.resources = Arc::new(self.resources);
        catalog.templates = Arc::new(self.templates);
        catalog.prompts = Arc::new(self.prompts);
        catalog.set_skills(self.skills);
        catalog.derive();
        Server::from_parts(Parts {
            page_size: self.page_size,
            config: self.config,
            bus: self.bus.unwrap_or_default(),
            request_state_key: self.request_state_key,
            catalog,
        })
    }
}

impl Server {
    /// Starts building a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            implementation: Implementation::new(name, version),
            instructions: None,
            page_size: 100,
            config: SessionConfig::default(),
            offers: Offers::default(),
            tools: FastIndexMap::default(),
            resources: FastIndexMap::default(),
            templates: FastIndexMap::default(),
            prompts: FastIndexMap::default(),
            completion: None,
            tasks: None,
            skills: None,
            bus: None,
            request_state_key: None,
        }
    }
}
