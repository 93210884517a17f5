//! Serving: stdio (blocking), Streamable HTTP (in the background, with
//! options), waiting for the server to stop, and stopping it.

use super::*;

/// Serves one client over this process's stdin and stdout, blocking the
/// calling thread until the client closes the connection (`MCP_OK`) or
/// `mcp_server_stop` is called from another thread or a callback (`MCP_OK`),
/// or one of its callbacks frees the server (`MCP_OK`, once that callback's
/// answer is written; the server is gone then: do not free it again).
/// Nothing else may write to stdout meanwhile (log to stderr).
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_serve_stdio(server: *const Server) -> McpResult {
    boundary(|| {
        // The server may be freed from one of its callbacks while this
        // runs: keep what it owns alive until this returns.
        let server = arg!(handle server).0.clone();
        server.not_stopped()?;
        let _serving = server.serving.enter();
        let core = server.core.clone();
        let stop = server.stop.clone();
        run(&server.handle, None, |_| async move {
            let session = core.serve(Stdio::new())?;
            tokio::select! {
                _ = session.closed() => {}
                () = stop.cancelled() => session.close().await,
            }
            Ok(())
        })
    })
}

/// Starts serving over Streamable HTTP at `address` (`"127.0.0.1:8080"`, or
/// port 0 for any free port) with the endpoint at `/mcp` and the default
/// options, and returns at once; `*port_out` (if not NULL) receives the bound
/// port. Only `Host`/`Origin` headers naming a loopback address are accepted
/// (DNS-rebinding protection), so bind to a loopback address; for other
/// options use `mcp_server_start_http`.
///
/// # Safety
/// `server` is NULL or a live server; `address` is NULL or NUL-terminated;
/// `port_out` is NULL or points to a writable `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_serve_http(
    server: *const Server,
    address: *const c_char,
    port_out: *mut u16,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value port_out);
        let server = arg!(handle server);
        let mut options = mcp_host::HttpOptions::default();
        // SAFETY: as the caller guarantees.
        options.parse_address(unsafe { arg_str(address, "address") }?)?;
        out.set(start_http(server, options)?);
        Ok(())
    })
}

/// Starts serving over Streamable HTTP with the endpoint at `/mcp`, as
/// `options` say (NULL: the defaults, see `mcp_http_options`), and returns
/// at once; `*port_out` (if not NULL) receives the bound port. Requests are
/// served on the server's runtime until `mcp_server_stop` or
/// `mcp_server_free` (then the listener closes, sessions end once their
/// requests in progress are answered, and `mcp_server_wait` returns). May be
/// called several times (several listeners).
///
/// # Safety
/// `server` is NULL or a live server; `options` is NULL or live options;
/// `port_out` is NULL or points to a writable `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_start_http(
    server: *const Server,
    options: *const HttpOptions,
    port_out: *mut u16,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value port_out);
        let server = arg!(handle server);
        // SAFETY: as the caller guarantees.
        let options = unsafe { options.as_ref() }
            .map(|o| o.0.clone())
            .unwrap_or_default();
        out.set(start_http(server, options)?);
        Ok(())
    })
}

/// Connects the store, binds the address and serves HTTP in the background
/// until the server stops; returns the bound port.
fn start_http(server: &ServerInner, options: mcp_host::HttpOptions) -> Result<u16, Failure> {
    server.not_stopped()?;
    let core = server.core.clone();
    let stop = server.stop.clone();
    let serving = server.serving.enter();
    run(&server.handle, None, |_| async move {
        let (listener, config) = options.bind().await?;
        let port = listener
            .local_addr()
            .map_err(|e| Failure::new(MCP_ERR_TRANSPORT, e.to_string()))?
            .port();
        let http = StreamableHttpServer::new(core, config);
        tokio::spawn(async move {
            // On stop, sessions end and requests in progress are answered
            // before this returns. A listener that fails has nobody to tell.
            let _ = http.serve_until(listener, stop).await;
            drop(serving);
        });
        Ok(port)
    })
}

/// Waits until the server has stopped: `mcp_server_stop` was called (from
/// any thread or callback) and everything it was serving has finished —
/// `mcp_server_serve_stdio` returned, HTTP sessions ended and their requests
/// in progress were answered. `timeout_ms` bounds the wait (negative: no
/// bound); `MCP_ERR_TIMEOUT` if the server is still serving then. The server
/// must be freed afterwards as usual: not from another thread meanwhile,
/// except from inside one of its callbacks (then this returns `MCP_OK` once
/// the server has stopped; it is gone: do not free it again).
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_wait(server: *const Server, timeout_ms: i64) -> McpResult {
    boundary(|| {
        // The server may be freed from one of its callbacks while this
        // waits: keep what it owns alive until this returns.
        let server = arg!(handle server).0.clone();
        let limit = u64::try_from(timeout_ms).ok().map(Duration::from_millis);
        let started = std::time::Instant::now();
        let stop = server.stop.clone();
        let stopped = run(&server.handle, None, |_| async move {
            match limit {
                Some(limit) => Ok(tokio::time::timeout(limit, stop.cancelled()).await.is_ok()),
                None => {
                    stop.cancelled().await;
                    Ok(true)
                }
            }
        })?;
        let idle = stopped
            && match limit {
                Some(limit) => server
                    .serving
                    .wait_idle(limit.saturating_sub(started.elapsed())),
                None => loop {
                    if server.serving.wait_idle(Duration::from_secs(3600)) {
                        break true;
                    }
                },
            };
        if idle {
            return Ok(());
        }
        Err(Failure::new(
            MCP_ERR_TIMEOUT,
            format!("the server was still serving after {timeout_ms} ms"),
        ))
    })
}

/// Stops serving and returns at once: `mcp_server_serve_stdio` ends its
/// session and returns, HTTP listeners close, and the sessions open over
/// HTTP end (requests in progress are answered first; a client's next
/// request fails). `mcp_server_wait` returns once all that has finished.
/// Callable from any thread, including from this server's callbacks; a
/// stopped server cannot serve again. Stopping twice is fine.
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_stop(server: *const Server) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        server.stop.cancel();
        Ok(())
    })
}
