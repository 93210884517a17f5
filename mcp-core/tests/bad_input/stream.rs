//! The table over the stream transports: stdio (a real `mcp serve
//! everything` process) and the in-memory pair.

use serde_json::{Value, json};

use crate::common::mcp_binary;
use crate::common::stream::Stream;
use crate::{
    Answer, CANCEL_SLOW, INITIALIZE, Input, Memory, Phase, Stdio, Via, cases, check, initialized,
};

// ---------------------------------------------------------------------------
// What the table needs of a stream transport (`common::stream`)

impl Stream {
    /// Reads messages until a response arrives; returns it and whatever
    /// else came first.
    async fn next_response(&mut self) -> (Value, Vec<Value>) {
        let mut others = Vec::new();
        for _ in 0..100 {
            let m = self.recv().await;
            if m.get("method").is_none() {
                return (m, others);
            }
            others.push(m);
        }
        panic!("no response among {others:?}")
    }

    /// Checks that the session answers `ping` (and, once initialized,
    /// `tools/list`); returns any other message that arrived meanwhile.
    async fn alive(&mut self, n: usize, phase: Phase) -> Vec<Value> {
        let ping = json!(format!("alive-{n}"));
        let list = json!(format!("alive-list-{n}"));
        self.send(
            json!({"jsonrpc": "2.0", "id": ping, "method": "ping"})
                .to_string()
                .as_bytes(),
        )
        .await;
        let mut waiting = vec![ping.clone()];
        if phase == Phase::Ready {
            self.send(
                json!({"jsonrpc": "2.0", "id": list, "method": "tools/list"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
            waiting.push(list.clone());
        }
        let mut stray = Vec::new();
        while !waiting.is_empty() {
            let (response, others) = self.next_response().await;
            stray.extend(others);
            match waiting.iter().position(|id| response["id"] == *id) {
                Some(i) => {
                    waiting.remove(i);
                    if response["id"] == ping {
                        assert_eq!(response["result"], json!({}), "{response}");
                    } else {
                        assert!(
                            response["result"]["tools"]
                                .as_array()
                                .is_some_and(|t| !t.is_empty()),
                            "{response}"
                        );
                    }
                }
                None => stray.push(response),
            }
        }
        stray
    }

    async fn initialize(&mut self) {
        self.send(INITIALIZE.as_bytes()).await;
        let (response, others) = self.next_response().await;
        assert!(others.is_empty(), "{others:?}");
        assert!(initialized(&response["result"]), "{response}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }
}

async fn run_stream(mut stream: Stream, transport: Via) {
    let cases = cases();
    let mut ran = 0;
    let mut initialized = false;
    for (n, case) in cases.iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&transport) {
            continue;
        }
        if case.phase == Phase::Ready && !initialized {
            stream.initialize().await;
            initialized = true;
        }
        let mut others = Vec::new();
        let in_flight = matches!(case.input, Input::WhileInFlight { .. });
        match &case.input {
            Input::Message(m) => stream.send(m).await,
            Input::WhileInFlight { slow, message } => {
                stream.send(slow.as_bytes()).await;
                stream.send(message.as_bytes()).await;
            }
            Input::Http { .. } => unreachable!("{}: HTTP only", case.name),
        }
        if !matches!(case.stream, Answer::Nothing) {
            let (response, before) = stream.next_response().await;
            others = before;
            check(case.name, &case.stream, Some(&response));
        }
        if in_flight {
            stream.send(CANCEL_SLOW).await;
        }
        let stray = stream.alive(n, case.phase).await;
        assert!(
            others.is_empty() && stray.is_empty(),
            "{transport:?} {}: unexpected messages {others:?} {stray:?}",
            case.name
        );
        ran += 1;
    }
    assert!(ran > 40, "{transport:?}: only {ran} cases ran");
    assert!(
        stream.close().await,
        "the server did not exit when its input ended"
    );
}

#[tokio::test]
async fn bad_input_over_stdio() {
    let binary = tokio::task::spawn_blocking(mcp_binary).await.unwrap();
    assert!(binary.exists());
    run_stream(Stream::stdio().await, Stdio).await;
}

#[tokio::test]
async fn bad_input_in_memory() {
    run_stream(Stream::memory(), Memory).await;
}
