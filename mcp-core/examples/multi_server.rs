//! A client of several servers at once, from an `mcpServers` file (the
//! format of Claude Desktop, Cursor and VS Code):
//!
//! ```sh
//! cargo run -p mcp-core --example multi_server -- mcp.json [TOOL [JSON_ARGUMENTS]]
//! ```
//!
//! Prints each server's state and the merged tool list (`server__tool`),
//! then calls TOOL if given, and prints every change the servers announce
//! until Ctrl-C when no tool is given.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example prints"
)]

use mcp_core::client::group::GroupEvent;
use mcp_core::client::{Client, ClientGroup, GroupConfig};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: multi_server CONFIG.json [TOOL [JSON_ARGUMENTS]]");
        std::process::exit(2);
    };
    let config = GroupConfig::from_file(&path)?;
    let group = ClientGroup::builder(Client::builder("multi-server-example", "1.0.0"))
        .on_stderr(|server, line| eprintln!("[{server}] {line}"))
        .connect(&config)
        .await;

    for status in group.status() {
        match &status.error {
            Some(error) => println!("{:<16} {} ({error})", status.name, status.state),
            None => println!(
                "{:<16} {} ({} tools)",
                status.name, status.state, status.tools
            ),
        }
    }
    for tool in group.tools() {
        println!("  {}", tool.name);
    }

    if let Some(tool) = args.next() {
        let arguments = match args.next() {
            Some(json) => Some(serde_json::from_str(&json)?),
            None => None,
        };
        match group.call_tool(&tool, arguments).await {
            Ok(result) => println!("{}", serde_json::to_string_pretty(&result.content)?),
            // Names the server: "server `files`: …".
            Err(e) => eprintln!("error: {e}"),
        }
    } else {
        println!("watching for changes (Ctrl-C to stop)");
        let mut events = group.events();
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    Ok(GroupEvent::ToolsChanged { server }) => {
                        println!("{server}: tools changed; now {} tools", group.tools().len());
                    }
                    Ok(GroupEvent::Status(status)) => println!("{}: {}", status.name, status.state),
                    Ok(_) => {}
                    Err(_) => break,
                },
                _ = tokio::signal::ctrl_c() => break,
            }
        }
    }
    group.close().await;
    Ok(())
}
