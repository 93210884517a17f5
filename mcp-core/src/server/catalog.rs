//! What a [`Server`](super::Server) serves right now: its tools, resources,
//! resource templates, prompts, instructions, completion handler and task
//! manager, and the capabilities that follow from them.
//!
//! A catalog is a snapshot. Requests read the current one without a lock
//! (an `ArcSwap` load); a change copies it (each list is behind its own
//! `Arc`, so only the list that changes is copied), works out what follows
//! (capabilities, the profile of requests that stand alone) and swaps the
//! copy in.

use std::sync::Arc;

use serde_json::Map;

use super::registry::CompletionFn;
#[cfg(feature = "http-server")]
use super::stateless::Profile;
use super::{PromptDef, ResourceDef, ResourceTemplateDef, ServerInfo, ToolDef};
use crate::extensions::SKILLS;
use crate::fast_map::FastIndexMap;
use crate::jsonrpc::{ErrorCode, RpcError};
use crate::schema::{
    ClientRequestMethod, Implementation, ServerCapabilities, ServerCapabilitiesPrompts,
    ServerCapabilitiesResources, ServerCapabilitiesTasks, ServerCapabilitiesTasksRequests,
    ServerCapabilitiesTasksRequestsTools, ServerCapabilitiesTools, ToolExecutionTaskSupport,
};
use crate::skills::{Skill, SkillCatalog};
use crate::tasks::{TaskConfig, TaskManager};

/// The kinds of things a server lists, each with its capability and its
/// list-changed notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Tools,
    /// Resources and resource templates: one capability, one list change.
    Resources,
    Prompts,
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Resources => "resources",
            Self::Prompts => "prompts",
        }
    }

    /// The request a session must have been offered to hear of changes.
    pub(super) fn list_method(self) -> ClientRequestMethod {
        match self {
            Self::Tools => ClientRequestMethod::ListTools,
            Self::Resources => ClientRequestMethod::ListResources,
            Self::Prompts => ClientRequestMethod::ListPrompts,
        }
    }
}

/// Which list capabilities a server declares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Offers {
    pub(super) tools: bool,
    pub(super) resources: bool,
    pub(super) prompts: bool,
}

impl Offers {
    pub(super) fn has(self, kind: Kind) -> bool {
        match kind {
            Kind::Tools => self.tools,
            Kind::Resources => self.resources,
            Kind::Prompts => self.prompts,
        }
    }

    pub(super) fn add(&mut self, kind: Kind) {
        match kind {
            Kind::Tools => self.tools = true,
            Kind::Resources => self.resources = true,
            Kind::Prompts => self.prompts = true,
        }
    }
}

/// One snapshot of what a server serves.
#[derive(Clone)]
pub(super) struct Catalog {
    pub(super) instructions: Option<String>,
    /// Offered whatever is registered: by `offer_*`, and, once the server
    /// has been served, everything it offered then (clients were told).
    pub(super) declared: Offers,
    /// Whether the server has been served: from then on what it offers is
    /// settled (see [`Catalog::settle`]).
    pub(super) served: bool,
    pub(super) tools: Arc<FastIndexMap<String, ToolDef>>,
    pub(super) resources: Arc<FastIndexMap<String, ResourceDef>>,
    pub(super) templates: Arc<FastIndexMap<String, ResourceTemplateDef>>,
    pub(super) prompts: Arc<FastIndexMap<String, PromptDef>>,
    pub(super) completion: Option<CompletionFn>,
    pub(super) tasks: Option<Arc<TaskManager>>,
    /// The skills served (the skills extension), their `SKILL.md` files
    /// also in `resources`.
    pub(super) skills: Option<Arc<SkillCatalog>>,
    /// Worked out by [`Catalog::derive`] after every change.
    pub(super) offers: Offers,
    pub(super) info: ServerInfo,
    /// Read by the HTTP acceptor for requests that stand alone.
    #[cfg(feature = "http-server")]
    pub(super) profile: Option<Arc<Profile>>,
}

impl Catalog {
    pub(super) fn new(implementation: Implementation) -> Self {
        Self {
            instructions: None,
            declared: Offers::default(),
            served: false,
            tools: Arc::default(),
            resources: Arc::default(),
            templates: Arc::default(),
            prompts: Arc::default(),
            completion: None,
            tasks: None,
            skills: None,
            offers: Offers::default(),
            info: ServerInfo {
                implementation,
                capabilities: ServerCapabilities::new(),
                instructions: None,
            },
            #[cfg(feature = "http-server")]
            profile: None,
        }
    }

