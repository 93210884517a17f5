//! The client side: [`TokenStorage`] (a Python storage object behind
//! `mcp_core`'s [`TokenStore`], with a write-through cache so that the
//! token read before every HTTP request stays in Rust), [`PyUserAgent`]
//! (the user's redirect and callback handlers, and/or the loopback
//! listener) and [`oauth_provider`], which builds the [`OAuthClient`] that
//! `connect_http` hands the transport.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use reqwest::Url;
use serde::Deserialize;
use serde_json::{Value, json};

use mcp_core::auth::{
    AuthorizationResponse, AuthorizationUserAgent, ClientCredentials, GrantKind, LoopbackUserAgent,
    OAuthClient, Secret, TokenEndpointAuthMethod, TokenSet, TokenStore,
};
use mcp_core::{Error, Result};

use super::{epoch_seconds, from_epoch_seconds};
use crate::python::convert::to_py;
use crate::python::invoke::{Invoker, invoke};

/// The redirect URI of the default loopback listener (port 0: any free).
const DEFAULT_REDIRECT_URI: &str = "http://127.0.0.1:0/callback";
/// How long the user may take to authorize, by default.
const DEFAULT_AUTHORIZE_TIMEOUT: Duration = Duration::from_secs(300);

fn auth_error(message: impl Into<String>) -> Error {
    Error::Auth(message.into())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

// ------------------------------------------------------------ token store

/// Tokens as the Python side reads and writes them (`OAuthToken.to_dict`).
#[derive(Deserialize)]
struct WireTokens {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_at: Option<f64>,
    #[serde(default)]
    scope: Option<String>,
}

/// A client registration as the Python side reads and writes it
/// (`OAuthClientInfo.to_dict`).
#[derive(Deserialize)]
struct WireClient {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    token_endpoint_auth_method: Option<TokenEndpointAuthMethod>,
}

fn tokens_to_wire(tokens: &TokenSet) -> Value {
    json!({
        "access_token": tokens.access_token.expose(),
        "refresh_token": tokens.refresh_token.as_ref().map(Secret::expose),
        "expires_at": tokens.expires_at.map(epoch_seconds),
        "scope": tokens.scope,
    })
}

fn tokens_from_wire(value: Value) -> Result<Option<TokenSet>> {
    if value.is_null() {
        return Ok(None);
    }
    let wire: WireTokens = serde_json::from_value(value)
        .map_err(|e| auth_error(format!("the token storage returned bad tokens: {e}")))?;
    let mut tokens = TokenSet::bearer(wire.access_token);
    tokens.refresh_token = wire.refresh_token.map(Secret::new);
    tokens.expires_at = wire.expires_at.and_then(from_epoch_seconds);
    tokens.scope = wire.scope;
    Ok(Some(tokens))
}

fn client_to_wire(client: &ClientCredentials) -> Value {
    json!({
        "client_id": client.client_id,
        "client_secret": client.client_secret.as_ref().map(Secret::expose),
        "token_endpoint_auth_method": client.auth_method.map(TokenEndpointAuthMethod::as_str),
    })
}

fn client_from_wire(value: Value) -> Result<Option<ClientCredentials>> {
    if value.is_null() {
        return Ok(None);
    }
    let wire: WireClient = serde_json::from_value(value).map_err(|e| {
        auth_error(format!(
            "the token storage returned a bad client registration: {e}"
        ))
    })?;
    let mut client = ClientCredentials::new(wire.client_id);
    if let Some(secret) = wire.client_secret {
        client = client.with_secret(secret);
    }
    if let Some(method) = wire.token_endpoint_auth_method {
        client = client.with_auth_method(method);
    }
    Ok(Some(client))
}

/// A Python token storage: every operation is `invoker((op, key, value))`
/// with `op` one of `get_tokens`, `set_tokens`, `remove_tokens`,
/// `get_client_info`, `set_client_info`. What was read or written is kept
/// here too, so the storage is asked once per key.
#[pyclass(frozen, module = "libmcp._libmcp")]
pub(crate) struct TokenStorage {
    store: Arc<PyTokenStore>,
}

impl fmt::Debug for TokenStorage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.store.fmt(f)
    }
}

#[pymethods]
impl TokenStorage {
    /// A store over the storage invoker `invoker`.
    #[new]
    fn new(invoker: Py<PyAny>) -> Self {
        Self {
            store: Arc::new(PyTokenStore {
                invoker: Invoker::shared(invoker),
                tokens: Mutex::default(),
                clients: Mutex::default(),
            }),
        }
    }
}

