//! The table over Streamable HTTP: our server on 127.0.0.1, spoken to with
//! raw HTTP/1.1.

use std::net::SocketAddr;

use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::{RawResponse, open_http, raw_http, test_server};
use crate::{
    Answer, CANCEL_SLOW, Http, INITIALIZE, Input, Phase, cases, check, initialized, post_head,
};

// ---------------------------------------------------------------------------
// Streamable HTTP

struct HttpConn {
    addr: SocketAddr,
    server: StreamableHttpServer,
    stop: CancellationToken,
    session: Option<String>,
}

impl HttpConn {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = StreamableHttpServer::new(test_server(), HttpServerConfig::default());
        let stop = CancellationToken::new();
        tokio::spawn(server.clone().serve_until(listener, stop.clone()));
        Self {
            addr,
            server,
            stop,
            session: None,
        }
    }

    /// Fills in `{addr}` and `{session}` and joins the lines.
    fn head(&self, lines: &[Vec<u8>]) -> Vec<u8> {
        let session = self.session.clone().unwrap_or_default();
        let mut head = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                head.extend_from_slice(b"\r\n");
            }
            let text = String::from_utf8_lossy(line);
            if text.contains('{') && line.is_ascii() {
                let filled = text
                    .replace("{addr}", &self.addr.to_string())
                    .replace("{session}", &session);
                head.extend_from_slice(filled.as_bytes());
            } else {
                head.extend_from_slice(line);
            }
        }
        head
    }

    fn standard_head(&self) -> Vec<u8> {
        let without: &[&str] = if self.session.is_some() {
            &[]
        } else {
            &["mcp-session-id", "mcp-protocol-version"]
        };
        self.head(&post_head(without, &[]))
    }

    async fn post(&self, body: &[u8]) -> RawResponse {
        raw_http(self.addr, &self.standard_head(), body)
            .await
            .expect("an HTTP response")
    }

    async fn initialize(&mut self) {
        let response = self.post(INITIALIZE.as_bytes()).await;
        assert_eq!(response.status, 200);
        assert!(initialized(&response.message().unwrap()["result"]));
        self.session = Some(response.header("mcp-session-id").unwrap().to_string());
        let ack = self
            .post(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        assert_eq!(ack.status, 202);
    }

    async fn alive(&self, n: usize) {
        let ping = self
            .post(
                json!({"jsonrpc": "2.0", "id": n, "method": "ping"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(ping.status, 200);
        assert_eq!(ping.message().unwrap()["result"], json!({}));
        let list = self
            .post(
                json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(list.status, 200);
        assert!(list.message().unwrap()["result"]["tools"].is_array());
        assert_eq!(self.server.session_count(), 1);
    }
}

#[tokio::test]
async fn bad_input_over_streamable_http() {
    let mut conn = HttpConn::start().await;
    let mut ran = 0;
    for (n, case) in cases().iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&Http) {
            continue;
        }
        if case.phase == Phase::Ready && conn.session.is_none() {
            conn.initialize().await;
        }
        let mut slow_request = None;
        let response = match &case.input {
            Input::Message(body) => conn.post(body).await,
            Input::Http { head, body } => match raw_http(conn.addr, &conn.head(head), body).await {
                Some(response) => response,
                None => panic!("{}: the server closed the connection", case.name),
            },
            Input::WhileInFlight { slow, message } => {
                // With a progress token the slow request's response starts
                // (with its first progress event) once it is in progress;
                // the connection stays open until it is cancelled.
                let slow = slow.replace(
                    r#""arguments""#,
                    r#""_meta":{"progressToken":"slow"},"arguments""#,
                );
                let (tcp, status) =
                    open_http(conn.addr, &conn.standard_head(), slow.as_bytes()).await;
                assert_eq!(status, 200, "{}", case.name);
                slow_request = Some(tcp);
                conn.post(message.as_bytes()).await
            }
        };
        assert_eq!(
            response.status, case.http.status,
            "{}: {response:?}",
            case.name
        );
        let message = response.message();
        if matches!(case.http.body, Answer::Nothing) {
            assert!(response.body.is_empty(), "{}: {response:?}", case.name);
        }
        check(case.name, &case.http.body, message.as_ref());
        if let Some(slow) = slow_request {
            let cancelled = conn.post(CANCEL_SLOW).await;
            assert_eq!(cancelled.status, 202);
            drop(slow);
        }
        match case.phase {
            Phase::BeforeInit => {
                // Nothing before a successful initialize leaves a session.
                assert!(response.header("mcp-session-id").is_none(), "{}", case.name);
                assert_eq!(conn.server.session_count(), 0, "{}", case.name);
            }
            Phase::Ready => conn.alive(n).await,
        }
        ran += 1;
    }
    assert!(ran > 60, "only {ran} cases ran");
    conn.stop.cancel();
}
