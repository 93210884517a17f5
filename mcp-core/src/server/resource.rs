use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use indexmap::IndexMap;

use super::Context;
use crate::jsonrpc::RpcError;
use crate::schema::{
    GetPromptResult, Prompt, PromptArgument, ReadResourceResult, Resource, ResourceTemplate,
};
use crate::uri_template::UriTemplate;
use crate::{Error, Result};

type ReadFn = Arc<
    dyn Fn(String, Context) -> BoxFuture<'static, Result<ReadResourceResult, RpcError>>
        + Send
        + Sync,
>;
type TemplateFn = Arc<
    dyn Fn(
            String,
            HashMap<String, String>,
            Context,
        ) -> BoxFuture<'static, Result<ReadResourceResult, RpcError>>
        + Send
        + Sync,
>;
type PromptFn = Arc<
    dyn Fn(
            IndexMap<String, String>,
            Context,
        ) -> BoxFuture<'static, Result<GetPromptResult, RpcError>>
        + Send
        + Sync,
>;

/// A resource with a fixed URI and the handler that reads it.
#[derive(Clone)]
pub struct ResourceDef {
    pub(crate) resource: Resource,
    pub(crate) read: ReadFn,
}

impl fmt::Debug for ResourceDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceDef")
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl ResourceDef {
    /// A resource named `name` at `uri`, read by `read(uri, cx)`.
    pub fn new<F, Fut>(uri: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, RpcError>> + Send + 'static,
    {
        Self {
            resource: Resource::new(name, uri),
            read: Arc::new(move |uri, cx| Box::pin(read(uri, cx))),
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.resource.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// The definition clients see.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }
}

/// A resource template (RFC 6570) and the handler that reads URIs matching
/// it, given the template's variables.
#[derive(Clone)]
pub struct ResourceTemplateDef {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
    pub(crate) read: TemplateFn,
}

impl fmt::Debug for ResourceTemplateDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplateDef")
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplateDef {
    /// A template such as `file:///{path}`; fails if it does not parse.
    pub fn new<F, Fut>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        read: F,
    ) -> Result<Self>
    where
        F: Fn(String, HashMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, RpcError>> + Send + 'static,
    {
        let uri_template = uri_template.into();
        let matcher =
            UriTemplate::parse(&uri_template).map_err(|e| Error::InvalidArgument(e.to_string()))?;
        Ok(Self {
            template: ResourceTemplate::new(name, uri_template),
            matcher,
            read: Arc::new(move |uri, vars, cx| Box::pin(read(uri, vars, cx))),
        })
    }

    /// For `#[mcp_core::handlers]`, which checked the template while
    /// compiling (the same rules as [`UriTemplate::parse`]). Should it still
    /// not parse, the template matches no URI.
    #[doc(hidden)]
    pub fn checked<F, Fut>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        read: F,
    ) -> Self
    where
        F: Fn(String, HashMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, RpcError>> + Send + 'static,
    {
        let uri_template = uri_template.into();
        let matcher = UriTemplate::parse(&uri_template).unwrap_or_else(|e| {
            tracing::error!("resource template `{uri_template}` matches nothing: {e}");
            UriTemplate::nothing(&uri_template)
        });
        Self {
            template: ResourceTemplate::new(name, uri_template),
            matcher,
            read: Arc::new(move |uri, vars, cx| Box::pin(read(uri, vars, cx))),
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.template.title = Some(title.into());
        self
    }

    /// Sets the MIME type of what the template's resources hold.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.template.mime_type = Some(mime_type.into());
        self
    }

    /// The definition clients see.
    pub fn template(&self) -> &ResourceTemplate {
        &self.template
    }
}

/// A prompt and the handler that renders it from its arguments.
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) get: PromptFn,
}

impl fmt::Debug for PromptDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptDef")
            .field("prompt", &self.prompt)
            .finish_non_exhaustive()
    }
}

impl PromptDef {
    /// A prompt named `name`, rendered by `get(arguments, cx)`. Required
    /// arguments are checked before `get` runs.
    pub fn new<F, Fut>(name: impl Into<String>, get: F) -> Self
    where
        F: Fn(IndexMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, RpcError>> + Send + 'static,
    {
        Self {
            prompt: Prompt::new(name),
            get: Arc::new(move |args, cx| Box::pin(get(args, cx))),
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// Sets the title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// Declares an argument (an empty `description` is left out).
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.prompt
            .arguments
            .get_or_insert_with(Vec::new)
            .push(PromptArgument {
                // An empty description is no description.
                description: Some(description.into()).filter(|d: &String| !d.is_empty()),
                required: Some(required),
                ..PromptArgument::new(name)
            });
        self
    }

    /// The definition clients see.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    pub(crate) fn check_arguments(&self, args: &IndexMap<String, String>) -> Result<(), RpcError> {
        let missing: Vec<&str> = self
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(RpcError::invalid_params(format!(
                "prompt `{}` needs the argument(s) {}",
                self.prompt.name,
                missing.join(", ")
            )))
        }
    }
}
