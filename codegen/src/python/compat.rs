//! What the hand-written 0.x Python API called or ordered differently from
//! the schema, kept so that code written against it keeps working.
//!
//! Every entry names schema things (defs, properties, attributes derived
//! from them); the generator fails when one no longer exists. Field lists
//! themselves always come from the schema.

/// Other names for generated classes: `(old name, def)`.
pub(super) const ALIASES: &[(&str, &str)] = &[
    ("CreateMessageParams", "CreateMessageRequestParams"),
    ("LogMessage", "LoggingMessageNotificationParams"),
    ("Progress", "ProgressNotificationParams"),
];

/// Inline objects that get a class of their own: `(class, def, property)`.
pub(super) const NAMED_OBJECTS: &[(&str, &str, &str)] = &[
    ("Completion", "CompleteResult", "completion"),
    ("CompletionArgument", "CompleteRequestParams", "argument"),
];

/// Inline unions that get a name: `(alias, def, property)`. Every inline
/// union with the same schema is written with the name.
pub(super) const NAMED_UNIONS: &[(&str, &str, &str)] =
    &[("ResourceContents", "EmbeddedResource", "resource")];

/// Unions the old API read as one class holding every member's fields
/// (required only where every member requires them; a tag becomes the set
/// of its values): `(class, def, property or "" for the def itself, doc)`.
pub(super) const FLATTENED: &[(&str, &str, &str, &str)] = &[
    (
        "CompletionRef",
        "CompleteRequestParams",
        "ref",
        "What is being completed: a prompt (``type=\"ref/prompt\"``, ``name``) or a \
         resource template (``type=\"ref/resource\"``, ``uri``); the members of the \
         schema's union (``PromptReference``, ``ResourceTemplateReference``) in one class.",
    ),
    (
        "ElicitParams",
        "ElicitRequestParams",
        "",
        "A server's request for user input (``elicitation/create``): in form mode a \
         ``message`` and a flat ``requested_schema``; in URL mode a ``url`` to open and an \
         ``elicitation_id``. The members of the schema's union \
         (``ElicitRequestFormParams``, ``ElicitRequestURLParams``) in one class.",
    ),
];

/// The positional order of the old constructors, where it differs from the
/// generated one (required fields, then the rest in schema order): the
/// listed attributes come first, in this order.
pub(super) const POSITIONAL: &[(&str, &[&str])] = &[
    ("Annotations", &["audience", "priority", "last_modified"]),
    (
        "BlobResourceContents",
        &["uri", "blob", "mime_type", "meta"],
    ),
    (
        "CallToolResult",
        &["content", "structured_content", "is_error", "meta"],
    ),
    ("Completion", &["values", "total", "has_more"]),
    ("CompletionRef", &["type", "name", "uri"]),
    (
        "CreateMessageRequestParams",
        &[
            "messages",
            "max_tokens",
            "system_prompt",
            "temperature",
            "stop_sequences",
            "model_preferences",
            "include_context",
            "metadata",
            "tools",
            "tool_choice",
            "meta",
        ],
    ),
    (
        "CreateMessageResult",
        &["role", "content", "model", "stop_reason", "meta"],
    ),
    (
        "ElicitParams",
        &[
            "message",
            "requested_schema",
            "mode",
            "url",
            "elicitation_id",
            "meta",
        ],
    ),
    ("GetPromptResult", &["messages", "description", "meta"]),
    (
        "Implementation",
        &[
            "name",
            "version",
            "title",
            "description",
            "website_url",
            "icons",
        ],
    ),
    (
        "LoggingMessageNotificationParams",
        &["level", "data", "logger", "meta"],
    ),
    (
        "ModelPreferences",
        &[
            "hints",
            "cost_priority",
            "speed_priority",
            "intelligence_priority",
        ],
    ),
    (
        "ProgressNotificationParams",
        &["progress", "total", "message", "progress_token", "meta"],
    ),
    (
        "Prompt",
        &["name", "description", "title", "arguments", "icons", "meta"],
    ),
    (
        "PromptArgument",
        &["name", "description", "required", "title"],
    ),
    ("PromptMessage", &["role", "content"]),
    ("ReadResourceResult", &["contents", "meta"]),
    (
        "Resource",
        &[
            "uri",
            "name",
            "title",
            "description",
            "mime_type",
            "size",
            "annotations",
            "icons",
            "meta",
        ],
    ),
    (
        "ResourceLink",
        &[
            "uri",
            "name",
            "type",
            "title",
            "description",
            "mime_type",
            "size",
            "annotations",
            "icons",
            "meta",
        ],
    ),
    (
        "ResourceTemplate",
        &[
            "uri_template",
            "name",
            "title",
            "description",
            "mime_type",
            "annotations",
            "icons",
            "meta",
        ],
    ),
    ("SamplingMessage", &["role", "content", "meta"]),
    (
        "TextResourceContents",
        &["uri", "text", "mime_type", "meta"],
    ),
    (
        "Tool",
        &[
            "name",
            "input_schema",
            "description",
            "title",
            "output_schema",
            "annotations",
            "icons",
            "execution",
            "meta",
        ],
    ),
    (
        "ToolAnnotations",
        &[
            "title",
            "read_only_hint",
            "destructive_hint",
            "idempotent_hint",
            "open_world_hint",
        ],
    ),
];

/// Hand-written behaviour (helpers, convenience constructors; never fields)
/// mixed into generated classes: `(class, mixins in libmcp/_behaviour.py)`.
pub(super) const MIXINS: &[(&str, &[&str])] = &[
    ("AudioContent", &["Base64Data"]),
    ("BlobResourceContents", &["BlobBytes"]),
    ("CallToolResult", &["ContentText", "StructuredData"]),
    ("CreateMessageResult", &["ContentText"]),
    ("ElicitResult", &["Acceptance"]),
    ("ImageContent", &["Base64Data"]),
    ("PromptMessage", &["MessageShortcuts"]),
    ("ReadResourceResult", &["ContentsText"]),
    ("SamplingMessage", &["ContentText"]),
];

/// Whether a required array of `class` may be left out (an empty list): the
/// results a handler returns, as the old API let them be built empty.
pub(super) fn empty_list_default(class: &str) -> bool {
    class.ends_with("Result") || class == "Completion"
}
