//! A session as a shared store keeps it: what another replica needs to
//! serve the session's next request as if it had served every earlier one
//! (negotiated revision, the client's info and capabilities, whether it
//! sent `notifications/initialized`, its log level and subscriptions).

use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use super::session_state::{ClientHello, SessionState};
use crate::ProtocolVersion;
use crate::auth::AuthInfo;
use crate::capability::ServerOffers;
use crate::schema::{ClientCapabilities, Implementation, LoggingLevel};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionRecord {
    protocol_version: String,
    client_info: Implementation,
    client_capabilities: ClientCapabilities,
    initialized: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    log_level: Option<LoggingLevel>,
    #[serde(default)]
    subscriptions: Vec<String>,
    /// The subject of the bearer token that opened the session (protected
    /// HTTP): another subject is refused on every replica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    /// Who owns the session's tasks (the same on every replica).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    task_owner: String,
}

/// The record of `state`, once the client has initialized.
pub(super) fn record(state: &SessionState) -> Option<String> {
    let hello = state.client.get()?;
    let mut subscriptions = state.subscriptions();
    subscriptions.sort();
    let record = SessionRecord {
        protocol_version: hello.version.as_str().to_string(),
        client_info: (*hello.info).clone(),
        client_capabilities: (*hello.capabilities).clone(),
        initialized: state.initialized.load(Ordering::Acquire),
        log_level: state.log_level(),
        subscriptions,
        subject: state.auth().map(|info| info.subject.clone()),
        task_owner: state.task_owner().to_string(),
    };
    serde_json::to_string(&record).ok()
}

/// Makes `state` what `record` says (the handshake, if this replica has not
/// seen it, then the level and subscriptions, which may have changed on
/// another replica since). `offers` is this server's half of the handshake.
pub(super) fn restore(
    state: &SessionState,
    record: &str,
    offers: ServerOffers,
) -> Result<(), String> {
    let record: SessionRecord =
        serde_json::from_str(record).map_err(|e| format!("unreadable session record: {e}"))?;
    let version = ProtocolVersion::parse(&record.protocol_version)
        .ok_or_else(|| format!("unknown revision {}", record.protocol_version))?;
    if !record.task_owner.is_empty() {
        state.adopt_task_owner(record.task_owner);
    }
    if state.client.get().is_none() {
        let _ = state.client.set(ClientHello {
            info: std::sync::Arc::new(record.client_info),
            capabilities: ClientHello::capabilities(record.client_capabilities),
            version,
            offers,
        });
    }
    if record.initialized {
        state.initialized.store(true, Ordering::Release);
    }
    state.restore_settings(record.log_level, record.subscriptions);
    if let (Some(subject), None) = (record.subject, state.auth()) {
        // The request's own identity replaces it once checked against it.
        let _ = state.set_auth(std::sync::Arc::new(AuthInfo {
            subject,
            ..AuthInfo::default()
        }));
    }
    Ok(())
}
