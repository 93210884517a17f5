//! How a client and a server agree on a protocol revision.
//!
//! - [`Negotiation::Auto`] (the default) probes the way the 2026-07-28
//!   specification says: a `server/discover` under the newest revision
//!   without a handshake first. A `DiscoverResult` means a server of that
//!   era; -32022 (unsupported version) names the server's revisions, and
//!   the client retries with the newest one both speak (falling back to
//!   `initialize` if that is an older one). Any other error, or no answer in
//!   time, means an older server: the client sends `initialize` on the same
//!   connection. A server that exits on the probe (some older stdio servers
//!   do) is started again ([`Transport::fresh`]) and initialized.
//! - [`Negotiation::Legacy`] sends `initialize` only.
//! - [`Negotiation::Pinned`] speaks one revision and fails otherwise.

use std::sync::Arc;
use std::time::Duration;

use super::modern::Modern;
use super::service::ClientService;
use crate::jsonrpc::ErrorCode;
use crate::schema::{
    ClientCapabilities, DiscoverRequest, DiscoverResult, Implementation, InitializeRequest,
    InitializeRequestParams, InitializeResult, InitializedNotification, LoggingLevel, McpRequest,
    RequestParams,
};
use crate::session::{RequestOptions, Session, SessionConfig};
use crate::transport::Transport;
use crate::{Error, ProtocolVersion, Result};

/// How a client picks the protocol revision it speaks with a server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Negotiation {
    /// The newest revision both sides speak, found by probing: a
    /// 2026-07-28 `server/discover` first, `initialize` for older servers.
    #[default]
    Auto,
    /// `initialize` only, offering [`ProtocolVersion::LATEST`] (older
    /// servers answer with theirs).
    Legacy,
    /// Exactly this revision: `initialize` offering it for revisions with a
    /// handshake (the server may still answer an older one), per-request
    /// metadata otherwise; a server that does not speak it is an error.
    Pinned(ProtocolVersion),
}

/// What the connection needs from the builder.
pub(crate) struct Setup {
    pub(crate) info: Implementation,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) negotiation: Negotiation,
    pub(crate) config: SessionConfig,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) max_input_rounds: usize,
    pub(crate) probe_timeout: Duration,
    pub(crate) tasks_extension: bool,
}

/// A connection whose revision is agreed.
pub(crate) struct Connected {
    pub(crate) session: Session,
    /// The server as `initialize` describes it (made from the
    /// `DiscoverResult` for revisions without a handshake).
    pub(crate) server: InitializeResult,
    pub(crate) version: ProtocolVersion,
    /// Per-request metadata, for revisions without a handshake.
    pub(crate) modern: Option<Modern>,
    pub(crate) discover: Option<DiscoverResult>,
}

/// How the probe went; but for a success, the session comes back.
enum Probe {
    Modern(Box<Connected>),
    /// -32022: the revisions the server names.
    Unsupported(Vec<String>, Session),
    /// An error no server of the new era gives, or no answer in time.
    Older(String, Session),
    /// The server went away (the connection closed).
    Exited(String, Session),
}

/// A failed probe's verdict, before the session is attached.
enum Verdict {
    Unsupported(Vec<String>),
    Older(String),
    Exited(String),
}

/// Starts `transport` and agrees on a revision as `setup` says.
pub(crate) async fn open<T: Transport>(
    setup: &Setup,
    service: &Arc<ClientService>,
    transport: T,
) -> Result<Connected> {
    let spare = transport.fresh();
    let session = Session::start(transport, service.clone(), setup.config.clone())?;
    let candidates: Vec<ProtocolVersion> = match setup.negotiation {
        Negotiation::Legacy => return initialize(session, setup, ProtocolVersion::LATEST).await,
        Negotiation::Pinned(v) if v.has_initialize() => return initialize(session, setup, v).await,
        Negotiation::Pinned(v) => vec![v],
        Negotiation::Auto => crate::request_meta::stateless_versions().collect(),
    };
    let auto = setup.negotiation == Negotiation::Auto;
    let Some(&first) = candidates.first() else {
        return initialize(session, setup, ProtocolVersion::LATEST).await;
    };
    let outcome = match probe(session, setup, service, first).await? {
        Probe::Unsupported(supported, session) => {
            let common = candidates
                .iter()
                .copied()
                .find(|v| supported.iter().any(|s| s == v.as_str()));
            let older = ProtocolVersion::ALL
                .iter()
                .copied()
                .filter(|v| v.has_initialize())
                .find(|v| supported.iter().any(|s| s == v.as_str()));
            match (common, older) {
                (Some(v), _) => probe(session, setup, service, v).await?,
                (None, Some(v)) if auto => return initialize(session, setup, v).await,
                _ => {
                    session.close().await;
                    return Err(no_common_revision(&supported, &candidates));
                }
            }
        }
        other => other,
    };
    match outcome {
        Probe::Modern(connected) => Ok(*connected),
        Probe::Older(_, session) if auto => {
            initialize(session, setup, ProtocolVersion::LATEST).await
        }
        Probe::Exited(why, session) if auto => {
            session.close().await;
            let Some(again) = spare else {
                return Err(Error::ConnectionClosed(format!(
                    "the server closed the connection on the version probe: {why}"
                )));
            };
            tracing::debug!("the server exited on the version probe ({why}); starting it again");
            let session = Session::start(again, service.clone(), setup.config.clone())?;
            initialize(session, setup, ProtocolVersion::LATEST).await
        }
        Probe::Unsupported(supported, session) => {
            session.close().await;
            Err(no_common_revision(&supported, &candidates))
        }
        Probe::Older(why, session) | Probe::Exited(why, session) => {
            session.close().await;
            Err(Error::ProtocolVersion(format!(
                "the server does not speak {}: {why}",
                first.as_str()
            )))
        }
    }
}