struct PyTokenStore {
    invoker: Arc<Invoker>,
    tokens: Mutex<HashMap<String, Option<TokenSet>>>,
    clients: Mutex<HashMap<String, Option<ClientCredentials>>>,
}

impl fmt::Debug for PyTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PyTokenStore")
            .field("cached_tokens", &lock(&self.tokens).len())
            .field("cached_clients", &lock(&self.clients).len())
            .finish()
    }
}

impl PyTokenStore {
    async fn call(&self, op: &'static str, key: &str, value: Value) -> Result<Value> {
        let key = key.to_string();
        invoke(
            self.invoker.clone(),
            move |py| {
                let items = [
                    PyString::new(py, op).into_any(),
                    PyString::new(py, &key).into_any(),
                    to_py(py, &value)?,
                ];
                Ok(PyTuple::new(py, items)?.into_any())
            },
            None,
        )
        .await
        .map_err(|e| auth_error(format!("the token storage's {op} failed: {}", e.message)))
    }
}

#[async_trait]
impl TokenStore for PyTokenStore {
    async fn tokens(&self, resource: &str) -> Result<Option<TokenSet>> {
        if let Some(known) = lock(&self.tokens).get(resource) {
            return Ok(known.clone());
        }
        let tokens = tokens_from_wire(self.call("get_tokens", resource, Value::Null).await?)?;
        lock(&self.tokens).insert(resource.to_string(), tokens.clone());
        Ok(tokens)
    }

    async fn save_tokens(&self, resource: &str, tokens: TokenSet) -> Result<()> {
        self.call("set_tokens", resource, tokens_to_wire(&tokens))
            .await?;
        lock(&self.tokens).insert(resource.to_string(), Some(tokens));
        Ok(())
    }

    async fn remove_tokens(&self, resource: &str) -> Result<()> {
        self.call("remove_tokens", resource, Value::Null).await?;
        lock(&self.tokens).insert(resource.to_string(), None);
        Ok(())
    }

    async fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>> {
        if let Some(known) = lock(&self.clients).get(issuer) {
            return Ok(known.clone());
        }
        let client = client_from_wire(self.call("get_client_info", issuer, Value::Null).await?)?;
        lock(&self.clients).insert(issuer.to_string(), client.clone());
        Ok(client)
    }

    async fn save_client(&self, issuer: &str, client: ClientCredentials) -> Result<()> {
        self.call("set_client_info", issuer, client_to_wire(&client))
            .await?;
        lock(&self.clients).insert(issuer.to_string(), Some(client));
        Ok(())
    }
}

// ------------------------------------------------------------- user agent

/// How the user authorizes: the Python `redirect_handler` (given the
/// authorization URL; may answer with the code itself), the Python
/// `callback_handler` (answers with the code), and/or the loopback listener
/// on the redirect URI, whichever brings the answer first.
struct PyUserAgent {
    redirect_uri: String,
    redirect: Option<Arc<Invoker>>,
    callback: Option<Arc<Invoker>>,
    loopback: Option<LoopbackUserAgent>,
    timeout: Duration,
}

impl fmt::Debug for PyUserAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PyUserAgent")
            .field("redirect_uri", &self.redirect_uri)
            .field("redirect_handler", &self.redirect.is_some())
            .field("callback_handler", &self.callback.is_some())
            .field("loopback", &self.loopback)
            .finish()
    }
}

/// Reads what a handler answered: `None`, `{"url": redirect URL}` or
/// `{"code", "state", "iss", "error", "error_description"}`.
fn response_from_wire(value: Value, who: &str) -> Result<Option<AuthorizationResponse>> {
    let Value::Object(map) = value else {
        return match value {
            Value::Null => Ok(None),
            other => Err(auth_error(format!("the {who} returned {other}"))),
        };
    };
    let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
    if let Some(url) = text("url") {
        let url = Url::parse(&url).map_err(|e| {
            auth_error(format!(
                "the {who} returned a bad redirect URL `{url}`: {e}"
            ))
        })?;
        return Ok(Some(AuthorizationResponse::from_redirect(&url)));
    }
    let mut response = AuthorizationResponse::default();
    response.code = text("code").map(Secret::new);
    response.state = text("state");
    response.iss = text("iss");
    response.error = text("error");
    response.error_description = text("error_description");
    if response.code.is_none() && response.error.is_none() {
        return Err(auth_error(format!(
            "the {who} returned neither an authorization code nor an error"
        )));
    }
    Ok(Some(response))
}

