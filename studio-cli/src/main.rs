//! The `studio` binary: parse the command line, resolve settings, run one command, and decide
//! the exit code and the error message.

mod commands;
mod config;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands::{
    Context, Interrupted, NotSignedIn, Source, Usage, assets, balance, develop, folders, jobs, login, logout, mcp,
    pack, prices, runs, signup, takes, upload, whoami,
};

/// Printed after `studio --help`.
const AFTER_HELP: &str = "\
Settings:
  The URL and key live in the config file (default: <config dir>/studio/config.toml, e.g.
  ~/.config/studio/config.toml), written with mode 0600. --url/STUDIO_URL and
  --api-key/STUDIO_API_KEY override it; --config/STUDIO_CONFIG names another file.
  Without any URL: http://127.0.0.1:8787.

Exit codes:
  0  success
  1  failure (the server refused, the network, the config file)
  2  usage error
  3  authentication: no key configured, or the server answered 401
  4  insufficient tokens: the server answered 402
  130  interrupted (Ctrl-C) while waiting; the work goes on server-side";

/// Terminal workflows against a Studio deployment: accounts, keys, the token balance, the library
/// and develops.
#[derive(Parser)]
#[command(name = "studio", version, after_help = AFTER_HELP)]
struct Cli {
    /// Base URL of the Studio deployment [default: the config file's, else http://127.0.0.1:8787].
    #[arg(long, global = true, env = "STUDIO_URL", value_name = "URL")]
    url: Option<String>,
    /// Organization key (studio_sk_...) to act with instead of the config file's.
    #[arg(long, global = true, env = "STUDIO_API_KEY", hide_env_values = true, value_name = "KEY")]
    api_key: Option<String>,
    /// Config file to read and write [default: <config dir>/studio/config.toml].
    #[arg(long, global = true, env = "STUDIO_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    command: Cmd,
}

/// The subcommands.
#[derive(Subcommand)]
enum Cmd {
    /// Create an account and house, then store a key for this machine.
    Signup(signup::Args),
    /// Sign in and store a key for this machine, or store an existing key.
    Login(login::Args),
    /// Forget the stored key (--revoke: revoke it on the server first).
    Logout(logout::Args),
    /// The house's token balance and open holds.
    Balance(balance::Args),
    /// Who the configured key acts for.
    Whoami(whoami::Args),
    /// Upload images (files, or directories walked recursively) to the library.
    Upload(upload::Args),
    /// List, show, move and delete the library's assets.
    Assets(assets::Args),
    /// List, create and rename collections (folders).
    Folders(folders::Args),
    /// Pack assets (ids, or a whole collection) into a zip, download it and check it.
    Pack(pack::Args),
    /// Develop an image with a tool (upload or library inputs); --wait follows it, -o saves it.
    Develop(develop::Args),
    /// List, show, watch, cancel and duplicate develop jobs.
    Jobs(jobs::Args),
    /// Take landed frames again, optionally with a direction.
    Takes(takes::Args),
    /// List develop runs and cancel their queued frames.
    Runs(runs::Args),
    /// The tools this deployment runs and their prices in tokens.
    Prices(prices::Args),
    /// Serve MCP on stdio for a desktop agent, bridged to the deployment's agent endpoint.
    ///
    /// Each JSON-RPC line on stdin is POSTed to {url}/api/mcp with the configured key; each answer
    /// comes back on stdout as one line (a notification gets none). Diagnostics go to stderr.
    /// EOF on stdin ends it. See docs/mcp.md.
    Mcp(mcp::Args),
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    // Usage errors, --help and --version exit here, with clap's own codes (2 and 0).
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let ctx = match resolve(&cli, &matches) {
        Ok(ctx) => ctx,
        Err(e) => return report(&e, None),
    };
    let done = match cli.command {
        Cmd::Signup(args) => signup::run(&ctx, args).await,
        Cmd::Login(args) => login::run(&ctx, args).await,
        Cmd::Logout(args) => logout::run(&ctx, args).await,
        Cmd::Balance(args) => balance::run(&ctx, args).await,
        Cmd::Whoami(args) => whoami::run(&ctx, args).await,
        Cmd::Upload(args) => upload::run(&ctx, args).await,
        Cmd::Assets(args) => assets::run(&ctx, args).await,
        Cmd::Folders(args) => folders::run(&ctx, args).await,
        Cmd::Pack(args) => pack::run(&ctx, args).await,
        Cmd::Develop(args) => develop::run(&ctx, args).await,
        Cmd::Jobs(args) => jobs::run(&ctx, args).await,
        Cmd::Takes(args) => takes::run(&ctx, args).await,
        Cmd::Runs(args) => runs::run(&ctx, args).await,
        Cmd::Prices(args) => prices::run(&ctx, args).await,
        Cmd::Mcp(args) => mcp::run(&ctx, args).await,
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report(&e, Some(&ctx.url)),
    }
}

