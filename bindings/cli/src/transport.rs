//! The only place that knows the transports: [`connect`] for the client
//! commands and [`serve`] for `mcp serve`.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use mcp_core::auth::{LoopbackUserAgent, OAuthClient};
use mcp_core::client::{Client, ClientBuilder, ClientGroup, GroupConfig};
use mcp_core::http::StreamableHttpServer;
use mcp_core::schema::ServerNotification;
use mcp_core::server::Server;
use mcp_core::transport::http::StreamableHttpClient;
use mcp_core::transport::{ChildProcess, Stdio};
use mcp_host::HttpOptions;

use crate::error::CliError;
use crate::output;

/// The server a client command talks to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A server started as a child process, over its stdin and stdout.
    Stdio {
        /// The program.
        program: OsString,
        /// Its arguments.
        args: Vec<OsString>,
        /// Environment variables set for it.
        env: Vec<(String, String)>,
        /// Whether it gets this process's whole environment.
        inherit_env: bool,
        /// Its working directory.
        cwd: Option<std::path::PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request (`Authorization` among them
        /// means no OAuth).
        headers: Vec<(String, String)>,
    },
}

/// How the client behaves, whatever the transport.
#[derive(Clone, Copy, Debug)]
pub struct ConnectOptions {
    /// How long to wait for each answer.
    pub timeout: Duration,
    /// Hide the server's stderr and log messages.
    pub quiet: bool,
    /// How the protocol revision is chosen.
    pub negotiation: mcp_core::client::Negotiation,
}

/// The client every command uses: the user answers questions, and unless
/// quiet, the server's log messages are shown.
pub fn client_builder(options: ConnectOptions) -> ClientBuilder {
    let builder =
        Client::builder("mcp-cli", env!("CARGO_PKG_VERSION")).negotiation(options.negotiation);
    // --timeout bounds the `auto` probe too, as in the other faces.
    let builder = mcp_host::with_request_timeout(builder, options.timeout)
        .on_elicitation(false, |params, _cx| crate::input::elicit(params))
        .on_sampling(false, |params, _cx| crate::input::sample(params));
    if options.quiet {
        builder
    } else {
        // Revisions without a session send logs only when asked for them.
        builder
            .log_level(mcp_core::schema::LoggingLevel::Debug)
            .on_notification(|notification| {
                if let ServerNotification::LoggingMessage(m) = notification {
                    output::log_message(&m.params);
                }
            })
    }
}

/// A group of every server of `config`, connected at once.
pub async fn group(config: &GroupConfig, options: ConnectOptions) -> ClientGroup {
    let group = ClientGroup::builder(client_builder(options));
    let group = if options.quiet {
        group.on_stderr(|_, _| {})
    } else {
        group.on_stderr(output::member_stderr)
    };
    group.connect(config).await
}

/// Connects to `target` and initializes the session.
pub async fn connect(target: &Target, options: ConnectOptions) -> Result<Client, CliError> {
    let builder = client_builder(options);
    match target {
        Target::Stdio {
            program,
            args,
            env,
            inherit_env,
            cwd,
        } => {
            let mut child = ChildProcess::new(program)
                .args(args)
                .inherit_env(*inherit_env)
                .shutdown_grace(Duration::from_secs(2));
            if let Some(cwd) = cwd {
                child = child.current_dir(cwd);
            }
            for (key, value) in env {
                child = child.env(key, value);
            }
            child = if options.quiet {
                child.on_stderr(|_| {})
            } else {
                child.on_stderr(output::server_stderr)
            };
            builder.connect(child).await.map_err(CliError::connect)
        }
        Target::Http { url, headers } => {
            let mut http = StreamableHttpClient::new(url.clone());
            for (name, value) in headers {
                http = http
                    .header(name, value)
                    .map_err(|e| CliError::Usage(format!("--header {name}: {e}")))?;
            }
            if headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
            {
                return builder.connect(http).await.map_err(CliError::connect);
            }
            // OAuth only comes into play if the server answers 401: the
            // user is then shown the authorization URL and the code comes
            // back to a loopback redirect (RFC 8252).
            let agent = LoopbackUserAgent::new("http://127.0.0.1:0/callback")
                .map_err(CliError::connect)?
                .on_url(|url| {
                    output::stderr(&format!(
                        "The server needs authorization. Open this URL in a browser:\n  {url}"
                    ));
                });
            let oauth = OAuthClient::builder(url.clone())
                .client_name("mcp (libmcp command-line tool)")
                .user_agent(Arc::new(agent))
                .build()
                .map_err(CliError::connect)?;
            builder
                .connect(http.auth(oauth))
                .await
                .map_err(CliError::connect)
        }
    }
}

/// How `mcp serve` serves.
#[derive(Clone, Debug)]
pub enum ServeMode {
    /// One client over this process's stdin and stdout.
    Stdio,
    /// Streamable HTTP, as the options say (`--http ADDR`, `--store URL`).
    Http(Box<HttpOptions>),
}

/// Serves `server` until the client goes away (stdio) or Ctrl-C (HTTP).
pub async fn serve(server: Server, mode: ServeMode) -> Result<(), CliError> {
    match mode {
        ServeMode::Stdio => {
            let session = server
                .serve(Stdio::new())
                .map_err(|e| CliError::Failed(format!("cannot serve over stdio: {e}")))?;
            let reason = session.closed().await;
            tracing::debug!("the stdio session ended: {reason}");
            // Returns once everything queued for stdout is written.
            session.close().await;
            Ok(())
        }
        ServeMode::Http(options) => {
            // The store (and its shared requestState key) first, then the
            // address: each fails naming itself.
            let (listener, config) = options.bind().await.map_err(CliError::request)?;
            let bound = listener
                .local_addr()
                .map_err(|e| CliError::Failed(format!("cannot read the bound address: {e}")))?;
            if !bound.ip().is_loopback() {
                eprintln!(
                    "mcp: warning: only requests with a loopback Host/Origin are accepted \
                     (DNS-rebinding protection); put a proxy in front for remote clients"
                );
            }
            // Scripts read the endpoint (and the port, with --http HOST:0) from here.
            eprintln!("mcp: serving on http://{bound}/mcp");
            let http = StreamableHttpServer::new(server, config);
            tokio::select! {
                served = http.serve(listener) => {
                    served.map_err(|e| CliError::Failed(format!("the HTTP server failed: {e}")))
                }
                _ = tokio::signal::ctrl_c() => Ok(()),
            }
        }
    }
}