impl PyUserAgent {
    /// The Python handlers' answer, if they give one.
    async fn ask_python(&self, url: &Url) -> Result<Option<AuthorizationResponse>> {
        if let Some(redirect) = &self.redirect {
            let url = url.to_string();
            let answer = invoke(
                redirect.clone(),
                move |py| Ok(PyString::new(py, &url).into_any()),
                None,
            )
            .await
            .map_err(|e| auth_error(format!("the redirect handler failed: {}", e.message)))?;
            if let Some(response) = response_from_wire(answer, "redirect handler")? {
                return Ok(Some(response));
            }
        }
        if let Some(callback) = &self.callback {
            let answer = invoke(callback.clone(), |py| Ok(py.None().into_bound(py)), None)
                .await
                .map_err(|e| auth_error(format!("the callback handler failed: {}", e.message)))?;
            return match response_from_wire(answer, "callback handler")? {
                Some(response) => Ok(Some(response)),
                None => Err(auth_error(
                    "the callback handler returned no authorization code",
                )),
            };
        }
        Ok(None)
    }

    async fn run(&self, url: &Url) -> Result<AuthorizationResponse> {
        let Some(loopback) = &self.loopback else {
            return self
                .ask_python(url)
                .await?
                .ok_or_else(|| auth_error("the redirect handler returned no authorization code"));
        };
        let listening = loopback.authorize(url);
        tokio::pin!(listening);
        tokio::select! {
            answer = self.ask_python(url) => match answer? {
                Some(response) => Ok(response),
                None => listening.await,
            },
            answer = &mut listening => answer,
        }
    }
}

#[async_trait]
impl AuthorizationUserAgent for PyUserAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    async fn authorize(&self, url: &Url) -> Result<AuthorizationResponse> {
        match tokio::time::timeout(self.timeout, self.run(url)).await {
            Ok(answer) => answer,
            Err(_) => Err(auth_error(format!(
                "nobody completed the authorization within {:?}",
                self.timeout
            ))),
        }
    }
}

// ---------------------------------------------------------------- builder

/// An OAuth client for one endpoint, ready to hand `connect_http`.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct OAuthProvider {
    client: Arc<OAuthClient>,
}

impl OAuthProvider {
    /// The provider for the transport.
    pub(crate) fn client(&self) -> Arc<OAuthClient> {
        self.client.clone()
    }
}

fn setting<'py, T>(settings: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>>
where
    T: pyo3::conversion::FromPyObjectOwned<'py>,
{
    match settings.get_item(key)? {
        Some(value) if !value.is_none() => value
            .extract::<T>()
            .map(Some)
            .map_err(|e| PyTypeError::new_err(format!("OAuth option {key}: {}", e.into()))),
        _ => Ok(None),
    }
}

fn seconds(key: &str, value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| PyValueError::new_err(format!("{key} must be a positive number of seconds")))
}

fn invalid(e: Error) -> PyErr {
    PyValueError::new_err(match e {
        Error::InvalidArgument(message) => message,
        other => other.to_string(),
    })
}

