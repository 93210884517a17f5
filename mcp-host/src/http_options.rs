//! The options of a Streamable HTTP server, as every face takes them (C
//! `mcp_http_options_*`, Python `start_http`/`run_http`/`streamable_http_app`
//! keywords, `mcp serve --http ADDR --store URL`): one model, one
//! validation, one set of error texts.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_core::Error;
use mcp_core::http::{HostPolicy, HttpServerConfig};
use tokio::net::TcpListener;

use crate::store::Store;

/// How to serve Streamable HTTP. Defaults: address `127.0.0.1:0`
/// (loopback, any free port), only loopback `Host`/`Origin` names
/// accepted, sessions, SSE answers, mcp-core's limits, the store in memory.
/// Each setter checks its value; a bad one is [`Error::InvalidArgument`]
/// named by the option (`max_body_size must be at least 1`) and leaves the
/// options as they were.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    address: SocketAddr,
    config: HttpServerConfig,
    store: Store,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            address: SocketAddr::from(([127, 0, 0, 1], 0)),
            config: HttpServerConfig::default(),
            store: Store::Memory,
        }
    }
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(message)
}

fn at_least_one(option: &str, value: usize) -> Result<usize, Error> {
    if value == 0 {
        return Err(invalid(format!("{option} must be at least 1")));
    }
    Ok(value)
}

impl HttpOptions {
    /// The address to listen on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The store shared with other replicas.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The transport's configuration (without the store, which
    /// [`bind`](Self::bind) connects to).
    pub fn config(&self) -> HttpServerConfig {
        self.config.clone()
    }

    /// Listens on `address` (port 0 picks a free port).
    pub fn set_address(&mut self, address: SocketAddr) {
        self.address = address;
    }

    /// Parses and sets the address, such as `127.0.0.1:8080` or `[::]:8080`.
    pub fn parse_address(&mut self, text: &str) -> Result<(), Error> {
        self.address = text.parse().map_err(|e| {
            invalid(format!(
                "address `{text}` is not an address such as 127.0.0.1:8080: {e}"
            ))
        })?;
        Ok(())
    }

    /// Accepts `host` as the `Host` header (and the host of an `Origin`);
    /// the first call replaces the loopback-only default. `*` accepts any.
    pub fn allow_host(&mut self, host: &str) -> Result<(), Error> {
        if host.is_empty() {
            return Err(invalid("allowed host must not be empty".into()));
        }
        match &mut self.config.host_policy {
            _ if host == "*" => self.config.host_policy = HostPolicy::Any,
            HostPolicy::AllowList(hosts) => hosts.push(host.to_string()),
            other => *other = HostPolicy::AllowList(vec![host.to_string()]),
        }
        Ok(())
    }

