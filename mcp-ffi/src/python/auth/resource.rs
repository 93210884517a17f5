//! The server side: [`ResourceSettings`] (what
//! `libmcp.auth.ProtectedResource` passes down), built into a
//! [`ProtectedResource`] once the server knows its address, with a
//! [`TokenValidator`] that asks the user's Python verifier; and
//! [`auth_info_to_py`], the identity a handler's context shows.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use async_trait::async_trait;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use mcp_core::auth::{AuthInfo, ProtectedResource, TokenError, TokenValidator};

use super::{epoch_seconds, from_epoch_seconds};
use crate::python::convert::to_py;
use crate::python::invoke::{Invoker, invoke};

/// The code a verifier's invoker rejects with when the token is not
/// accepted (anything else means the verifier could not decide: 503).
const INVALID_TOKEN: i64 = 401;

/// A protected resource's settings, waiting for the server's address (the
/// default resource identifier is the served endpoint's URL).
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct ResourceSettings {
    resource: Option<String>,
    authorization_servers: Vec<String>,
    verifier: Arc<Invoker>,
    scopes_supported: Option<Vec<String>>,
    required_scopes: Vec<String>,
    method_scopes: HashMap<String, Vec<String>>,
    tool_scopes: HashMap<String, Vec<String>>,
    resource_name: Option<String>,
}

#[pymethods]
impl ResourceSettings {
    /// `verifier` is an invoker: given the token, it answers with the
    /// identity (`AccessToken.to_dict()`), None, or rejects with 401 (not
    /// accepted, with the reason) or another code (could not decide).
    #[new]
    #[pyo3(signature = (
        authorization_servers, verifier, *, resource = None, scopes_supported = None,
        required_scopes = Vec::new(), method_scopes = HashMap::new(), tool_scopes = HashMap::new(),
        resource_name = None
    ))]
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors the Python keyword arguments"
    )]
    fn new(
        authorization_servers: Vec<String>,
        verifier: Py<PyAny>,
        resource: Option<String>,
        scopes_supported: Option<Vec<String>>,
        required_scopes: Vec<String>,
        method_scopes: HashMap<String, Vec<String>>,
        tool_scopes: HashMap<String, Vec<String>>,
        resource_name: Option<String>,
    ) -> Self {
        Self {
            resource,
            authorization_servers,
            verifier: Invoker::shared(verifier),
            scopes_supported,
            required_scopes,
            method_scopes,
            tool_scopes,
            resource_name,
        }
    }
}

impl ResourceSettings {
    /// The protected resource of the endpoint served at `host` (as the user
    /// named it) and `bound`.
    pub(crate) fn build(&self, host: &str, bound: SocketAddr) -> PyResult<ProtectedResource> {
        let resource = match &self.resource {
            Some(resource) => resource.clone(),
            None if host.contains(':') && !host.starts_with('[') => {
                format!("http://[{host}]:{}/mcp", bound.port())
            }
            None => format!("http://{host}:{}/mcp", bound.port()),
        };
        let validator = PyValidator {
            verifier: self.verifier.clone(),
            resource: resource.clone(),
        };
        let mut builder =
            ProtectedResource::builder(resource, self.authorization_servers.clone(), validator)
                .required_scopes(self.required_scopes.clone());
        if let Some(scopes) = &self.scopes_supported {
            builder = builder.scopes_supported(scopes.clone());
        }
        for (method, scopes) in &self.method_scopes {
            builder = builder.method_scopes(method.clone(), scopes.clone());
        }
        for (tool, scopes) in &self.tool_scopes {
            builder = builder.tool_scopes(tool.clone(), scopes.clone());
        }
        if let Some(name) = &self.resource_name {
            builder = builder.resource_name(name.clone());
        }
        builder.build().map_err(|e| match e {
            mcp_core::Error::InvalidArgument(message) => PyValueError::new_err(message),
            other => PyValueError::new_err(other.to_string()),
        })
    }
}

/// An identity as the verifier's invoker answers it.
#[derive(Deserialize)]
struct WireIdentity {
    #[serde(default)]
    subject: String,
    /// Absent: the verifier vouches for the audience itself.
    #[serde(default)]
    audience: Option<Vec<String>>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    expires_at: Option<f64>,
    #[serde(default)]
    claims: Map<String, Value>,
}

struct PyValidator {
    verifier: Arc<Invoker>,
    resource: String,
}

#[async_trait]
impl TokenValidator for PyValidator {
    async fn validate(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let token = token.to_string();
        let answer = invoke(
            self.verifier.clone(),
            move |py| Ok(PyString::new(py, &token).into_any()),
            None,
        )
        .await;
        let value = match answer {
            Ok(Value::Null) => {
                return Err(TokenError::Invalid("the token was not accepted".into()));
            }
            Ok(value) => value,
            Err(e) if e.code.0 == INVALID_TOKEN => {
                return Err(TokenError::Invalid(e.message.into()));
            }
            Err(e) => return Err(TokenError::Unavailable(e.message.into())),
        };
        let wire: WireIdentity = serde_json::from_value(value).map_err(|e| {
            TokenError::Unavailable(format!("the token verifier returned a bad identity: {e}"))
        })?;
        let mut info = AuthInfo::new(wire.subject, self.resource.clone(), wire.scopes);
        if let Some(audience) = wire.audience {
            info.audience = audience;
        }
        info.client_id = wire.client_id;
        info.expires_at = match wire.expires_at {
            Some(at) => Some(from_epoch_seconds(at).ok_or_else(|| {
                TokenError::Unavailable(format!("the token verifier returned expires_at {at}"))
            })?),
            None => None,
        };
        info.extra = wire.claims;
        Ok(info)
    }
}

/// The identity a handler sees (`AccessToken.from_dict` reads it), or None.
pub(crate) fn auth_info_to_py<'py>(
    py: Python<'py>,
    info: Option<&AuthInfo>,
) -> PyResult<Bound<'py, PyAny>> {
    let value = match info {
        Some(info) => json!({
            "subject": info.subject,
            "audience": info.audience,
            "scopes": info.scopes,
            "client_id": info.client_id,
            "expires_at": info.expires_at.map(epoch_seconds),
            "claims": info.extra,
        }),
        None => Value::Null,
    };
    to_py(py, &value)
}
