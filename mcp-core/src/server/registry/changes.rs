//! Changing a [`Server`] after it is built: registering and removing
//! tools, resources, resource templates and prompts (before serving, or
//! while serving: clients are told), and the settings possible until it is
//! first served.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::runtime::Handle;

use super::{Catalog, CompletionFn, Kind, Server, lock};
use crate::jsonrpc::RpcError;
use crate::schema::{
    CompleteRequestParams, CompleteResultCompletion, PromptListChangedNotification,
    ResourceListChangedNotification, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams, ToolListChangedNotification,
};
use crate::server::subscriptions::Change;
use crate::server::{Context, PromptDef, ResourceDef, ResourceTemplateDef, ToolDef};
use crate::skills::SkillCatalog;
use crate::{Error, Result};

impl Server {
    /// Makes a change: on a copy of the catalog, swapped in with what
    /// follows from it worked out again.
    pub(super) fn change<R>(&self, f: impl FnOnce(&mut Catalog) -> R) -> R {
        let _one_at_a_time = lock(&self.inner.changing);
        let mut next = Catalog::clone(&self.inner.catalog.load());
        let out = f(&mut next);
        next.derive();
        self.inner.catalog.store(Arc::new(next));
        out
    }

    /// Adds something of `kind`; returns whether clients must be told
    /// (the server is being served). Once served, a kind the server did not
    /// offer then cannot be added: its clients were told there is none.
    fn insert(&self, kind: Kind, f: impl FnOnce(&mut Catalog)) -> Result<bool> {
        self.change(|catalog| {
            if catalog.served && !catalog.offers.has(kind) {
                let name = kind.name();
                return Err(Error::InvalidArgument(format!(
                    "the server did not offer `{name}` when it was first served (its clients were told it has none); register some or offer them before serving to add {name} later"
                )));
            }
            f(catalog);
            Ok(catalog.served)
        })
    }

    /// Removes something of `kind`; returns whether it was there and
    /// whether clients must be told.
    fn take(&self, f: impl FnOnce(&mut Catalog) -> bool) -> (bool, bool) {
        self.change(|catalog| {
            let removed = f(catalog);
            (removed, removed && catalog.served)
        })
    }

    /// Settings only possible until the server is first served (clients
    /// read them once, when they initialize).
    fn configure(&self, what: &str, f: impl FnOnce(&mut Catalog)) -> Result<()> {
        self.change(|catalog| {
            if catalog.served {
                return Err(Error::InvalidArgument(format!(
                    "{what} can only be set before the server is first served"
                )));
            }
            f(catalog);
            Ok(())
        })
    }

