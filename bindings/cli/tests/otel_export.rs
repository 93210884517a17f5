//! The `mcp` command's OpenTelemetry export, against a real OTLP/HTTP
//! receiver of this test (a small HTTP/1.1 server on 127.0.0.1 that decodes
//! the protobuf exports with `opentelemetry-proto`): an `mcp tools call
//! --inherit-env` against `mcp serve everything` (both processes export,
//! the server inheriting the variables) gives one trace in which the server's SERVER
//! span is the child of the client's CLIENT span, with the conventions'
//! attributes and resource; a tool error is an error span; the duration
//! histograms arrive; and with no variable set nothing is sent.

#![cfg(feature = "otel")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind, status::StatusCode};
use prost::Message;

mod common;

use common::{MCP, mcp_with_env};

const LIMIT: Duration = Duration::from_secs(60);

/// Every POST the receiver got: its path and body.
type Posts = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// An OTLP/HTTP receiver on 127.0.0.1: answers every POST with 200 and
/// keeps it. Serves at most 64 connections, each until its client closes it
/// or is idle for 30 s.
fn receiver() -> (String, Posts) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let posts = Posts::default();
    let kept = posts.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(stream) = stream else { continue };
            let kept = kept.clone();
            std::thread::spawn(move || serve(stream, &kept));
        }
    });
    (url, posts)
}

fn serve(stream: TcpStream, posts: &Posts) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    // One request after another on the connection (at most 1000).
    for _ in 0..1000 {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("").to_string();
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        posts.lock().unwrap().push((path, body));
        let answer =
            "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

fn text(value: &KeyValue) -> Option<String> {
    match value.value.as_ref()?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s.clone()),
        any_value::Value::IntValue(n) => Some(n.to_string()),
        _ => None,
    }
}

fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes.iter().find(|kv| kv.key == key).and_then(text)
}

/// A span with its resource's attributes.
struct Exported {
    span: Span,
    resource: Vec<KeyValue>,
}

fn spans(posts: &Posts) -> Vec<Exported> {
    let posts = posts.lock().unwrap();
    let mut out = Vec::new();
    for (_, body) in posts.iter().filter(|(path, _)| path == "/v1/traces") {
        let request = ExportTraceServiceRequest::decode(body.as_slice()).unwrap();
        for resource_spans in request.resource_spans {
            let resource = resource_spans
                .resource
                .map(|r| r.attributes)
                .unwrap_or_default();
            for scope in resource_spans.scope_spans {
                for span in scope.spans {
                    out.push(Exported {
                        span,
                        resource: resource.clone(),
                    });
                }
            }
        }
    }
    out
}

fn metric_names(posts: &Posts) -> Vec<String> {
    let posts = posts.lock().unwrap();
    let mut names = Vec::new();
    for (_, body) in posts.iter().filter(|(path, _)| path == "/v1/metrics") {
        let request = ExportMetricsServiceRequest::decode(body.as_slice()).unwrap();
        for resource in request.resource_metrics {
            for scope in resource.scope_metrics {
                names.extend(scope.metrics.into_iter().map(|m| m.name));
            }
        }
    }
    names
}

/// Waits (at most 30 s) until `done` holds of what was received.
fn wait_for(posts: &Posts, done: impl Fn(&[Exported]) -> bool) -> Vec<Exported> {
    let started = Instant::now();
    loop {
        let spans = spans(posts);
        if done(&spans) || started.elapsed() > Duration::from_secs(30) {
            return spans;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn find<'a>(spans: &'a [Exported], name: &str, kind: SpanKind) -> &'a Exported {
    spans
        .iter()
        .find(|e| e.span.name == name && e.span.kind == kind as i32)
        .unwrap_or_else(|| {
            let names: Vec<_> = spans.iter().map(|e| (&e.span.name, e.span.kind)).collect();
            panic!("no {kind:?} span {name} among {names:?}")
        })
}

#[test]
fn a_call_gives_one_trace_across_both_processes() {
    let (url, posts) = receiver();
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
        ("OTEL_SERVICE_NAME", "otel-export-test"),
        ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"),
    ];
    // The server process gets the variables only when asked (`--inherit-env`).
    let base = [
        "--timeout",
        "20",
        "--protocol",
        "legacy",
        "tools",
        "call",
        "--inherit-env",
    ];
    for tool in ["test_simple_text", "test_error_handling"] {
        let mut args = base.to_vec();
        args.extend([tool, "--", MCP, "serve", "everything"]);
        let run = mcp_with_env(LIMIT, &args, &env);
        assert!(
            run.status == 0 || tool == "test_error_handling",
            "{}\n{}",
            run.stdout,
            run.stderr
        );
    }
    let spans = wait_for(&posts, |spans| {
        ["test_simple_text", "test_error_handling"]
            .iter()
            .all(|tool| {
                let name = format!("tools/call {tool}");
                [SpanKind::Client, SpanKind::Server].iter().all(|kind| {
                    spans
                        .iter()
                        .any(|e| e.span.name == name && e.span.kind == *kind as i32)
                })
            })
    });

    let sent = find(&spans, "tools/call test_simple_text", SpanKind::Client);
    let served = find(&spans, "tools/call test_simple_text", SpanKind::Server);
    assert_eq!(served.span.trace_id, sent.span.trace_id);
    assert_eq!(served.span.parent_span_id, sent.span.span_id);
    for exported in [sent, served] {
        let attributes = &exported.span.attributes;
        assert_eq!(
            attribute(attributes, "mcp.method.name").as_deref(),
            Some("tools/call")
        );
        assert_eq!(
            attribute(attributes, "gen_ai.tool.name").as_deref(),
            Some("test_simple_text")
        );
        assert_eq!(
            attribute(attributes, "gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(
            attribute(attributes, "network.transport").as_deref(),
            Some("pipe")
        );
        assert!(attribute(attributes, "jsonrpc.request.id").is_some());
        assert!(attribute(attributes, "error.type").is_none());
        assert_eq!(
            attribute(&exported.resource, "service.name").as_deref(),
            Some("otel-export-test")
        );
        assert_eq!(
            attribute(&exported.resource, "deployment.environment").as_deref(),
            Some("test")
        );
    }

    for kind in [SpanKind::Client, SpanKind::Server] {
        let failed = find(&spans, "tools/call test_error_handling", kind);
        assert_eq!(
            attribute(&failed.span.attributes, "error.type").as_deref(),
            Some("tool_error")
        );
        let status = failed.span.status.as_ref().unwrap();
        assert_eq!(status.code, StatusCode::Error as i32);
    }

    let names = metric_names(&posts);
    for metric in [
        "mcp.client.operation.duration",
        "mcp.server.operation.duration",
    ] {
        assert!(
            names.iter().any(|n| n == metric),
            "{metric} not in {names:?}"
        );
    }
}

#[test]
fn nothing_is_sent_without_the_variables() {
    let (url, posts) = receiver();
    // The receiver is there, but no variable names it.
    let _ = url;
    let run = mcp_with_env(
        LIMIT,
        &[
            "--timeout",
            "20",
            "tools",
            "list",
            "--",
            MCP,
            "serve",
            "everything",
        ],
        &[],
    );
    run.expect(0);
    std::thread::sleep(Duration::from_millis(200));
    assert!(posts.lock().unwrap().is_empty());
}

#[test]
fn an_unreachable_collector_does_not_hold_up_the_command() {
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let run = mcp_with_env(
        LIMIT,
        &[
            "--timeout",
            "20",
            "tools",
            "call",
            "test_simple_text",
            "--",
            MCP,
            "serve",
            "everything",
        ],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())],
    );
    run.expect(0);
}