fn no_common_revision(supported: &[String], ours: &[ProtocolVersion]) -> Error {
    Error::ProtocolVersion(format!(
        "no revision in common: the server speaks {}, this client {}",
        if supported.is_empty() {
            "none it named".to_string()
        } else {
            supported.join(", ")
        },
        ours.iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Sends `server/discover` under `version` and says what the answer means.
async fn probe(
    session: Session,
    setup: &Setup,
    service: &Arc<ClientService>,
    version: ProtocolVersion,
) -> Result<Probe> {
    let modern = Modern::new(
        version,
        &setup.capabilities,
        &setup.info,
        setup.log_level,
        setup.max_input_rounds,
        setup.tasks_extension,
    )?;
    let options = RequestOptions::default().timeout(setup.probe_timeout);
    let answer = modern
        .call(
            session.peer(),
            service,
            <DiscoverRequest as McpRequest>::METHOD,
            &RequestParams::new(),
            options,
        )
        .await;
    let raw = match answer {
        Ok(raw) => raw,
        Err(e) => {
            return match classify(e) {
                Ok(Verdict::Unsupported(v)) => Ok(Probe::Unsupported(v, session)),
                Ok(Verdict::Older(why)) => Ok(Probe::Older(why, session)),
                Ok(Verdict::Exited(why)) => Ok(Probe::Exited(why, session)),
                Err(e) => {
                    session.close().await;
                    Err(e)
                }
            };
        }
    };
    let discover: DiscoverResult = match serde_json::from_str(raw.get()) {
        Ok(d) => d,
        // Some older servers answer any request with something; such an
        // answer says nothing of the new era.
        Err(e) => {
            let why = format!("the answer to server/discover is not a DiscoverResult: {e}");
            return Ok(Probe::Older(why, session));
        }
    };
    let server_info = discover
        .meta
        .as_ref()
        .and_then(|m| m.io_modelcontextprotocol_server_info.clone())
        .or_else(|| {
            discover
                .extra
                .get("serverInfo")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
        })
        .unwrap_or_else(|| Implementation::new("", ""));
    let server = InitializeResult {
        instructions: discover.instructions.clone(),
        ..InitializeResult::new(discover.capabilities.clone(), version.as_str(), server_info)
    };
    Ok(Probe::Modern(Box::new(Connected {
        session,
        server,
        version,
        modern: Some(modern),
        discover: Some(discover),
    })))
}

/// What a failed probe says about the server.
fn classify(error: Error) -> Result<Verdict> {
    match error {
        Error::Rpc(e) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = e
                .data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .and_then(|s| serde_json::from_value::<Vec<String>>(s.clone()).ok())
                .unwrap_or_default();
            Ok(Verdict::Unsupported(supported))
        }
        // Errors only a server of the new era gives: it refuses this client.
        Error::Rpc(e)
            if e.code == ErrorCode::HEADER_MISMATCH
                || e.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY =>
        {
            Err(Error::Rpc(e))
        }
        Error::Rpc(e) => Ok(Verdict::Older(format!("server/discover: {e}"))),
        Error::Timeout { .. } => Ok(Verdict::Older("server/discover got no answer".into())),
        // HTTP: a status without a JSON-RPC error of the new era.
        Error::Transport(e) => Ok(Verdict::Older(e.to_string())),
        Error::ConnectionClosed(why) => Ok(Verdict::Exited(why)),
        other => Err(other),
    }
}

/// The handshake of revisions that have one.
async fn initialize(
    session: Session,
    setup: &Setup,
    offered: ProtocolVersion,
) -> Result<Connected> {
    let params = InitializeRequestParams::new(
        setup.capabilities.clone(),
        setup.info.clone(),
        offered.as_str(),
    );
    let server = match session
        .peer()
        .request::<InitializeRequest>(params, RequestOptions::default())
        .await
    {
        Ok(server) => server,
        Err(e) => {
            session.close().await;
            return Err(e);
        }
    };
    let version = match ProtocolVersion::parse(&server.protocol_version) {
        Some(v) if v.has_initialize() => v,
        _ => {
            session.close().await;
            let supported: Vec<&str> = ProtocolVersion::ALL
                .iter()
                .filter(|v| v.has_initialize())
                .map(|v| v.as_str())
                .collect();
            return Err(Error::ProtocolVersion(format!(
                "the server answered initialize with protocol version `{}`; this client \
                 supports {}",
                server.protocol_version,
                supported.join(", ")
            )));
        }
    };
    session
        .peer()
        .notify::<InitializedNotification>(None)
        .await?;
    Ok(Connected {
        session,
        server,
        version,
        modern: None,
        discover: None,
    })
}