    /// Whether anything of `kind` is registered.
    fn has_any(&self, kind: Kind) -> bool {
        match kind {
            Kind::Tools => !self.tools.is_empty(),
            Kind::Resources => {
                !self.resources.is_empty() || !self.templates.is_empty() || self.skills.is_some()
            }
            Kind::Prompts => !self.prompts.is_empty(),
        }
    }

    /// A tool that may run as a task needs a task manager: the default one
    /// unless the builder set one.
    pub(super) fn ensure_tasks_for(&mut self, tool: &ToolDef) {
        if self.tasks.is_none() && tool.task_support_of() != ToolExecutionTaskSupport::Forbidden {
            self.tasks = Some(Arc::new(TaskManager::new(TaskConfig::default())));
        }
    }

    /// Serves `skills` in place of the skills served until now (none with
    /// `None`): their `SKILL.md` files are listed resources.
    pub(super) fn set_skills(&mut self, skills: Option<SkillCatalog>) {
        let resources = Arc::make_mut(&mut self.resources);
        if let Some(old) = self.skills.take() {
            for skill in old.skills() {
                resources.shift_remove(&skill.entry().uri);
            }
        }
        if let Some(skills) = skills {
            for skill in skills.skills() {
                resources.insert(skill.entry().uri.clone(), skill_resource(skill.clone()));
            }
            self.skills = Some(Arc::new(skills));
        }
    }

    /// Marks the catalog served: what it offers now stays offered, so that
    /// the sessions told of it keep hearing of changes.
    pub(super) fn settle(&mut self) {
        self.declared = self.offers;
        self.served = true;
    }

    /// Works out what follows from the registered items.
    pub(super) fn derive(&mut self) {
        let mut offers = self.declared;
        for kind in [Kind::Tools, Kind::Resources, Kind::Prompts] {
            if self.has_any(kind) {
                offers.add(kind);
            }
        }
        self.offers = offers;
        self.info.capabilities = self.capabilities();
        self.info.instructions = self.instructions.clone();
        #[cfg(feature = "http-server")]
        {
            self.profile = Profile::from_info(self.info.clone()).ok();
        }
    }

    /// The capabilities, as `ServerBuilder` derives them: a list capability
    /// for every kind offered, with `listChanged` (a `Server` may change its
    /// lists at any time), `completions` with a completion handler, `tasks`
    /// with a task manager.
    fn capabilities(&self) -> ServerCapabilities {
        let offers = self.offers;
        ServerCapabilities {
            tools: offers.tools.then_some(ServerCapabilitiesTools {
                list_changed: Some(true),
                ..ServerCapabilitiesTools::new()
            }),
            resources: offers.resources.then_some(ServerCapabilitiesResources {
                list_changed: Some(true),
                subscribe: Some(true),
                ..ServerCapabilitiesResources::new()
            }),
            prompts: offers.prompts.then_some(ServerCapabilitiesPrompts {
                list_changed: Some(true),
                ..ServerCapabilitiesPrompts::new()
            }),
            logging: Some(Map::new()),
            completions: self.completion.is_some().then(Map::new),
            experimental: None,
            extensions: self.skills.as_ref().map(|skills| {
                let mut extensions = indexmap::IndexMap::new();
                extensions.insert(SKILLS.to_string(), skills.settings());
                extensions
            }),
            tasks: self.tasks.as_ref().map(|_| ServerCapabilitiesTasks {
                list: Some(Map::new()),
                cancel: Some(Map::new()),
                requests: Some(ServerCapabilitiesTasksRequests {
                    tools: Some(ServerCapabilitiesTasksRequestsTools {
                        call: Some(Map::new()),
                        ..ServerCapabilitiesTasksRequestsTools::new()
                    }),
                    ..ServerCapabilitiesTasksRequests::new()
                }),
                ..ServerCapabilitiesTasks::new()
            }),
            ..ServerCapabilities::new()
        }
    }
}

/// A skill's `SKILL.md` as a listed resource.
fn skill_resource(skill: Skill) -> ResourceDef {
    ResourceDef {
        resource: skill.manifest_resource(),
        read: Arc::new(move |uri, _cx| {
            let read = skill.read(&uri).ok_or_else(|| {
                RpcError::new(
                    ErrorCode::RESOURCE_NOT_FOUND,
                    format!("Resource not found: {uri}"),
                )
            });
            Box::pin(async move { read })
        }),
    }
}
