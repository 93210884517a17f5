//! Hand-written conveniences over the generated types: constructors and
//! small helpers. Nothing here changes the wire format.

use serde_json::{Map, Value};

use super::generated::*;

impl Implementation {
    /// A name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            icons: None,
            website_url: None,
        }
    }
}

impl TextContent {
    /// Text content.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            annotations: None,
            meta: None,
            type_: TextContentType,
        }
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 data.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            type_: ImageContentType,
        })
    }

    /// An audio block from base64 data.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(AudioContent {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            type_: AudioContentType,
        })
    }

    /// An embedded text resource.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::EmbeddedResource(EmbeddedResource {
            resource: EmbeddedResourceResource::TextResourceContents(TextResourceContents {
                uri: uri.into(),
                mime_type,
                text: text.into(),
                meta: None,
            }),
            annotations: None,
            meta: None,
            type_: EmbeddedResourceType,
        })
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl CallToolResult {
    /// A successful result with the given content.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            is_error: None,
            meta: None,
            structured_content: None,
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![ContentBlock::text(text)])
    }

    /// A failed tool run, reported to the model as `isError: true`.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            meta: None,
            structured_content: None,
        }
    }

    /// Structured content with its JSON text as a text block (for clients
    /// that do not read `structuredContent`).
    pub fn structured(value: Map<String, Value>) -> Self {
        let text = Value::Object(value.clone()).to_string();
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: None,
            meta: None,
            structured_content: Some(value),
        }
    }

    /// Whether the tool reported an error.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

impl ReadResourceResult {
    /// One text content.
    pub fn text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            contents: vec![ReadResourceResultContentsItem::TextResourceContents(
                TextResourceContents {
                    uri: uri.into(),
                    mime_type,
                    text: text.into(),
                    meta: None,
                },
            )],
            meta: None,
        }
    }

    /// One binary content, given base64-encoded.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: Option<String>,
        base64: impl Into<String>,
    ) -> Self {
        Self {
            contents: vec![ReadResourceResultContentsItem::BlobResourceContents(
                BlobResourceContents {
                    uri: uri.into(),
                    mime_type,
                    blob: base64.into(),
                    meta: None,
                },
            )],
            meta: None,
        }
    }
}

impl PromptMessage {
    /// A message from `role` with one content block.
    pub fn new(role: Role, content: ContentBlock) -> Self {
        Self { role, content }
    }
}

impl LoggingLevel {
    /// Severity, from 0 (debug) to 7 (emergency), as RFC 5424 orders them
    /// (the derived `Ord` is alphabetical).
    pub fn severity(self) -> u8 {
        match self {
            Self::Debug => 0,
            Self::Info => 1,
            Self::Notice => 2,
            Self::Warning => 3,
            Self::Error => 4,
            Self::Critical => 5,
            Self::Alert => 6,
            Self::Emergency => 7,
        }
    }
}

impl EmptyResult {
    /// `{}`.
    pub fn new() -> Self {
        Self(BaseResult {
            meta: None,
            extra: Map::new(),
        })
    }
}

impl Default for EmptyResult {
    fn default() -> Self {
        Self::new()
    }
}
