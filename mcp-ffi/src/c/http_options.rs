//! `mcp_http_options`: how `mcp_server_start_http` serves Streamable HTTP —
//! the bind address, accepted hosts, stateless and JSON modes, limits, the
//! store shared with other replicas. A
//! builder object, so that options can be added without breaking the ABI.

use std::ffi::c_char;
use std::net::SocketAddr;
use std::time::Duration;

use mcp_core::http::{HostPolicy, HttpServerConfig};

use super::error::{Failure, McpResult};
use super::ffi::{arg, boundary, boundary_or, take_handle};

/// Options for serving Streamable HTTP (`mcp_server_start_http`): made by
/// `mcp_http_options_new` with the defaults, changed by the
/// `mcp_http_options_*` setters, freed with `mcp_http_options_free`. The
/// server copies what it needs: the options may be freed or reused once
/// `mcp_server_start_http` returns. Not for use by several threads at once.
///
/// Defaults: address `127.0.0.1:0` (loopback, any free port), only loopback
/// `Host`/`Origin` names accepted, sessions, SSE answers, a request body of at
/// most 4 MiB, a request head of at most 32 KiB, at most 10,000 sessions,
/// sessions idle for 30 minutes ended.
#[derive(Debug)]
pub struct HttpOptions {
    pub(crate) address: SocketAddr,
    pub(crate) config: HttpServerConfig,
    /// `redis://…`: connected to when serving starts.
    pub(crate) store: Option<String>,
}

/// The body of an `mcp_http_options_*` setter, in the panic boundary:
/// `$o` is the options behind `$options` (NULL is `MCP_ERR_NULL_ARGUMENT`)
/// for `$set`, which may fail with `?` (the options are then unchanged).
/// Only in a setter whose `# Safety` promises `$options` is NULL or live
/// options not used by another thread meanwhile.
macro_rules! set {
    ($options:ident, |$o:ident| $set:expr) => {
        boundary(|| {
            let $o: &mut HttpOptions = arg!(handle_mut $options);
            $set;
            Ok(())
        })
    };
}

fn at_least_one(name: &str, value: usize) -> Result<usize, Failure> {
    if value == 0 {
        return Err(Failure::invalid(format!("`{name}` must be at least 1")));
    }
    Ok(value)
}

/// Makes options with the defaults; `*options_out` receives them, to be
/// freed with `mcp_http_options_free`.
///
/// # Safety
/// `options_out` is NULL or points to writable memory for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_new(options_out: *mut *mut HttpOptions) -> McpResult {
    boundary(|| {
        arg!(out_handle options_out).give(HttpOptions {
            address: SocketAddr::from(([127, 0, 0, 1], 0)),
            config: HttpServerConfig::default(),
            store: None,
        });
        Ok(())
    })
}

/// Frees options. NULL is a no-op.
///
/// # Safety
/// `options` is NULL or options from `mcp_http_options_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_free(options: *mut HttpOptions) {
    boundary_or((), || {
        // SAFETY: NULL or from `mcp_http_options_new`, given up by the caller.
        drop(unsafe { take_handle(options) });
    });
}

/// Sets the address to listen on, such as `"0.0.0.0:8080"` or
/// `"[::]:8080"` (default `"127.0.0.1:0"`; port 0 picks a free port).
/// Listening on a non-loopback address needs `mcp_http_options_allow_host`
/// (or `mcp_http_options_allow_any_host`) for the names clients use.
///
/// # Safety
/// `options` is NULL or live options; `address` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_address(
    options: *mut HttpOptions,
    address: *const c_char,
) -> McpResult {
    set!(options, |o| {
        let text = arg!(str address);
        o.address = parse_address(text)?;
    })
}

pub(crate) fn parse_address(text: &str) -> Result<SocketAddr, Failure> {
    text.parse().map_err(|e| {
        Failure::invalid(format!(
            "`{text}` is not an address such as 127.0.0.1:8080: {e}"
        ))
    })
}

/// Accepts `host` (`"mcp.example.com"`, `"mcp.example.com:8443"`, compared
/// without regard to case) as the `Host` header, and as the host of an
/// `Origin` header when a request has one (DNS-rebinding protection). The
/// first call replaces the default, which accepts only loopback names
/// (`localhost`, `127.0.0.1`, `[::1]`, any port); list those too if loopback
/// clients should still be served. Call once per name.
///
/// # Safety
/// `options` is NULL or live options; `host` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_allow_host(
    options: *mut HttpOptions,
    host: *const c_char,
) -> McpResult {
    set!(options, |o| {
        let host = arg!(str host);
        if host.is_empty() {
            return Err(Failure::invalid("`host` must not be empty"));
        }
        match &mut o.config.host_policy {
            HostPolicy::AllowList(hosts) => hosts.push(host.to_string()),
            other => *other = HostPolicy::AllowList(vec![host.to_string()]),
        }
    })
}

