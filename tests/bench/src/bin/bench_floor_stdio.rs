//! The stdio floor: reads newline-delimited JSON-RPC from stdin with
//! serde_json and answers every request with a canned response on stdout.
//! What any stdio MCP server must at least do; nothing more.

use std::io::{BufRead, BufReader, BufWriter, Write};

use mcp_bench::write_canned_response;
use serde_json::Value;

fn main() {
    let stdin = std::io::stdin().lock();
    let mut reader = BufReader::with_capacity(64 * 1024, stdin);
    let mut writer = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = String::with_capacity(8 * 1024);
    let mut out = Vec::with_capacity(8 * 1024);
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Notifications and unreadable lines get no answer.
        if let Ok(Value::Object(message)) = serde_json::from_str::<Value>(&line) {
            if let Some(id) = message.get("id") {
                out.clear();
                write_canned_response(&mut out, &id.to_string());
                out.push(b'\n');
                if writer.write_all(&out).is_err() {
                    break;
                }
            }
        }
        // Flush once nothing more is already waiting to be read.
        if reader.buffer().is_empty() && writer.flush().is_err() {
            break;
        }
    }
    let _ = writer.flush();
}