/// Builds the OAuth client of the MCP endpoint `url` from the `OAuth`
/// object's `settings` (`client_name`, `scope`, `client_id`,
/// `client_secret`, `token_endpoint_auth_method`, `client_metadata_url`,
/// `grant`, `redirect_uri`, `timeout`, `http_timeout`,
/// `allow_insecure_http`), its `storage` and the invokers of its
/// `redirect_handler` (given the URL) and `callback_handler` (given None).
#[pyfunction]
#[pyo3(signature = (url, settings, storage, *, redirect = None, callback = None))]
pub(crate) fn oauth_provider(
    url: String,
    settings: &Bound<'_, PyDict>,
    storage: &TokenStorage,
    redirect: Option<Py<PyAny>>,
    callback: Option<Py<PyAny>>,
) -> PyResult<OAuthProvider> {
    let mut builder = OAuthClient::builder(url)
        .token_store(storage.store.clone())
        .allow_insecure_http(setting(settings, "allow_insecure_http")?.unwrap_or(false));
    if let Some(name) = setting::<String>(settings, "client_name")? {
        builder = builder.client_name(name);
    }
    if let Some(scope) = setting::<String>(settings, "scope")? {
        builder = builder.scope(scope);
    }
    if let Some(id) = setting::<String>(settings, "client_id")? {
        let mut credentials = ClientCredentials::new(id);
        if let Some(secret) = setting::<String>(settings, "client_secret")? {
            credentials = credentials.with_secret(secret);
        }
        if let Some(method) = setting::<String>(settings, "token_endpoint_auth_method")? {
            let parsed: TokenEndpointAuthMethod = serde_json::from_value(Value::String(method))
                .map_err(|_| {
                    PyValueError::new_err(
                        "token_endpoint_auth_method is client_secret_basic, client_secret_post or none",
                    )
                })?;
            credentials = credentials.with_auth_method(parsed);
        }
        builder = builder.pre_registered(credentials);
    }
    if let Some(document) = setting::<String>(settings, "client_metadata_url")? {
        builder = builder.client_metadata_url(document);
    }
    match setting::<String>(settings, "grant")?.as_deref() {
        None | Some("authorization_code") => {}
        Some("client_credentials") => builder = builder.grant(GrantKind::ClientCredentials),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "grant is 'authorization_code' or 'client_credentials', not {other:?}"
            )));
        }
    }
    if let Some(timeout) = setting::<f64>(settings, "http_timeout")? {
        builder = builder.http_timeout(seconds("http_timeout", timeout)?);
    }
    let timeout = match setting::<f64>(settings, "timeout")? {
        Some(t) => seconds("timeout", t)?,
        None => DEFAULT_AUTHORIZE_TIMEOUT,
    };
    let redirect_uri: String =
        setting(settings, "redirect_uri")?.unwrap_or_else(|| DEFAULT_REDIRECT_URI.into());
    // The loopback listener receives the redirect unless the user's own
    // callback handler does.
    let loopback = match callback {
        Some(_) => None,
        None => Some(listen(&redirect_uri, redirect.is_some(), timeout)?),
    };
    let agent = PyUserAgent {
        redirect_uri: match &loopback {
            Some(listener) => listener.redirect_uri(),
            None => redirect_uri,
        },
        redirect: redirect.map(Invoker::shared),
        callback: callback.map(Invoker::shared),
        loopback,
        timeout,
    };
    let client = builder
        .user_agent(Arc::new(agent))
        .build()
        .map_err(invalid)?;
    Ok(OAuthProvider { client })
}

/// Binds the loopback listener; it shows the URL on stderr unless the
/// user's redirect handler does.
fn listen(redirect_uri: &str, quiet: bool, timeout: Duration) -> PyResult<LoopbackUserAgent> {
    let listener = LoopbackUserAgent::new(redirect_uri)
        .map_err(|e| {
            PyValueError::new_err(format!(
                "{} (give a callback_handler to receive the redirect elsewhere)",
                match e {
                    Error::InvalidArgument(message) => message,
                    other => other.to_string(),
                }
            ))
        })?
        .timeout(timeout);
    Ok(if quiet {
        listener.on_url(|_| {})
    } else {
        listener
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_through_the_wire_form() {
        let mut tokens = TokenSet::bearer("tok");
        tokens.refresh_token = Some(Secret::new("ref"));
        tokens.scope = Some("a b".into());
        tokens.expires_at = from_epoch_seconds(1_900_000_000.5);
        let back = tokens_from_wire(tokens_to_wire(&tokens)).unwrap().unwrap();
        assert_eq!(back, tokens);
        assert!(tokens_from_wire(Value::Null).unwrap().is_none());
        assert!(tokens_from_wire(json!({"scope": "x"})).is_err());
    }

    #[test]
    fn handler_answers_are_read() {
        let r = response_from_wire(json!({"url": "http://127.0.0.1:1/cb?code=c&state=s"}), "h")
            .unwrap()
            .unwrap();
        assert_eq!(r.code.as_ref().map(Secret::expose), Some("c"));
        assert_eq!(r.state.as_deref(), Some("s"));
        let r = response_from_wire(json!({"code": "c", "state": null}), "h")
            .unwrap()
            .unwrap();
        assert_eq!(r.code.as_ref().map(Secret::expose), Some("c"));
        assert!(response_from_wire(Value::Null, "h").unwrap().is_none());
        assert!(response_from_wire(json!({"state": "s"}), "h").is_err());
        assert!(response_from_wire(json!(3), "h").is_err());
    }
}
