//! The command line.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mcp_core::client::Negotiation;
use mcp_core::schema::LoggingLevel;

const AFTER_HELP: &str = "\
The server to talk to is given after `--` as a command to start (stdio), as
--url URL (Streamable HTTP), or as --config FILE [--server NAME] (an
mcpServers file as Claude Desktop, Cursor and VS Code write them), e.g.
  mcp tools list -- mcp serve everything
  mcp tools call add_numbers a=2 b=3 -- mcp serve everything
  mcp tools call add_numbers --args '{\"a\": 2, \"b\": 3}' --url http://127.0.0.1:3000/mcp
  mcp tools list --config mcp.json --all-servers

Exit status:
  0  success
  1  the request failed: the server answered with an error, or the tool
     result has isError (it is printed first)
  2  bad command line (including --args that is not a JSON object, and an
     argument the library refused)
  3  no session: the server could not be started, reached or authorized,
     or did not initialize (also: --store or --http ADDR unusable)";

/// Serve the built-in everything MCP server, or talk to any MCP server.
#[derive(Debug, Parser)]
#[command(name = "mcp", version, after_help = AFTER_HELP)]
pub(crate) struct Cli {
    /// Print results as raw JSON (for scripts).
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// Seconds to wait for each answer from the server.
    #[arg(
        long,
        global = true,
        value_name = "SECONDS",
        default_value = "60",
        value_parser = parse_seconds
    )]
    pub(crate) timeout: Duration,

    /// Do not show the server's stderr, log messages or progress.
    #[arg(long, short, global = true)]
    pub(crate) quiet: bool,

    /// The protocol revision: `auto` (the newest both sides speak, probed
    /// with server/discover), `legacy` (initialize only), or one of
    /// 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05.
    #[arg(
        long,
        global = true,
        value_name = "REVISION",
        default_value = "auto",
        value_parser = parse_protocol
    )]
    pub(crate) protocol: Negotiation,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve a built-in server over stdio (or Streamable HTTP with --http).
    Serve(ServeArgs),
    /// List or call the server's tools.
    #[command(subcommand)]
    Tools(ToolsCommand),
    /// List or read the server's resources.
    #[command(subcommand)]
    Resources(ResourcesCommand),
    /// List or get the server's prompts.
    #[command(subcommand)]
    Prompts(PromptsCommand),
    /// List or load the server's skills (the skills extension).
    #[command(subcommand)]
    Skills(SkillsCommand),
    /// Check that the server answers.
    Ping(TargetArgs),
    /// The servers of an mcpServers configuration file.
    #[command(subcommand)]
    Servers(ServersCommand),
    /// The server's log messages.
    #[command(subcommand)]
    Logging(LoggingCommand),
    /// Complete a prompt's or resource template's argument
    /// (completion/complete).
    Complete(CompleteArgs),
    /// Send any request: METHOD with --params JSON (known methods are
    /// checked against the schema first; others are sent as given).
    Request {
        /// The method, e.g. tools/list.
        method: String,
        /// The params, as a JSON object.
        #[arg(long, value_name = "JSON")]
        params: Option<String>,
        #[command(flatten)]
        target: TargetArgs,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ServersCommand {
    /// List the servers of a configuration and whether each answers (exit
    /// status 1 if any does not).
    List {
        /// The mcpServers configuration file.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum LoggingCommand {
    /// Ask for log messages of LEVEL and above (logging/setLevel; under
    /// 2026-07-28 the level goes with each request instead).
    SetLevel {
        /// debug, info, notice, warning, error, critical, alert or emergency.
        #[arg(value_parser = parse_level)]
        level: LoggingLevel,
        #[command(flatten)]
        target: TargetArgs,
    },
}

#[derive(Debug, Args)]
pub(crate) struct CompleteArgs {
    /// The prompt whose argument to complete.
    #[arg(long, value_name = "NAME", required_unless_present = "resource")]
    pub(crate) prompt: Option<String>,
    /// The resource template (its URI template) whose variable to complete.
    #[arg(long, value_name = "URI_TEMPLATE", conflicts_with = "prompt")]
    pub(crate) resource: Option<String>,
    /// The argument (or template variable) to complete.
    #[arg(long, value_name = "NAME")]
    pub(crate) argument: String,
    /// What has been typed so far.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub(crate) value: String,
    /// An argument already chosen, NAME=VALUE (repeatable).
    #[arg(long = "context", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub(crate) context: Vec<(String, String)>,
    #[command(flatten)]
    pub(crate) target: TargetArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Which server.
    #[arg(value_enum)]
    pub(crate) server: BuiltinServer,

    /// Serve Streamable HTTP on this address (e.g. 127.0.0.1:3000) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,

    /// Share sessions, stream events, changes and the requestState key with
    /// other replicas through this store (with --http), e.g.
    /// redis://127.0.0.1:6379/0.
    #[arg(long, value_name = "URL", requires = "http")]
    pub(crate) store: Option<String>,

    /// Serve the skills of this directory (each folder with a SKILL.md is a
    /// skill) in place of the built-in fixture skills.
    #[arg(long, value_name = "DIR")]
    pub(crate) skills: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BuiltinServer {
    /// Every fixture of the MCP conformance suite.
    Everything,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolsCommand {
    /// List the tools.
    List {
        /// Every server of --config, names namespaced as SERVER__TOOL.
        #[arg(long, requires = "config", conflicts_with = "server")]
        all_servers: bool,
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Call a tool.
    Call {
        /// The tool's name.
        name: String,
        /// Arguments as KEY=VALUE: a VALUE that is JSON is taken as such
        /// (unless the tool's schema says the argument is a string), any
        /// other as a string. Merged over --args.
        #[arg(value_name = "KEY=VALUE", value_parser = parse_pair)]
        pairs: Vec<(String, String)>,
        /// The arguments, as a JSON object.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        /// Run the call as a task: start it, poll it (answering its questions), then take its
        /// result (2025-11-25 core tasks, or the 2026-07-28 tasks extension when the server
        /// offers it).
        #[arg(long)]
        task: bool,
        #[command(flatten)]
        target: TargetArgs,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ResourcesCommand {
    /// List the resources.
    List(TargetArgs),
    /// Read a resource.
    Read {
        /// The resource's URI.
        uri: String,
        #[command(flatten)]
        target: TargetArgs,
    },
    /// List the resource templates.
    Templates(TargetArgs),
    /// Print each update of a resource until Ctrl-C (one JSON line each
    /// with --json).
    Subscribe {
        /// The resource's URI.
        uri: String,
        #[command(flatten)]
        target: TargetArgs,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum PromptsCommand {
    /// List the prompts.
    List(TargetArgs),
    /// Get a prompt.
    Get {
        /// The prompt's name.
        name: String,
        /// The arguments, as a JSON object of strings.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        #[command(flatten)]
        target: TargetArgs,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum SkillsCommand {
    /// List the skills (reads none of their files).
    List(TargetArgs),
    /// Load a skill: print its SKILL.md, verified against the listing
    /// (size, digest, frontmatter), or with --file one of its other files,
    /// verified the same way.
    Get {
        /// The skill's URI (its SKILL.md), e.g. skill://pdf-processing/SKILL.md.
        uri: String,
        /// Print this file of the skill instead of its SKILL.md.
        #[arg(long, value_name = "URI")]
        file: Option<String>,
        #[command(flatten)]
        target: TargetArgs,
    },
}

/// Which server to talk to.
#[derive(Debug, Args)]
pub(crate) struct TargetArgs {
    /// The server's Streamable HTTP endpoint.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub(crate) url: Option<String>,

    /// A header sent with every HTTP request, `NAME: VALUE` (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub(crate) headers: Vec<(String, String)>,

    /// A bearer token for an HTTP server (sent as `Authorization: Bearer
    /// TOKEN`, instead of OAuth).
    #[arg(long, value_name = "TOKEN")]
    pub(crate) bearer: Option<String>,

    /// An mcpServers configuration file (Claude Desktop, Cursor, VS Code)
    /// naming the server.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["url", "command"])]
    pub(crate) config: Option<PathBuf>,

    /// The server of --config (needed when it names more than one).
    #[arg(long, value_name = "NAME", requires = "config")]
    pub(crate) server: Option<String>,

    /// An environment variable for the server process (repeatable). Only
    /// PATH, HOME, LANG and a few more are passed otherwise.
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    pub(crate) env: Vec<(String, String)>,

    /// Pass this process's whole environment to the server process.
    #[arg(long)]
    pub(crate) inherit_env: bool,

    /// The command that starts the server (stdio), and its arguments.
    #[arg(
        last = true,
        value_name = "COMMAND",
        required_unless_present_any = ["url", "config"]
    )]
    pub(crate) command: Vec<OsString>,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= 86_400.0) {
        return Err(format!(
            "{text} is not between 0 and 86400 seconds (exclusive of 0)"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn parse_protocol(text: &str) -> Result<Negotiation, String> {
    mcp_host::parse_negotiation(text).map_err(|e| e.to_string())
}

fn parse_header(text: &str) -> Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err(format!("`{text}` is not `NAME: VALUE`")),
    }
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!(
            "`{text}` is not KEY=VALUE (give the server's command after `--`)"
        )),
    }
}

fn parse_level(text: &str) -> Result<LoggingLevel, String> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).map_err(|_| {
        format!(
            "`{text}` is not a log level: use debug, info, notice, warning, error, critical, \
             alert or emergency"
        )
    })
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("`{text}` is not KEY=VALUE")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use mcp_core::ProtocolVersion;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_targets_and_options() {
        let cli = Cli::try_parse_from([
            "mcp", "tools", "call", "add", "--args", "{}", "--json", "--env", "A=b=c", "--",
            "server", "--flag",
        ])
        .unwrap();
        assert!(cli.json);
        let Command::Tools(ToolsCommand::Call {
            name, args, target, ..
        }) = cli.command
        else {
            panic!()
        };
        assert_eq!((name.as_str(), args.as_deref()), ("add", Some("{}")));
        assert_eq!(target.command, ["server", "--flag"]);
        assert_eq!(target.env, [("A".to_string(), "b=c".to_string())]);

        let cli = Cli::try_parse_from(["mcp", "ping", "--url", "http://localhost:1/mcp"]).unwrap();
        let Command::Ping(target) = cli.command else {
            panic!()
        };
        assert_eq!(target.url.as_deref(), Some("http://localhost:1/mcp"));
    }

    #[test]
    fn parses_the_protocol_before_or_after_the_subcommand() {
        let cli = Cli::try_parse_from(["mcp", "ping", "--", "s"]).unwrap();
        assert_eq!(cli.protocol, Negotiation::Auto);
        let cli =
            Cli::try_parse_from(["mcp", "--protocol", "2025-06-18", "ping", "--", "s"]).unwrap();
        assert_eq!(
            cli.protocol,
            Negotiation::Pinned(ProtocolVersion::V2025_06_18)
        );
        let cli =
            Cli::try_parse_from(["mcp", "ping", "--protocol", "2026-07-28", "--", "s"]).unwrap();
        assert_eq!(
            cli.protocol,
            Negotiation::Pinned(ProtocolVersion::V2026_07_28)
        );
        let e = Cli::try_parse_from(["mcp", "ping", "--protocol", "2020-01-01", "--", "s"])
            .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("not a protocol revision"), "{e}");
    }

    #[test]
    fn rejects_missing_or_conflicting_targets() {
        assert!(Cli::try_parse_from(["mcp", "ping"]).is_err());
        assert!(Cli::try_parse_from(["mcp", "ping", "--url", "http://x", "--", "server"]).is_err());
        assert!(Cli::try_parse_from(["mcp", "--timeout", "0", "ping", "--", "s"]).is_err());
        assert!(Cli::try_parse_from(["mcp", "ping", "--env", "NOEQUALS", "--", "s"]).is_err());
    }
}