/// Flags and environment over the config file over the defaults.
fn resolve(cli: &Cli, matches: &ArgMatches) -> anyhow::Result<Context> {
    let config_path = match &cli.config {
        Some(path) => path.clone(),
        None => config::default_path()?,
    };
    let config = config::load(&config_path)?;
    let given = |value: &Option<String>, id: &str| {
        value.clone().filter(|v| !v.trim().is_empty()).map(|v| (v, source_of(matches, id)))
    };
    let (url, _) = given(&cli.url, "url")
        .or_else(|| config.url.clone().map(|u| (u, Source::ConfigFile)))
        .unwrap_or_else(|| (config::DEFAULT_URL.to_string(), Source::Default));
    let (api_key, key_source) = match given(&cli.api_key, "api_key") {
        Some((key, source)) => (Some(key), source),
        None => match config.api_key.clone() {
            Some(key) => (Some(key), Source::ConfigFile),
            None => (None, Source::Default),
        },
    };
    Ok(Context { url: url.trim_end_matches('/').to_string(), api_key, key_source, config_path, config })
}

/// Whether a global flag came from the command line or the environment.
fn source_of(matches: &ArgMatches, id: &str) -> Source {
    let source = matches.value_source(id).or_else(|| matches.subcommand().and_then(|(_, sub)| sub.value_source(id)));
    match source {
        Some(ValueSource::EnvVariable) => Source::Env,
        _ => Source::Flag,
    }
}

/// Print the error to stderr and choose the exit code: 1 failure, 2 usage, 3 authentication,
/// 4 insufficient tokens, 130 interrupted.
fn report(err: &anyhow::Error, url: Option<&str>) -> ExitCode {
    if err.chain().any(|e| e.is::<Interrupted>()) {
        // The command already said what goes on and how to follow it.
        return ExitCode::from(130);
    }
    if let Some(api) = err.chain().find_map(|e| e.downcast_ref::<studio_client::Error>()) {
        return report_client(api, url);
    }
    if err.chain().any(|e| e.is::<NotSignedIn>()) {
        eprintln!("error: {}", chain(&**err));
        eprintln!("hint: run `studio login` (or `studio signup`), or set STUDIO_API_KEY");
        return ExitCode::from(3);
    }
    eprintln!("error: {}", chain(&**err));
    if err.chain().any(|e| e.is::<Usage>()) {
        eprintln!("\nFor more information, try '--help'.");
        return ExitCode::from(2);
    }
    ExitCode::FAILURE
}

/// The client's errors: the server's code and message, with a hint for the codes people meet.
fn report_client(err: &studio_client::Error, url: Option<&str>) -> ExitCode {
    let studio_client::Error::Api { status, code, message, .. } = err else {
        eprintln!("error: {}", chain(err));
        if let (studio_client::Error::Transport(_), Some(url)) = (err, url) {
            eprintln!("hint: is a Studio server running at {url}? Pass --url or set STUDIO_URL");
        }
        return ExitCode::FAILURE;
    };
    eprintln!("error: {code}: {message}");
    if let Some(hint) = hint(err, code) {
        eprintln!("hint: {hint}");
    }
    match (*status, code.as_str()) {
        (401, _) | (_, "UNAUTHORIZED") => ExitCode::from(3),
        (402, _) | (_, "INSUFFICIENT_TOKENS") => ExitCode::from(4),
        _ => ExitCode::FAILURE,
    }
}

/// A sentence on what to do next, for the codes the CLI's commands meet.
fn hint(err: &studio_client::Error, code: &str) -> Option<String> {
    Some(match code {
        "UNAUTHORIZED" => "run `studio login`: no key is configured, or the key is unknown or revoked".into(),
        "INSUFFICIENT_TOKENS" => match (err.extra_i64("need"), err.extra_i64("spendable")) {
            (Some(need), Some(spendable)) => format!("needs {need} tokens, house has {spendable} spendable"),
            _ => "the house has too few spendable tokens; see `studio balance`".into(),
        },
        "EMAIL_TAKEN" => "that email already has an account: use `studio login --email ...`".into(),
        "BAD_CREDENTIALS" => "check the email and password (--password, STUDIO_PASSWORD or stdin)".into(),
        "WEAK_PASSWORD" => "choose a longer password".into(),
        "BAD_EMAIL" => "check the address given to --email".into(),
        "SESSION_REQUIRED" => {
            "keys are minted and revoked from a signed-in session, never with a key: use `--email`".into()
        }
        "FORBIDDEN" => "your role in the house does not allow this; ask an owner or admin".into(),
        "UNKNOWN_TOOL" => "run `studio prices` for the tools this deployment runs".into(),
        "NO_IMAGE" => "give the image with --image PATH|ASSET_ID, or by role with --input ROLE=PATH|ASSET_ID".into(),
        "NO_INPUTS" => "the job's inputs are gone; develop it afresh with `studio develop`".into(),
        "NOT_DEVELOPED" => {
            "only landed (done) frames can be taken again; see `studio jobs show ID`, or wait with `studio jobs watch`"
                .into()
        }
        "IDEMPOTENCY_KEY_REUSED" => {
            "that idempotency key was used for a different request; use a new --idempotency-key".into()
        }
        "IMAGE_TOO_LARGE" => match err.extra_i64("maxMb") {
            Some(max) => format!("each image is at most {max} MB"),
            None => "the image is too large".into(),
        },
        "DEVELOP_FAILED" => "try again, or with another input or quality".into(),
        _ => return None,
    })
}

/// An error and its causes on one line, skipping causes already spelled out by the line.
pub(crate) fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut cause = err.source();
    while let Some(e) = cause {
        let text = e.to_string();
        if !line.contains(&text) {
            line = format!("{line}: {text}");
        }
        cause = e.source();
    }
    line
}
