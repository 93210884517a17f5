//! Human-readable renderings of results, and the only code that prints.

use std::fmt::Write as _;
use std::io::Write as _;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcp_core::schema::{
    BlobResourceContents, CallToolResult, CompleteResult, ContentBlock, EmbeddedResourceResource,
    GetPromptResult, LoggingMessageNotificationParams, ProgressNotificationParams, Prompt,
    ReadResourceResult, ReadResourceResultContentsItem, Resource, ResourceTemplate,
    TextResourceContents, Tool,
};
use serde_json::Value;

/// Writes `text` to stdout (a closed stdout, as with `| head`, is not an
/// error worth reporting).
pub(crate) fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// Writes one line to stderr.
pub(crate) fn stderr(line: &str) {
    eprintln!("{line}");
}

/// Writes a prompt to stderr, without a newline.
pub(crate) fn stderr_inline(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// A line the server process wrote to its stderr.
pub(crate) fn server_stderr(line: &str) {
    eprintln!("[server] {line}");
}

/// A `completion/complete` result: one value a line, then how many more.
pub(crate) fn completion(result: &CompleteResult) -> String {
    let completion = &result.completion;
    let mut text = completion.values.join("\n");
    if let Some(total) = completion.total {
        let shown = i64::try_from(completion.values.len()).unwrap_or(i64::MAX);
        let more = total.saturating_sub(shown);
        if more > 0 {
            let _ = write!(text, "\n({more} more)");
        }
    } else if completion.has_more == Some(true) {
        text.push_str("\n(more)");
    }
    if text.is_empty() {
        text.push_str("(no completions)");
    }
    text
}

/// A line a server of a configuration wrote to stderr.
pub(crate) fn member_stderr(server: &str, line: &str) {
    eprintln!("[{server}] {line}");
}

/// A `notifications/message` from the server.
pub(crate) fn log_message(params: &LoggingMessageNotificationParams) {
    let data = match &params.data {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match &params.logger {
        Some(logger) => eprintln!("[log {} {logger}] {data}", params.level),
        None => eprintln!("[log {}] {data}", params.level),
    }
}

/// A `notifications/progress` for the running request.
pub(crate) fn progress(params: &ProgressNotificationParams) {
    let mut line = format!("[progress] {}", params.progress);
    if let Some(total) = &params.total {
        let _ = write!(line, "/{total}");
    }
    if let Some(message) = &params.message {
        let _ = write!(line, " {message}");
    }
    eprintln!("{line}");
}

/// Pretty JSON of any result.
pub(crate) fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| format!("{{\"error\": \"cannot encode the result: {e}\"}}"))
}

/// `name — description`, with `title` in parentheses when there is one.
fn heading(name: &str, title: Option<&str>, description: Option<&str>) -> String {
    let mut line = name.to_string();
    if let Some(title) = title.filter(|t| *t != name) {
        let _ = write!(line, " ({title})");
    }
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        let _ = write!(line, " — {}", first_line(description));
    }
    line
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

