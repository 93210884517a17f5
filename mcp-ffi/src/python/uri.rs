//! URI templates for the Python face: the engine's RFC 6570 parser, so that
//! a template the engine would refuse is refused when it is registered.

use mcp_core::uri_template::UriTemplate;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The variables of a URI template, in order (empty for a plain URI);
/// `ValueError` with the parser's message if it does not parse.
#[pyfunction]
pub(crate) fn uri_template_variables(template: &str) -> PyResult<Vec<String>> {
    let parsed = UriTemplate::parse(template).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(parsed.variables().map(str::to_owned).collect())
}
