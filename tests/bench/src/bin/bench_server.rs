//! The MCP server under test: `mcp_core::server::Server` with one `echo`
//! tool (returns its `text` argument as text content), written the way the
//! README shows a user to.
//!
//! ```text
//! bench-server stdio          serve on stdin/stdout
//! bench-server http [--json] [--idle-timeout SECS] [--max-sessions N]
//!                    [--store redis://HOST:PORT/DB]
//!                             Streamable HTTP on 127.0.0.1 (a free port), SSE
//!                             answers, or JSON answers with --json; prints
//!                             `listening on ADDR` and exits when stdin closes;
//!                             with --store, state is shared with every
//!                             replica using that Redis store
//! ```
//!
//! `--idle-timeout` and `--max-sessions` set the `HttpServerConfig` fields
//! of those names (defaults: the library's, 30 min and 10,000); `mcp-soak`
//! uses them.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark helper: stdout tells the driver the address"
)]

use mcp_bench::exit_when_stdin_closes;
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::Stdio;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Echo {
    /// The text to send back.
    text: String,
}

fn server() -> mcp_core::Result<Server> {
    let echo = ToolDef::new(
        "echo",
        "Returns its text argument",
        |args: Echo, _cx| async move { Ok::<_, String>(args.text) },
    )?;
    Ok(Server::builder("bench-server", "0.1.0").tool(echo).build())
}

/// The command line.
#[derive(Debug)]
struct Args {
    mode: String,
    json: bool,
    idle_timeout: Option<Duration>,
    max_sessions: Option<usize>,
    store: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        mode: "stdio".into(),
        json: false,
        idle_timeout: None,
        max_sessions: None,
        store: None,
    };
    let mut it = std::env::args().skip(1);
    let mut first = true;
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => args.json = true,
            "--idle-timeout" => {
                let secs: f64 = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or("--idle-timeout needs a number of seconds > 0")?;
                args.idle_timeout = Some(Duration::from_secs_f64(secs));
            }
            "--max-sessions" => {
                let n = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--max-sessions needs a count")?;
                args.max_sessions = Some(n);
            }
            "--store" => {
                args.store = Some(it.next().ok_or("--store needs a redis:// address")?);
            }
            mode if first && !mode.starts_with('-') => args.mode = mode.to_string(),
            other => return Err(format!("unknown argument `{other}`")),
        }
        first = false;
    }
    Ok(args)
}

async fn run(args: Args) -> Result<(), String> {
    let server = server().map_err(|e| e.to_string())?;
    match args.mode.as_str() {
        "stdio" => {
            let session = server.serve(Stdio::new()).map_err(|e| e.to_string())?;
            session.closed().await;
            session.close().await;
            Ok(())
        }
        "http" => {
            exit_when_stdin_closes();
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| format!("cannot bind: {e}"))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            println!("listening on {addr}");
            let mut config = HttpServerConfig::default().json_response(args.json);
            if let Some(timeout) = args.idle_timeout {
                config = config.idle_timeout(timeout);
            }
            if let Some(max) = args.max_sessions {
                config = config.max_sessions(max);
            }
            if let Some(url) = &args.store {
                let store = mcp_core::store::redis::RedisStore::connect(url)
                    .await
                    .map_err(|e| e.to_string())?;
                config = config.stores(store.replica_stores().await.map_err(|e| e.to_string())?);
            }
            StreamableHttpServer::new(server, config)
                .serve(listener)
                .await
                .map_err(|e| e.to_string())
        }
        other => Err(format!(
            "unknown mode `{other}`: use stdio or http [--json] [--idle-timeout SECS] [--max-sessions N]"
        )),
    }
}

#[tokio::main]
async fn main() {
    let outcome = match parse_args() {
        Ok(args) => run(args).await,
        Err(e) => Err(e),
    };
    if let Err(e) = outcome {
        eprintln!("bench-server: {e}");
        std::process::exit(1);
    }
}
