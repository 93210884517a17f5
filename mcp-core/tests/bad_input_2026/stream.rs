//! The table over the stream transports (stdio, a real `mcp serve
//! everything`, and the in-memory pair), and `params` that is neither an
//! object nor an array on every method.

use serde_json::{Value, json};

use crate::common::stream::Stream;
use crate::{
    Input, Memory, Stdio, Via, alive_requests, assert_alive, cases, check, request, state_of,
};

// ---------------------------------------------------------------------------
// What the table needs of a stream transport (`common::stream`)

impl Stream {
    /// The next message with an id (notifications are skipped).
    async fn answer(&mut self) -> Value {
        loop {
            let m = self.recv().await;
            if m.get("id").is_some() {
                return m;
            }
        }
    }

    async fn call(&mut self, message: &Value) -> Value {
        self.send(message.to_string().as_bytes()).await;
        let answer = self.answer().await;
        assert_eq!(answer["id"], message["id"], "answers come in order here");
        answer
    }
}

async fn run_stream(mut stream: Stream, via: Via) {
    let mut ran = 0;
    for (n, case) in cases().iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&via) {
            continue;
        }
        let message = match &case.input {
            Input::Message(m) => m.clone(),
            Input::Retry { first, then } => then(&state_of(&stream.call(first).await)),
        };
        let answer = stream.call(&message).await;
        check(case.name, &case.stream, Some(&answer));
        let mut alive = Vec::new();
        for request in alive_requests(n) {
            alive.push(stream.call(&request).await);
        }
        assert_alive(case.name, &alive);
        ran += 1;
    }
    assert!(ran >= 20, "{via:?}: only {ran} cases ran");
    stream.close().await;
}

#[tokio::test]
async fn bad_2026_input_over_stdio() {
    run_stream(Stream::stdio().await, Stdio).await;
}

#[tokio::test]
async fn bad_2026_input_in_memory() {
    run_stream(Stream::memory(), Memory).await;
}

/// JSON-RPC: `params` that is neither an object nor an array is an error on
/// every method the table has, `ping` and `initialize` included (-32602, or
/// -32600 for a message that is not a valid request), before a session and
/// in one; the server goes on.
#[tokio::test]
async fn params_neither_object_nor_array_on_every_method() {
    use mcp_core::schema::{Direction, METHOD_TABLE};
    let mut stream = Stream::memory();
    let methods: Vec<&str> = METHOD_TABLE
        .iter()
        .filter(|m| !m.notification && m.direction != Direction::ServerToClient)
        .map(|m| m.name)
        .chain(
            mcp_core::extensions::EXTENSION_METHOD_TABLE
                .iter()
                .map(|m| m.name),
        )
        .collect();
    assert!(methods.contains(&"ping") && methods.contains(&"tools/call"));
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    for phase in ["before initialize", "in a session"] {
        if phase == "in a session" {
            assert!(stream.call(&initialize).await.get("result").is_some());
        }
        for (i, method) in methods.iter().enumerate() {
            for params in [json!(5), json!("x"), json!(true), Value::Null] {
                let id = format!("{phase}-{i}-{params}");
                let message =
                    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let answer = stream.call(&message).await;
                let code = answer["error"]["code"].as_i64();
                assert!(
                    matches!(code, Some(-32602 | -32600)),
                    "{phase}: {method} with params {params}: {answer}"
                );
            }
        }
        // Still serving: per request before the handshake, the session after.
        let alive = if phase == "in a session" {
            json!({"jsonrpc": "2.0", "id": "alive", "method": "ping"})
        } else {
            request("alive", "server/discover", json!({}))
        };
        let alive = stream.call(&alive).await;
        assert!(alive["result"].is_object(), "{alive}");
    }
    stream.close().await;
}
