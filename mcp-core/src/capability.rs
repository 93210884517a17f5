//! Which requests a server's declared capabilities let a client send, as the
//! generated method table says ([`MethodSpec::capability`]).
//!
//! Worked out once per session from the declared capabilities, then one bit
//! test per request.

use serde_json::Value;

use crate::schema::{ClientRequestMethod, MethodSpec, ServerCapabilities};

/// The client requests a server answers: one bit per [`ClientRequestMethod`];
/// and whether it runs tool calls as tasks (read on every `tools/call`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ServerOffers {
    methods: u64,
    tool_tasks: bool,
}

impl ServerOffers {
    /// What `capabilities` offer. A request the table gates on no capability
    /// (`ping`, `initialize`, …) is always offered.
    pub(crate) fn new(capabilities: &ServerCapabilities) -> Self {
        // Serialized once so that the table's dotted paths can be followed
        // without a hand-written accessor per capability.
        let declared = serde_json::to_value(capabilities).unwrap_or(Value::Null);
        let bits = ClientRequestMethod::ALL
            .iter()
            .filter(|m| gate_open(m.spec(), &declared))
            .fold(0u64, |bits, m| bits | bit(*m));
        Self {
            methods: bits,
            tool_tasks: declares(&declared, "tasks.requests.tools.call"),
        }
    }

    /// Whether the server offers `method`.
    pub(crate) fn allows(self, method: ClientRequestMethod) -> bool {
        self.methods & bit(method) != 0
    }

    /// Whether the server declares task-augmented `tools/call`.
    pub(crate) fn tool_tasks(self) -> bool {
        self.tool_tasks
    }
}

fn bit(method: ClientRequestMethod) -> u64 {
    // Fewer than 64 client requests in every revision (checked by a test).
    1u64 << (method as u32 % 64)
}

fn gate_open(spec: &MethodSpec, declared: &Value) -> bool {
    spec.capability.is_none_or(|path| declares(declared, path))
}

/// Whether `declared` (a side's capabilities as JSON) has the capability at
/// the dotted `path`: present, and neither `null` nor `false`.
pub(crate) fn declares(declared: &Value, path: &str) -> bool {
    path.split('.')
        .try_fold(declared, |v, key| v.get(key))
        .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ServerCapabilitiesResources, ServerCapabilitiesTools};

    #[test]
    fn every_client_request_has_a_bit() {
        assert!(ClientRequestMethod::ALL.len() < 64);
    }

    #[test]
    fn offers_follow_the_declared_capabilities() {
        let caps = ServerCapabilities {
            tools: Some(ServerCapabilitiesTools::new()),
            resources: Some(ServerCapabilitiesResources {
                subscribe: Some(false),
                ..ServerCapabilitiesResources::new()
            }),
            ..ServerCapabilities::new()
        };
        let offers = ServerOffers::new(&caps);
        assert!(offers.allows(ClientRequestMethod::CallTool));
        assert!(offers.allows(ClientRequestMethod::ListTools));
        assert!(offers.allows(ClientRequestMethod::ReadResource));
        assert!(offers.allows(ClientRequestMethod::Ping));
        assert!(offers.allows(ClientRequestMethod::Initialize));
        // `subscribe: false` does not offer subscriptions.
        assert!(!offers.allows(ClientRequestMethod::Subscribe));
        assert!(!offers.allows(ClientRequestMethod::GetPrompt));
        assert!(!offers.allows(ClientRequestMethod::Complete));
        assert!(!offers.allows(ClientRequestMethod::SetLevel));
    }
}
