//! The table over Streamable HTTP, with the header rules of SEP-2243.

use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use serde_json::Value;

use crate::common::{self, WAIT, test_server};
use crate::{Head, Http, Input, V, alive_requests, assert_alive, cases, check, state_of};

// ---------------------------------------------------------------------------
// Streamable HTTP

/// The standard headers of a stateless POST of `body`.
fn standard_headers(body: &Value) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".into(), "application/json".into()),
        (
            "accept".into(),
            "application/json, text/event-stream".into(),
        ),
        ("mcp-protocol-version".into(), V.into()),
    ];
    if let Some(method) = body["method"].as_str() {
        headers.push(("mcp-method".into(), method.into()));
    }
    let params = &body["params"];
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .or(params["taskId"].as_str());
    if let Some(name) = name {
        headers.push(("mcp-name".into(), name.into()));
    }
    headers
}

async fn send_http(addr: std::net::SocketAddr, body: &Value, head: &Head) -> (u16, Option<Value>) {
    let mut headers = standard_headers(body);
    headers.retain(|(name, _)| !head.without.contains(&name.as_str()));
    for (name, value) in head.set {
        headers.retain(|(n, _)| n != name);
        headers.push(((*name).into(), (*value).into()));
    }
    if let Some((name, bytes)) = head.huge {
        headers.push((name.into(), "a".repeat(bytes)));
    }
    let method = head.method.unwrap_or("POST");
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/mcp");
    let mut request = match method {
        "GET" => client.get(url),
        "DELETE" => client.delete(url),
        _ => client.post(url).body(body.to_string()),
    };
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = tokio::time::timeout(WAIT, request.send())
        .await
        .expect("an HTTP answer in time")
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json = common::answer_json(&text);
    (status, serde_json::from_str(json).ok())
}

#[tokio::test]
async fn bad_2026_input_over_streamable_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = StreamableHttpServer::new(test_server(), HttpServerConfig::default());
    tokio::spawn(server.serve(listener));
    let mut ran = 0;
    for (n, case) in cases().iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&Http) {
            continue;
        }
        let message = match &case.input {
            Input::Message(m) => m.clone(),
            Input::Retry { first, then } => {
                let (status, answer) = send_http(addr, first, &Head::default()).await;
                assert_eq!(status, 200, "{}", case.name);
                then(&state_of(&answer.unwrap()))
            }
        };
        let (status, answer) = send_http(addr, &message, &case.head).await;
        assert_eq!(status, case.status, "{}: {answer:?}", case.name);
        check(case.name, &case.http, answer.as_ref());
        let mut alive = Vec::new();
        for request in alive_requests(n) {
            let (status, answer) = send_http(addr, &request, &Head::default()).await;
            assert_eq!(status, 200, "{}", case.name);
            alive.push(answer.unwrap());
        }
        assert_alive(case.name, &alive);
        ran += 1;
    }
    assert!(ran >= 30, "only {ran} cases ran");
}
