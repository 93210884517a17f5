//! Hand-written conveniences over the generated types: constructors and
//! small helpers. Nothing here changes the wire format.

use serde_json::{Map, Value};

use super::neutral::*;

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 data.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent::new(base64, mime_type))
    }

    /// An audio block from base64 data.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(AudioContent::new(base64, mime_type))
    }

    /// An embedded text resource.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::EmbeddedResource(EmbeddedResource::new(
            EmbeddedResourceResource::TextResourceContents(TextResourceContents {
                mime_type,
                ..TextResourceContents::new(text, uri)
            }),
        ))
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
        Self::new(content)
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::success(vec![ContentBlock::text(text)])
    }

    /// A failed tool run, reported to the model as `isError: true`.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::new(vec![ContentBlock::text(message)])
        }
    }

    /// Structured content with its JSON text as a text block (for clients
    /// that do not read `structuredContent`).
    pub fn structured(value: Map<String, Value>) -> Self {
        let text = Value::Object(value.clone()).to_string();
        Self {
            structured_content: Some(Value::Object(value)),
            ..Self::new(vec![ContentBlock::text(text)])
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
        Self::new(vec![ReadResourceResultContentsItem::TextResourceContents(
            TextResourceContents {
                mime_type,
                ..TextResourceContents::new(text, uri)
            },
        )])
    }

    /// One binary content, given base64-encoded.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: Option<String>,
        base64: impl Into<String>,
    ) -> Self {
        Self::new(vec![ReadResourceResultContentsItem::BlobResourceContents(
            BlobResourceContents {
                mime_type,
                ..BlobResourceContents::new(base64, uri)
            },
        )])
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

impl TaskStatus {
    /// Whether the task has ended (completed, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

impl EmptyResult {
    /// `{}`.
    pub fn new() -> Self {
        Self(BaseResult::new())
    }
}

impl Default for EmptyResult {
    fn default() -> Self {
        Self::new()
    }
}