    /// Accepts exactly `hosts` (`*` among them: any), replacing the hosts
    /// allowed so far; an empty list accepts none.
    pub fn set_allowed_hosts<'a>(
        &mut self,
        hosts: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), Error> {
        let mut policy = HostPolicy::AllowList(Vec::new());
        for host in hosts {
            if host.is_empty() {
                return Err(invalid("allowed host must not be empty".into()));
            }
            match &mut policy {
                _ if host == "*" => policy = HostPolicy::Any,
                HostPolicy::AllowList(list) => list.push(host.to_string()),
                _ => {}
            }
        }
        self.config.host_policy = policy;
        Ok(())
    }

    /// Accepts any `Host` and `Origin` (`true`), or only loopback names
    /// again (`false`, forgetting the hosts allowed so far).
    pub fn allow_any_host(&mut self, any: bool) {
        self.config.host_policy = if any {
            HostPolicy::Any
        } else {
            HostPolicy::Loopback
        };
    }

    /// Serves without sessions (every POST stands alone).
    pub fn set_stateless(&mut self, stateless: bool) {
        self.config.stateless = stateless;
    }

    /// Answers every request with one JSON body, never an SSE stream.
    pub fn set_json_response(&mut self, json: bool) {
        self.config.json_response = json;
    }

    /// Cancels a request whose client goes away before its answer.
    pub fn set_cancel_on_disconnect(&mut self, cancel: bool) {
        self.config.cancel_on_disconnect = cancel;
    }

    /// The largest request body in bytes (at least 1).
    pub fn set_max_body_size(&mut self, bytes: usize) -> Result<(), Error> {
        self.config.max_body_size = at_least_one("max_body_size", bytes)?;
        Ok(())
    }

    /// The largest total size of a request's header fields (at least 1).
    pub fn set_max_header_size(&mut self, bytes: usize) -> Result<(), Error> {
        self.config.max_header_size = at_least_one("max_header_size", bytes)?;
        Ok(())
    }

    /// The most sessions open at once (at least 1).
    pub fn set_max_sessions(&mut self, sessions: usize) -> Result<(), Error> {
        self.config.max_sessions = at_least_one("max_sessions", sessions)?;
        Ok(())
    }

    /// Ends sessions idle for longer than `timeout` (more than zero).
    pub fn set_idle_timeout(&mut self, timeout: Duration) -> Result<(), Error> {
        if timeout.is_zero() {
            return Err(invalid(Self::IDLE_TIMEOUT_RULE.into()));
        }
        self.config.idle_timeout = timeout;
        Ok(())
    }

    /// What [`set_idle_timeout`](Self::set_idle_timeout) asks for, for a
    /// face whose value is not a duration at all (e.g. a negative number).
    pub const IDLE_TIMEOUT_RULE: &str = "idle_timeout must be more than zero";

    /// Sets the store from its URL ([`Store::parse`]).
    pub fn set_store(&mut self, url: &str) -> Result<(), Error> {
        self.store = Store::parse(url)?;
        Ok(())
    }

    /// Connects to the store and binds the address: the listener and the
    /// configuration to serve with. A store that does not answer is
    /// [`Error::Store`]; an address that cannot be bound is
    /// [`Error::Transport`] naming it.
    pub async fn bind(&self) -> Result<(TcpListener, HttpServerConfig), Error> {
        let config = match self.store.connect().await? {
            Some(stores) => self.config().stores(stores),
            None => self.config(),
        };
        let listener = TcpListener::bind(self.address).await.map_err(|e| {
            Error::Transport(std::io::Error::new(
                e.kind(),
                format!("cannot listen on {}: {e}", self.address),
            ))
        })?;
        Ok((listener, config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<(), Error>) -> String {
        result.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn bad_values_are_named_and_change_nothing() {
        let mut options = HttpOptions::default();
        assert_eq!(
            message(options.set_max_body_size(0)),
            "invalid argument: max_body_size must be at least 1"
        );
        assert_eq!(
            options.config().max_body_size,
            HttpServerConfig::default().max_body_size
        );
        assert_eq!(
            message(options.set_idle_timeout(Duration::ZERO)),
            "invalid argument: idle_timeout must be more than zero"
        );
        assert!(message(options.parse_address("localhost")).starts_with(
            "invalid argument: address `localhost` is not an address such as 127.0.0.1:8080"
        ));
        assert_eq!(options.address(), SocketAddr::from(([127, 0, 0, 1], 0)));
        assert_eq!(
            message(options.allow_host("")),
            "invalid argument: allowed host must not be empty"
        );
    }

    #[test]
    fn hosts_add_up_and_a_star_is_any() {
        let mut options = HttpOptions::default();
        assert!(options.allow_host("a.example").is_ok());
        assert!(options.allow_host("b.example").is_ok());
        assert_eq!(
            options.config().host_policy,
            HostPolicy::AllowList(vec!["a.example".into(), "b.example".into()])
        );
        assert!(options.set_allowed_hosts(["x", "*"]).is_ok());
        assert_eq!(options.config().host_policy, HostPolicy::Any);
        assert!(options.set_allowed_hosts([]).is_ok());
        assert_eq!(
            options.config().host_policy,
            HostPolicy::AllowList(Vec::new())
        );
        options.allow_any_host(false);
        assert_eq!(options.config().host_policy, HostPolicy::Loopback);
    }

    #[tokio::test]
    async fn an_address_in_use_is_a_transport_error_naming_it() {
        let mut options = HttpOptions::default();
        let Ok((held, _)) = options.bind().await else {
            panic!("cannot bind 127.0.0.1:0");
        };
        let Ok(address) = held.local_addr() else {
            panic!("no local address");
        };
        options.set_address(address);
        let error = options.bind().await.err();
        assert_eq!(
            error.as_ref().map(Error::kind),
            Some(mcp_core::ErrorKind::Transport)
        );
        assert!(error.is_some_and(|e| {
            e.to_string()
                .contains(&format!("cannot listen on {address}"))
        }),);
    }
}