    /// Tells listeners that the list of `kind` changed, and returns the
    /// sending of `list_changed` to the sessions that were offered that list
    /// (`None`: nobody to tell). The sending needs no runtime of its own.
    fn announcement(&self, kind: Kind) -> Option<BoxFuture<'static, ()>> {
        self.inner.bus.publish(match kind {
            Kind::Tools => Change::ToolsListChanged,
            Kind::Resources => Change::ResourcesListChanged,
            Kind::Prompts => Change::PromptsListChanged,
        });
        let sessions: Vec<_> = self
            .inner
            .bus
            .ready_sessions()
            .into_iter()
            .filter(|s| {
                s.client
                    .get()
                    .is_some_and(|hello| hello.offers.allows(kind.list_method()))
            })
            .collect();
        if sessions.is_empty() {
            return None;
        }
        Some(Box::pin(async move {
            for session in sessions {
                // A session closing meanwhile is not an error for the others.
                let _ = match kind {
                    Kind::Tools => {
                        session
                            .peer
                            .notify::<ToolListChangedNotification>(None)
                            .await
                    }
                    Kind::Resources => {
                        session
                            .peer
                            .notify::<ResourceListChangedNotification>(None)
                            .await
                    }
                    Kind::Prompts => {
                        session
                            .peer
                            .notify::<PromptListChangedNotification>(None)
                            .await
                    }
                };
            }
        }))
    }

    /// Tells clients that the list of `kind` changed, waiting until every
    /// notification is queued.
    async fn announce(&self, kind: Kind, needed: bool) {
        if let Some(sending) = needed.then(|| self.announcement(kind)).flatten() {
            sending.await;
        }
    }

    /// Tells clients that the list of `kind` changed without waiting: the
    /// notifications go out from the current runtime, or the one the server
    /// was last served on.
    fn announce_in_background(&self, kind: Kind, needed: bool) {
        let Some(sending) = needed.then(|| self.announcement(kind)).flatten() else {
            return;
        };
        self.spawn(sending);
    }

    /// Runs `sending` in the background: on the current runtime, or the one
    /// the server was last served on.
    fn spawn(&self, sending: BoxFuture<'static, ()>) {
        let handle = Handle::try_current()
            .ok()
            .or_else(|| lock(&self.inner.runtime).clone());
        match handle {
            Some(handle) => drop(handle.spawn(sending)),
            None => tracing::debug!("a change has no runtime to be announced from"),
        }
    }

    /// Registers a tool (replacing one of the same name), before or while
    /// serving; once served, clients are told (`notifications/tools/
    /// list_changed`, in the background: needs no runtime). A tool that may
    /// run as a task gives the server the default task manager if it has
    /// none. Fails once served if the server did not offer tools then.
    pub fn register_tool(&self, tool: ToolDef) -> Result<()> {
        let needed = self.insert_tool(tool)?;
        self.announce_in_background(Kind::Tools, needed);
        Ok(())
    }

    fn insert_tool(&self, tool: ToolDef) -> Result<bool> {
        let needed = self.insert(Kind::Tools, |catalog| {
            catalog.ensure_tasks_for(&tool);
            Arc::make_mut(&mut catalog.tools).insert(tool.tool.name.clone(), tool);
        })?;
        // A task manager the tool brought keeps its tasks where the
        // replicas share them.
        self.share_new_tasks();
        Ok(needed)
    }

    /// As [`register_tool`](Self::register_tool), returning once every
    /// client's notification is queued.
    pub async fn add_tool(&self, tool: ToolDef) -> Result<()> {
        let needed = self.insert_tool(tool)?;
        self.announce(Kind::Tools, needed).await;
        Ok(())
    }

    /// Removes a tool (calls of it that are running finish); once served,
    /// clients are told in the background. Returns whether it existed.
    pub fn unregister_tool(&self, name: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.tools)
                .shift_remove(name)
                .is_some()
        });
        self.announce_in_background(Kind::Tools, needed);
        removed
    }

    /// As [`unregister_tool`](Self::unregister_tool), returning once every
    /// client's notification is queued.
    pub async fn remove_tool(&self, name: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.tools)
                .shift_remove(name)
                .is_some()
        });
        self.announce(Kind::Tools, needed).await;
        removed
    }

    /// Registers a resource (replacing the one at its URI), as
    /// [`register_tool`](Self::register_tool) does tools.
    pub fn register_resource(&self, resource: ResourceDef) -> Result<()> {
        let needed = self.insert_resource(resource)?;
        self.announce_in_background(Kind::Resources, needed);
        Ok(())
    }

    fn insert_resource(&self, resource: ResourceDef) -> Result<bool> {
        self.insert(Kind::Resources, |catalog| {
            Arc::make_mut(&mut catalog.resources).insert(resource.resource.uri.clone(), resource);
        })
    }

    /// As [`register_resource`](Self::register_resource), returning once
    /// every client's notification is queued.
    pub async fn add_resource(&self, resource: ResourceDef) -> Result<()> {
        let needed = self.insert_resource(resource)?;
        self.announce(Kind::Resources, needed).await;
        Ok(())
    }

    /// Removes the resource at `uri`, as
    /// [`unregister_tool`](Self::unregister_tool) does tools.
    pub fn unregister_resource(&self, uri: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.resources)
                .shift_remove(uri)
                .is_some()
        });
        self.announce_in_background(Kind::Resources, needed);
        removed
    }

    /// As [`unregister_resource`](Self::unregister_resource), returning
    /// once every client's notification is queued.
    pub async fn remove_resource(&self, uri: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.resources)
                .shift_remove(uri)
                .is_some()
        });
        self.announce(Kind::Resources, needed).await;
        removed
    }

    /// Serves `skills` (the skills extension) in place of the skills
    /// served until now, before or while serving: their `SKILL.md` files
    /// are listed resources, so clients are told of the change of the
    /// resource list (`notifications/resources/list_changed`, in the
    /// background). Fails once served if the server did not offer
    /// resources then.
    pub fn set_skills(&self, skills: SkillCatalog) -> Result<()> {
        let needed = self.insert(Kind::Resources, |catalog| catalog.set_skills(Some(skills)))?;
        self.announce_in_background(Kind::Resources, needed);
        Ok(())
    }

    /// Registers a resource template (replacing one with the same URI
    /// template), as [`register_tool`](Self::register_tool) does tools
    /// (clients hear of it as a change of the resource list).
    pub fn register_resource_template(&self, template: ResourceTemplateDef) -> Result<()> {
        let needed = self.insert(Kind::Resources, |catalog| {
            Arc::make_mut(&mut catalog.templates)
                .insert(template.template.uri_template.clone(), template);
        })?;
        self.announce_in_background(Kind::Resources, needed);
        Ok(())
    }

    /// Removes the resource template with `uri_template`, as
    /// [`unregister_tool`](Self::unregister_tool) does tools.
    pub fn unregister_resource_template(&self, uri_template: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.templates)
                .shift_remove(uri_template)
                .is_some()
        });
        self.announce_in_background(Kind::Resources, needed);
        removed
    }

    /// Registers a prompt (replacing one of the same name), as
    /// [`register_tool`](Self::register_tool) does tools.
    pub fn register_prompt(&self, prompt: PromptDef) -> Result<()> {
        let needed = self.insert_prompt(prompt)?;
        self.announce_in_background(Kind::Prompts, needed);
        Ok(())
    }

    fn insert_prompt(&self, prompt: PromptDef) -> Result<bool> {
        self.insert(Kind::Prompts, |catalog| {
            Arc::make_mut(&mut catalog.prompts).insert(prompt.prompt.name.clone(), prompt);
        })
    }

    /// As [`register_prompt`](Self::register_prompt), returning once every
    /// client's notification is queued.
    pub async fn add_prompt(&self, prompt: PromptDef) -> Result<()> {
        let needed = self.insert_prompt(prompt)?;
        self.announce(Kind::Prompts, needed).await;
        Ok(())
    }

    /// Removes a prompt, as [`unregister_tool`](Self::unregister_tool) does
    /// tools.
    pub fn unregister_prompt(&self, name: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.prompts)
                .shift_remove(name)
                .is_some()
        });
        self.announce_in_background(Kind::Prompts, needed);
        removed
    }

    /// As [`unregister_prompt`](Self::unregister_prompt), returning once
    /// every client's notification is queued.
    pub async fn remove_prompt(&self, name: &str) -> bool {
        let (removed, needed) = self.take(|catalog| {
            Arc::make_mut(&mut catalog.prompts)
                .shift_remove(name)
                .is_some()
        });
        self.announce(Kind::Prompts, needed).await;
        removed
    }

    /// Declares the tools capability even with no tools yet, so that tools
    /// can be added once served. Only before the server is first served.
    pub fn offer_tools(&self) -> Result<()> {
        self.configure("offered capabilities", |c| c.declared.add(Kind::Tools))
    }

    /// Declares the resources capability even with no resources yet (see
    /// [`offer_tools`](Self::offer_tools)).
    pub fn offer_resources(&self) -> Result<()> {
        self.configure("offered capabilities", |c| c.declared.add(Kind::Resources))
    }

    /// Declares the prompts capability even with no prompts yet (see
    /// [`offer_tools`](Self::offer_tools)).
    pub fn offer_prompts(&self) -> Result<()> {
        self.configure("offered capabilities", |c| c.declared.add(Kind::Prompts))
    }

    /// Sets the instructions sent to clients. Only before the server is
    /// first served.
    pub fn set_instructions(&self, instructions: impl Into<String>) -> Result<()> {
        let instructions = instructions.into();
        self.configure("the instructions", |c| c.instructions = Some(instructions))
    }

    /// Sets the handler of `completion/complete` (declares `completions`).
    /// Only before the server is first served.
    pub fn set_completion<F, Fut>(&self, complete: F) -> Result<()>
    where
        F: Fn(CompleteRequestParams, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResultCompletion, RpcError>> + Send + 'static,
    {
        let complete: CompletionFn = Arc::new(move |params, cx| Box::pin(complete(params, cx)));
        self.configure("the completion handler", |c| c.completion = Some(complete))
    }

    /// Sends `notifications/resources/updated` as
    /// [`notify_resource_updated`](Self::notify_resource_updated) does,
    /// without waiting (in the background, as list changes are: needs no
    /// runtime); returns how many sessions are subscribed to `uri`.
    pub fn resource_updated(&self, uri: &str) -> usize {
        let bus = &self.inner.bus;
        bus.publish(Change::ResourceUpdated(uri.to_string()));
        let sessions: Vec<_> = bus
            .ready_sessions()
            .into_iter()
            .filter(|s| s.is_subscribed(uri))
            .collect();
        let subscribed = sessions.len();
        if subscribed > 0 {
            let params = ResourceUpdatedNotificationParams::new(uri);
            self.spawn(Box::pin(async move {
                for session in sessions {
                    let _ = session
                        .peer
                        .notify::<ResourceUpdatedNotification>(params.clone())
                        .await;
                }
            }));
        }
        subscribed
    }
}
