//! Configuring a client before it connects (timeout, revision, callbacks,
//! roots), connecting it over stdio or HTTP, and what the server said.

use super::*;

/// Sets the default timeout of this client's requests, including the
/// `initialize` handshake (default 60 s); per-call options can override it.
/// Only before connecting.
///
/// # Safety
/// `client` is NULL or a live client.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_set_timeout(
    client: *const Client,
    timeout_ms: u64,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        if timeout_ms == 0 {
            return Err(Failure::invalid("`timeout_ms` must be more than 0"));
        }
        client.configure(|c| c.timeout = Some(Duration::from_millis(timeout_ms)))
    })
}

/// Speaks this protocol revision only (e.g. `"2025-06-18"`): the same as
/// `mcp_client_set_protocol` with a revision. Only before connecting.
///
/// # Safety
/// `client` is NULL or a live client; `version` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_set_protocol_version(
    client: *const Client,
    version: *const c_char,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let text = arg!(str version);
        let version = mcp_host::parse_revision(text)?;
        client.configure(|c| c.negotiation = Negotiation::Pinned(version))
    })
}

/// Chooses how the protocol revision is agreed when connecting:
/// - `"auto"` (the default): the newest revision both sides speak, probed
///   with `server/discover` (2026-07-28) and falling back to `initialize`
///   for older servers;
/// - `"legacy"`: `initialize` only (2025-11-25 and older);
/// - a revision such as `"2026-07-28"` or `"2025-11-25"`: that one only; a
///   server that does not speak it fails the connect.
///
/// Anything else fails with `MCP_ERR_INVALID_ARGUMENT`, the message naming
/// the accepted values. The callbacks (sampling, elicitation, roots) answer
/// the server the same way at every revision: under 2026-07-28 the library
/// calls them for the input-required rounds of the request that needs them
/// and retries it. `mcp_client_protocol_version` tells which revision was
/// agreed. Only before connecting.
///
/// # Safety
/// `client` is NULL or a live client; `protocol` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_set_protocol(
    client: *const Client,
    protocol: *const c_char,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let text = arg!(str protocol);
        let negotiation = mcp_host::parse_negotiation(text)?;
        client.configure(|c| c.negotiation = negotiation)
    })
}

/// Shared body of the `mcp_client_on_*` setters: checks the arguments and
/// stores the callback with its userdata in the configuration.
///
/// # Safety
/// `client` is NULL or a live client.
unsafe fn set_callback<C>(
    client: *const Client,
    callback: Option<C>,
    userdata: *mut c_void,
    store: impl FnOnce(&mut ClientConfig, (C, Userdata)),
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        client.configure(|c| store(c, (callback, Userdata(userdata))))
    })
}

/// Sets the callback that receives the server's notifications (see
/// `mcp_notification_callback`). `userdata` must stay valid until the client
/// is freed. Only before connecting.
///
/// # Safety
/// `client` is NULL or a live client; `callback` is NULL or a function of the
/// `mcp_notification_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_on_notification(
    client: *const Client,
    callback: NotificationCallback,
    userdata: *mut c_void,
) -> McpResult {
    // SAFETY: forwarded from the caller.
    unsafe {
        set_callback(client, callback, userdata, |c, set| {
            c.notification = Some(set)
        })
    }
}

/// Sets the callback that answers the server's `sampling/createMessage`
/// requests, and so declares the `sampling` capability (see
/// `mcp_request_callback`). `userdata` must stay valid until the client is
/// freed. Only before connecting.
///
/// # Safety
/// `client` is NULL or a live client; `callback` is NULL or a function of the
/// `mcp_request_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_on_sampling(
    client: *const Client,
    callback: RequestCallback,
    userdata: *mut c_void,
) -> McpResult {
    // SAFETY: forwarded from the caller.
    unsafe { set_callback(client, callback, userdata, |c, set| c.sampling = Some(set)) }
}

/// Sets the callback that answers the server's `elicitation/create` requests
/// (form mode), and so declares the `elicitation` capability (see
/// `mcp_request_callback`). `userdata` must stay valid until the client is
/// freed. Only before connecting.
///
/// # Safety
/// As for `mcp_client_on_sampling`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_on_elicitation(
    client: *const Client,
    callback: RequestCallback,
    userdata: *mut c_void,
) -> McpResult {
    // SAFETY: forwarded from the caller.
    unsafe {
        set_callback(client, callback, userdata, |c, set| {
            c.elicitation = Some(set)
        })
    }
}

/// Sets the callback that receives each line the server process writes to
/// its stderr (`mcp_client_connect_stdio` only; see `mcp_stderr_callback`).
/// Without one, those lines are dropped. Only before connecting.
///
/// # Safety
/// `client` is NULL or a live client; `callback` is NULL or a function of the
/// `mcp_stderr_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_on_stderr(
    client: *const Client,
    callback: StderrCallback,
    userdata: *mut c_void,
) -> McpResult {
    // SAFETY: forwarded from the caller.
    unsafe { set_callback(client, callback, userdata, |c, set| c.stderr = Some(set)) }
}

/// Sets the roots offered to the server: a JSON array of `Root` objects
/// (`[{"uri":"file:///home/me/project","name":"project"}]`). Before
/// connecting this declares the `roots` capability, and the library answers
/// the server's `roots/list` requests with the current list. After
/// connecting (only if roots were set before) it replaces the list and sends
/// `notifications/roots/list_changed`.
///
/// # Safety
/// `client` is NULL or a live client; `roots_json` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_set_roots(
    client: *const Client,
    roots_json: *const c_char,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let roots: Vec<Root> = arg!(json roots_json);
        let connected = match &mut *client.lock() {
            ClientState::Configuring(config) => {
                config.roots = Some(roots);
                return Ok(());
            }
            ClientState::Connected(core) => core.clone(),
            ClientState::Connecting => {
                return Err(Failure::state("the client is still connecting"));
            }
            ClientState::Closed => return Err(Failure::closed("the client was closed")),
        };
        run(&client.handle, None, |_| async move {
            connected.set_roots(roots).await.map_err(|e| match e {
                mcp_core::Error::InvalidArgument(m) => Failure::state(format!(
                    "{m} (call mcp_client_set_roots before connecting to declare roots)"
                )),
                other => other.into(),
            })
        })
    })
}

