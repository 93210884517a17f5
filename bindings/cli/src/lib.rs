//! The `mcp` command: serves the built-in everything server, or talks to any
//! MCP server (`tools`, `resources`, `prompts`, `ping`).
//!
//! The transports are chosen in one place, [`transport::connect`] for the
//! client commands and [`transport::serve`] for `mcp serve`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool prints its results and errors"
)]

mod args;
mod commands;
pub mod error;
pub mod everything;
mod input;
mod output;
mod subscribe;
pub mod transport;

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mcp_core::client::Negotiation;

use args::{
    BuiltinServer, Cli, Command, PromptsCommand, ResourcesCommand, TargetArgs, ToolsCommand,
};
use commands::{Printing, Request};
use error::CliError;
use transport::{ConnectOptions, ServeMode, Target};

/// Runs the `mcp` command with this process's arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version end up here too, with status 0.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            output::stderr(&format!("error: cannot start the async runtime: {e}"));
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli));
    // Stdin is read on a thread that cannot be interrupted: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(500));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Reported) => CliError::Reported.exit_code(),
        Err(e) => {
            output::stderr(&format!("error: {e}"));
            e.exit_code()
        }
    }
}

async fn run(cli: Cli) -> Result<(), CliError> {
    let printing = Printing {
        json: cli.json,
        quiet: cli.quiet,
    };
    let mut options = ConnectOptions {
        timeout: cli.timeout,
        quiet: cli.quiet,
        negotiation: cli.protocol,
    };
    let (request, target) = match cli.command {
        Command::Serve(serve) => {
            let store = match &serve.store {
                Some(url) => Some(transport::connect_store(url).await?),
                None => None,
            };
            let builder = match serve.server {
                BuiltinServer::Everything => everything::everything_builder(),
            };
            let server = match &store {
                Some(store) => builder.request_state_key(transport::shared_key(store).await?),
                None => builder,
            }
            .build();
            let mode = match serve.http {
                Some(addr) => ServeMode::Http(addr),
                None => ServeMode::Stdio,
            };
            return transport::serve_with(server, mode, store).await;
        }
        Command::Tools(ToolsCommand::List(target)) => (Request::ListTools, target),
        Command::Tools(ToolsCommand::Call {
            name,
            args,
            task,
            target,
        }) => {
            let arguments = args.as_deref().map(commands::tool_arguments).transpose()?;
            (
                Request::CallTool {
                    name,
                    arguments,
                    task,
                },
                target,
            )
        }
        Command::Resources(ResourcesCommand::List(target)) => (Request::ListResources, target),
        Command::Resources(ResourcesCommand::Read { uri, target }) => {
            (Request::ReadResource { uri }, target)
        }
        Command::Resources(ResourcesCommand::Templates(target)) => (Request::ListTemplates, target),
        Command::Resources(ResourcesCommand::Subscribe { uri, target }) => {
            (Request::Subscribe { uri }, target)
        }
        Command::Prompts(PromptsCommand::List(target)) => (Request::ListPrompts, target),
        Command::Prompts(PromptsCommand::Get { name, args, target }) => {
            let arguments = args
                .as_deref()
                .map(commands::prompt_arguments)
                .transpose()?;
            (Request::GetPrompt { name, arguments }, target)
        }
        Command::Ping(target) => (Request::Ping, target),
    };
    let target = target_of(target)?;
    let mut client = transport::connect(&target, options).await?;
    if matches!(request, Request::CallTool { task: true, .. })
        && options.negotiation == Negotiation::Auto
        && client.protocol_version().has_extensions()
        && !client.offers_tasks_extension()
    {
        // The server speaks 2026-07-28 without the tasks extension: its
        // tasks, if any, are the 2025-11-25 core API.
        client.close().await;
        options.negotiation = Negotiation::Legacy;
        client = transport::connect(&target, options).await?;
    }
    let result = if matches!(request, Request::Subscribe { .. }) {
        // Runs until Ctrl-C, which ends it normally.
        commands::run(&client, request, printing).await
    } else {
        tokio::select! {
            result = commands::run(&client, request, printing) => result,
            _ = tokio::signal::ctrl_c() => Err(CliError::Failed("interrupted".into())),
        }
    };
    client.close().await;
    result
}

fn target_of(args: TargetArgs) -> Result<Target, CliError> {
    if let Some(url) = args.url {
        return Ok(Target::Http { url });
    }
    let mut command = args.command.into_iter();
    let Some(program) = command.next() else {
        return Err(CliError::Usage(
            "no server given: add `-- COMMAND ARGS…` (stdio) or `--url URL`".into(),
        ));
    };
    Ok(Target::Stdio {
        program,
        args: command.collect(),
        env: args.env,
        inherit_env: args.inherit_env,
    })
}
