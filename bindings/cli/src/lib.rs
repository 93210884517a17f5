//! The `mcp` command: serves the built-in everything server, or talks to any
//! MCP server (`tools`, `resources`, `prompts`, `ping`, `complete`, `logging`,
//! `request`), or to every server of an `mcpServers` file (`servers list`,
//! `tools list --all-servers`; `config.rs`).
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
mod config;
pub mod error;
pub mod everything;
mod input;
mod output;
mod subscribe;
mod telemetry;
pub mod transport;

use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches};
use mcp_core::client::Negotiation;

use args::{
    BuiltinServer, Cli, Command, LoggingCommand, PromptsCommand, ResourcesCommand, ServersCommand,
    SkillsCommand, TargetArgs, ToolsCommand,
};
use commands::{Printing, Request};
use error::CliError;
use transport::{ConnectOptions, ServeMode, Target};

/// Runs the `mcp` command with this process's arguments.
pub fn main() -> ExitCode {
    ExitCode::from(run_with_args("mcp", std::env::args_os().skip(1)))
}

/// Runs the `mcp` command with `args` (without the program name), called
/// `name` in its help and usage texts; returns the exit status. Python's
/// `python -m libmcp` runs the command through this.
pub fn run_with_args<I>(name: &str, args: I) -> u8
where
    I: IntoIterator,
    I::Item: Into<std::ffi::OsString> + Clone,
{
    let command = Cli::command().bin_name(name.to_string());
    let parsed = command
        .try_get_matches_from(
            std::iter::once(std::ffi::OsString::from(name)).chain(args.into_iter().map(Into::into)),
        )
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version end up here too, with status 0.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    // Before the runtime: the exporter's HTTP client has a runtime of its own.
    let telemetry = telemetry::Telemetry::install();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            output::stderr(&format!("error: cannot start the async runtime: {e}"));
            return 1;
        }
    };
    let result = runtime.block_on(run(cli));
    // Stdin is read on a thread that cannot be interrupted: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(500));
    telemetry.finish();
    match result {
        Ok(()) => 0,
        Err(CliError::Reported) => CliError::Reported.status(),
        Err(e) => {
            output::stderr(&format!("error: {e}"));
            e.status()
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
            let mut builder = match serve.server {
                BuiltinServer::Everything => everything::everything_builder(),
            };
            if let Some(dir) = &serve.skills {
                builder =
                    builder.skills(everything::directory_skills(dir).map_err(CliError::request)?);
            }
            let server = builder.build();
            let mode = match serve.http {
                Some(address) => {
                    let mut http = mcp_host::HttpOptions::default();
                    http.parse_address(&address).map_err(CliError::request)?;
                    if let Some(url) = &serve.store {
                        http.set_store(url).map_err(CliError::request)?;
                    }
                    ServeMode::Http(Box::new(http))
                }
                None => ServeMode::Stdio,
            };
            return transport::serve(server, mode).await;
        }
        Command::Servers(ServersCommand::List { config }) => {
            return config::list_servers(&config, options, printing).await;
        }
        Command::Tools(ToolsCommand::List {
            all_servers: true,
            target,
        }) => {
            let Some(path) = target.config else {
                return Err(CliError::Usage("--all-servers needs --config FILE".into()));
            };
            return config::list_all_tools(&path, options, printing).await;
        }
        Command::Tools(ToolsCommand::List { target, .. }) => (Request::ListTools, target),
        Command::Tools(ToolsCommand::Call {
            name,
            pairs,
            args,
            task,
            target,
        }) => {
            let arguments = args.as_deref().map(commands::tool_arguments).transpose()?;
            (
                Request::CallTool {
                    name,
                    arguments,
                    pairs,
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
        Command::Skills(SkillsCommand::List(target)) => (Request::ListSkills, target),
        Command::Skills(SkillsCommand::Get { uri, file, target }) => {
            (Request::GetSkill { uri, file }, target)
        }
        Command::Ping(target) => (Request::Ping, target),
        Command::Logging(LoggingCommand::SetLevel { level, target }) => {
            (Request::SetLevel(level), target)
        }
        Command::Complete(args) => (
            commands::complete_params(
                args.prompt,
                args.resource,
                args.argument,
                args.value,
                args.context,
            )?,
            args.target,
        ),
        Command::Request {
            method,
            params,
            target,
        } => (commands::raw_request(method, params.as_deref())?, target),
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
    let mut target = match (&args.config, args.url) {
        (Some(path), _) => config::target(path, args.server.as_deref())?,
        (None, Some(url)) => Target::Http {
            url,
            headers: Vec::new(),
        },
        (None, None) => stdio_target(args.command, args.env.clone(), args.inherit_env)?,
    };
    let mut extra = args.headers;
    if let Some(token) = args.bearer {
        extra.push(("Authorization".into(), format!("Bearer {token}")));
    }
    match &mut target {
        Target::Http { headers, .. } => {
            // Given on the command line, they win over the configuration's.
            headers.retain(|(name, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)));
            headers.extend(extra);
        }
        Target::Stdio {
            env, inherit_env, ..
        } => {
            if !extra.is_empty() {
                return Err(CliError::Usage(
                    "--header and --bearer are for HTTP servers (--url)".into(),
                ));
            }
            if args.config.is_some() {
                env.extend(args.env);
                *inherit_env |= args.inherit_env;
            }
        }
    }
    Ok(target)
}

fn stdio_target(
    command: Vec<std::ffi::OsString>,
    env: Vec<(String, String)>,
    inherit_env: bool,
) -> Result<Target, CliError> {
    let mut command = command.into_iter();
    let Some(program) = command.next() else {
        return Err(CliError::Usage(
            "no server given: add `-- COMMAND ARGS…` (stdio) or `--url URL`".into(),
        ));
    };
    Ok(Target::Stdio {
        program,
        args: command.collect(),
        env,
        inherit_env,
        cwd: None,
    })
}