/// Starts `command` as a child process and connects to it over its stdin and
/// stdout, then initializes the session (blocking until the server answers,
/// up to the client's timeout).
///
/// `args` is the NULL-terminated list of arguments after the program name
/// (NULL for none). The child does not inherit this process's environment:
/// it gets a small safe set (`PATH`, `HOME`, `LANG`, `TERM`, `USER`, …) plus
/// the `"NAME=value"` entries of the NULL-terminated `envp` (NULL for none).
/// Its stderr goes to the `mcp_client_on_stderr` callback. Closing or freeing
/// the client closes the child's stdin, then after 2 s sends SIGTERM, then
/// after 2 s more SIGKILL, to its process group. If the process dies, pending
/// and later calls fail with `MCP_ERR_CLOSED`.
///
/// # Safety
/// `client` is NULL or a live client; `command` is NULL or NUL-terminated;
/// `args` and `envp` are NULL or NULL-terminated arrays of NUL-terminated
/// strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_connect_stdio(
    client: *const Client,
    command: *const c_char,
    args: *const *const c_char,
    envp: *const *const c_char,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let command = arg!(str command).to_string();
        let args = arg!(str_list args);
        let envp = arg!(str_list envp);
        let mut env = Vec::with_capacity(envp.len());
        for entry in &envp {
            let Some((name, value)) = entry.split_once('=') else {
                return Err(Failure::invalid(format!(
                    "environment entry `{entry}` is not NAME=value"
                )));
            };
            if name.is_empty() {
                return Err(Failure::invalid(format!(
                    "environment entry `{entry}` has no name"
                )));
            }
            env.push((name.to_string(), value.to_string()));
        }
        client.connect(|config, events| {
            let mut child = ChildProcess::new(command).args(args);
            for (name, value) in env {
                child = child.env(name, value);
            }
            if config.stderr.is_some() {
                let events = events.clone();
                child = child.on_stderr(move |line| {
                    let _ = events.send(Event::Stderr(line.to_string()));
                });
            } else {
                child = child.on_stderr(|_| {});
            }
            Ok(child)
        })
    })
}

/// Connects to the Streamable HTTP endpoint at `url`
/// (`"http://127.0.0.1:8080/mcp"`) and initializes the session. `headers` is
/// a NULL-terminated list of `"Name: value"` strings sent with every request
/// (e.g. `"Authorization: Bearer …"`), or NULL. A request that cannot be sent
/// (connection refused or reset, here or later) fails with
/// `MCP_ERR_TRANSPORT`.
///
/// # Safety
/// `client` is NULL or a live client; `url` is NULL or NUL-terminated;
/// `headers` is NULL or a NULL-terminated array of NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_connect_http(
    client: *const Client,
    url: *const c_char,
    headers: *const *const c_char,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let url = arg!(str url);
        let headers = arg!(str_list headers);
        let mut transport = StreamableHttpClient::new(url);
        for header in &headers {
            let Some((name, value)) = header.split_once(':') else {
                return Err(Failure::invalid(format!(
                    "header `{header}` is not `Name: value`"
                )));
            };
            transport = transport.header(name.trim(), value.trim())?;
        }
        client.connect(|_, _| Ok(transport))
    })
}

/// Writes what the server said when it initialized:
/// `{"protocolVersion":"…","capabilities":{…},"serverInfo":{"name":…,"version":…},"instructions":"…"}`
/// (`instructions` only if it gave some).
///
/// # Safety
/// `client` is NULL or a live client; `info_json` is NULL or points to
/// writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_server_info(
    client: *const Client,
    info_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string info_json);
        let client = arg!(handle client);
        let core = client.connected()?;
        let mut info = json!({
            "protocolVersion": core.protocol_version().as_str(),
            "capabilities": core.server_capabilities(),
            "serverInfo": core.server_info(),
        });
        if let (Some(instructions), Some(object)) = (core.instructions(), info.as_object_mut()) {
            object.insert("instructions".into(), Value::String(instructions.into()));
        }
        out.set(&to_json(&info)?)
    })
}

/// The protocol revision agreed with the server, such as `"2026-07-28"`, or
/// NULL if the client is NULL or not connected (see
/// `mcp_last_error_message()`). The string is the library's and static:
/// never free it; it stays valid for the life of the program.
///
/// # Safety
/// `client` is NULL or a live client.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_protocol_version(client: *const Client) -> *const c_char {
    boundary_or(std::ptr::null(), || {
        let revision = (|| {
            let client = arg!(handle client);
            Ok::<_, Failure>(client.connected()?.protocol_version())
        })();
        match revision {
            Ok(revision) => revision_name(revision),
            Err(failure) => {
                failure.record();
                std::ptr::null()
            }
        }
    })
}

/// A revision's name as a static C string.
fn revision_name(revision: ProtocolVersion) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<(ProtocolVersion, std::ffi::CString)>> =
        std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        ProtocolVersion::ALL
            .iter()
            .map(|v| (*v, c_string_lossy(v.as_str())))
            .collect()
    });
    names
        .iter()
        .find(|(v, _)| *v == revision)
        .map_or(std::ptr::null(), |(_, name)| name.as_ptr())
}