/// Accepts any `Host` and `Origin` (`true`; for a server behind a proxy that
/// checks them), or goes back to the default loopback-only check (`false`,
/// which also forgets the hosts allowed so far).
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_allow_any_host(
    options: *mut HttpOptions,
    any: bool,
) -> McpResult {
    set!(options, |o| {
        o.config.host_policy = if any {
            HostPolicy::Any
        } else {
            HostPolicy::Loopback
        };
    })
}

/// Serves without sessions when `true`: every POST stands alone (no
/// `Mcp-Session-Id`, no GET stream; default `false`).
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_stateless(
    options: *mut HttpOptions,
    stateless: bool,
) -> McpResult {
    set!(options, |o| o.config.stateless = stateless)
}

/// Answers every request with one `application/json` body, never an SSE
/// stream, when `true` (default `false`). Messages a callback sends before
/// its result (progress, logs) then go to the session's GET stream.
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_json_response(
    options: *mut HttpOptions,
    json: bool,
) -> McpResult {
    set!(options, |o| o.config.json_response = json)
}

/// Cancels a request whose client goes away before its answer, as if the
/// client had cancelled it (`mcp_context_is_cancelled` turns true), when
/// `true` (default `false`: the callback runs to the end).
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_cancel_on_disconnect(
    options: *mut HttpOptions,
    cancel: bool,
) -> McpResult {
    set!(options, |o| o.config.cancel_on_disconnect = cancel)
}

/// The largest request body in bytes (at least 1; default 4 MiB); a larger
/// one is answered 413.
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_max_body_size(
    options: *mut HttpOptions,
    bytes: usize,
) -> McpResult {
    set!(options, |o| o.config.max_body_size =
        at_least_one("bytes", bytes)?)
}

/// The largest total size of a request's header fields in bytes (at least 1;
/// default 32 KiB); larger is answered 431. The HTTP layer's own limits
/// (a head over about 400 KiB, or over 100 fields) apply first.
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_max_header_size(
    options: *mut HttpOptions,
    bytes: usize,
) -> McpResult {
    set!(options, |o| o.config.max_header_size =
        at_least_one("bytes", bytes)?)
}

/// The most sessions open at once (at least 1; default 10,000); an
/// `initialize` beyond that is answered 503.
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_max_sessions(
    options: *mut HttpOptions,
    sessions: usize,
) -> McpResult {
    set!(options, |o| o.config.max_sessions =
        at_least_one("sessions", sessions)?)
}

/// Ends sessions that have been idle for `milliseconds` (at least 1;
/// default 30 minutes).
///
/// # Safety
/// `options` is NULL or live options.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_idle_timeout_ms(
    options: *mut HttpOptions,
    milliseconds: u64,
) -> McpResult {
    set!(options, |o| {
        if milliseconds == 0 {
            return Err(Failure::invalid("`milliseconds` must be at least 1"));
        }
        o.config.idle_timeout = Duration::from_millis(milliseconds);
    })
}

/// Shares sessions, stream events, tasks, changes and the `requestState`
/// key with the other replicas of this server through the store at `url`
/// (`"redis://HOST:PORT/DB"`, `"rediss://…"`, with `user:password@` if
/// needed), so that a load balancer may send any request to any replica.
/// NULL or `""` goes back to the default: everything in this process only.
/// `mcp_server_start_http` connects and fails with `MCP_ERR_TRANSPORT`,
/// naming the store, if it does not answer within a few seconds.
///
/// # Safety
/// `options` is NULL or live options; `url` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_http_options_set_store(
    options: *mut HttpOptions,
    url: *const c_char,
) -> McpResult {
    set!(options, |o| {
        o.store = match arg!(opt_str url).unwrap_or("") {
            "" => None,
            url if url.starts_with("redis://") || url.starts_with("rediss://") => {
                Some(url.to_string())
            }
            other => {
                return Err(Failure::invalid(format!(
                    "`{other}` is not a store address such as redis://127.0.0.1:6379/0"
                )));
            }
        };
    })
}