/// Tools, one per line, with their parameters indented below.
pub(crate) fn tools(tools: &[Tool]) -> String {
    if tools.is_empty() {
        return "(no tools)".into();
    }
    let mut out = String::new();
    for tool in tools {
        let _ = writeln!(
            out,
            "{}",
            heading(
                &tool.name,
                tool.title.as_deref(),
                tool.description.as_deref()
            )
        );
        let schema = tool.input_schema.as_map();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (name, property) in properties {
            let kind = property
                .get("type")
                .map(|t| match t {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .unwrap_or_else(|| "any".into());
            let mut line = format!("    {name}: {kind}");
            if required.contains(&name.as_str()) {
                line.push_str(" (required)");
            }
            if let Some(d) = property.get("description").and_then(Value::as_str) {
                let _ = write!(line, " — {}", first_line(d));
            }
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// Size of base64 data in bytes, or a note that it is not base64.
fn size(base64: &str) -> String {
    match STANDARD.decode(base64) {
        Ok(bytes) => format!("{} bytes", bytes.len()),
        Err(_) => format!("{} characters, not valid base64", base64.len()),
    }
}

fn text_resource(out: &mut String, r: &TextResourceContents) {
    let mime = r.mime_type.as_deref().unwrap_or("no MIME type");
    let _ = writeln!(out, "[resource {} ({mime})]", r.uri);
    let _ = writeln!(out, "{}", r.text.trim_end_matches('\n'));
}

fn blob_resource(out: &mut String, r: &BlobResourceContents) {
    let mime = r.mime_type.as_deref().unwrap_or("no MIME type");
    let _ = writeln!(out, "[resource {} ({mime}), {}]", r.uri, size(&r.blob));
}

/// One content block.
fn content(out: &mut String, block: &ContentBlock) {
    match block {
        ContentBlock::Text(t) => {
            let _ = writeln!(out, "{}", t.text.trim_end_matches('\n'));
        }
        ContentBlock::Image(i) => {
            let _ = writeln!(out, "[image ({}), {}]", i.mime_type, size(&i.data));
        }
        ContentBlock::Audio(a) => {
            let _ = writeln!(out, "[audio ({}), {}]", a.mime_type, size(&a.data));
        }
        ContentBlock::ResourceLink(l) => {
            let _ = writeln!(out, "[resource link {} ({})]", l.uri, l.name);
        }
        ContentBlock::EmbeddedResource(e) => match &e.resource {
            EmbeddedResourceResource::TextResourceContents(r) => text_resource(out, r),
            EmbeddedResourceResource::BlobResourceContents(r) => blob_resource(out, r),
        },
    }
}

/// A tool result: its content blocks, or its structured content when it has
/// no content.
pub(crate) fn tool_result(result: &CallToolResult) -> String {
    let mut out = String::new();
    for block in &result.content {
        content(&mut out, block);
    }
    if result.content.is_empty() {
        match &result.structured_content {
            Some(structured) => out.push_str(&json(structured)),
            None => out.push_str("(no content)"),
        }
    }
    out
}

/// Resources, one per line.
pub(crate) fn resources(resources: &[Resource]) -> String {
    if resources.is_empty() {
        return "(no resources)".into();
    }
    let mut out = String::new();
    for r in resources {
        let mut line = format!("{}  {}", r.uri, r.name);
        if let Some(mime) = &r.mime_type {
            let _ = write!(line, " [{mime}]");
        }
        if let Some(d) = r.description.as_deref().filter(|d| !d.is_empty()) {
            let _ = write!(line, " — {}", first_line(d));
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Skills, one per line: URI, name and the first line of the
/// description.
pub(crate) fn skills(skills: &[mcp_core::skills::SkillEntry]) -> String {
    if skills.is_empty() {
        return "(no skills)".into();
    }
    let mut out = String::new();
    for s in skills {
        let mut line = format!("{}  {}", s.uri, s.name().unwrap_or("?"));
        if let Some(d) = s.description().filter(|d| !d.is_empty()) {
            let _ = write!(line, " — {}", first_line(d));
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Resource templates, one per line.
pub(crate) fn templates(templates: &[ResourceTemplate]) -> String {
    if templates.is_empty() {
        return "(no resource templates)".into();
    }
    let mut out = String::new();
    for t in templates {
        let mut line = format!("{}  {}", t.uri_template, t.name);
        if let Some(mime) = &t.mime_type {
            let _ = write!(line, " [{mime}]");
        }
        if let Some(d) = t.description.as_deref().filter(|d| !d.is_empty()) {
            let _ = write!(line, " — {}", first_line(d));
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The contents of a read resource: a single text as is, anything else
/// with a header per item.
pub(crate) fn read_result(result: &ReadResourceResult) -> String {
    if let [ReadResourceResultContentsItem::TextResourceContents(r)] = result.contents.as_slice() {
        return r.text.clone();
    }
    if result.contents.is_empty() {
        return "(no contents)".into();
    }
    let mut out = String::new();
    for item in &result.contents {
        match item {
            ReadResourceResultContentsItem::TextResourceContents(r) => text_resource(&mut out, r),
            ReadResourceResultContentsItem::BlobResourceContents(r) => blob_resource(&mut out, r),
        }
    }
    out
}

/// Prompts, one per line, with their arguments indented below.
pub(crate) fn prompts(prompts: &[Prompt]) -> String {
    if prompts.is_empty() {
        return "(no prompts)".into();
    }
    let mut out = String::new();
    for p in prompts {
        let _ = writeln!(
            out,
            "{}",
            heading(&p.name, p.title.as_deref(), p.description.as_deref())
        );
        for arg in p.arguments.iter().flatten() {
            let mut line = format!("    {}", arg.name);
            if arg.required == Some(true) {
                line.push_str(" (required)");
            }
            if let Some(d) = arg.description.as_deref().filter(|d| !d.is_empty()) {
                let _ = write!(line, " — {}", first_line(d));
            }
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// A rendered prompt: its description, then each message after its role.
pub(crate) fn prompt(result: &GetPromptResult) -> String {
    let mut out = String::new();
    if let Some(d) = &result.description {
        let _ = writeln!(out, "{d}");
    }
    for message in &result.messages {
        let _ = writeln!(out, "[{}]", message.role);
        content(&mut out, &message.content);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_results_show_every_kind_of_content() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAEC", "mimeType": "image/png"},
                {"type": "audio", "data": "!!", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "a://b", "mimeType": "text/plain", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "a://c", "blob": "AAAA"}},
                {"type": "resource_link", "uri": "a://d", "name": "d"}
            ]
        }))
        .unwrap();
        assert_eq!(
            tool_result(&result),
            "hello\n[image (image/png), 3 bytes]\n[audio (audio/wav), 2 characters, not valid base64]\n\
             [resource a://b (text/plain)]\ninside\n[resource a://c (no MIME type), 3 bytes]\n\
             [resource link a://d (d)]\n"
        );
        let structured: CallToolResult =
            serde_json::from_value(json!({"content": [], "structuredContent": {"a": 1}})).unwrap();
        assert_eq!(tool_result(&structured), "{\n  \"a\": 1\n}");
    }

    #[test]
    fn tools_show_their_parameters() {
        let tool: Tool = serde_json::from_value(json!({
            "name": "add",
            "description": "Adds\nmore text",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number", "description": "first"}, "b": {}},
                "required": ["a"]
            }
        }))
        .unwrap();
        assert_eq!(
            tools(&[tool]),
            "add — Adds\n    a: number (required) — first\n    b: any\n"
        );
        assert_eq!(tools(&[]), "(no tools)");
    }
}
