//! RFC 6570 templates: parsing any text, and matching any URI against any
//! template that parses, in bounded time (libFuzzer's -timeout catches a
//! slow match). What matches names only the template's variables.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_core::uri_template::UriTemplate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The template, then the URI after the first newline.
    let (template, uri) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(template) = UriTemplate::parse(template) else {
        return;
    };
    assert!(template.as_str() == text.split('\n').next().unwrap_or_default());
    if let Some(values) = template.matches(uri) {
        for name in values.keys() {
            assert!(
                template.variables().any(|v| v == name),
                "{name} is not a variable of {}",
                template.as_str()
            );
        }
    }
});
