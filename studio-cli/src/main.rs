//! The `studio` binary: parse the command line, resolve settings, run one command, and decide
//! the exit code and the error message.

mod commands;
mod config;
mod hints;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands::{
    Context, Interrupted, NotSignedIn, Source, Usage, account, admin, ai, assets, balance, billing, brand, chat,
    completions, develop, factory, folders, house, jobs, keys, login, logout, looks, mcp, memory, models, pack,
    pipeline, prices, runs, search, seats, signup, support, takes, upload, verify, webhooks, whoami,
};

/// Printed after `studio --help`.
const AFTER_HELP: &str = "\
Settings:
  The URL and key live in the config file (default: <config dir>/studio/config.toml, e.g.
  ~/.config/studio/config.toml on Linux, ~/Library/Application Support/studio/config.toml on
  macOS), written with mode 0600. --url/STUDIO_URL and --api-key/STUDIO_API_KEY override it;
  --config/STUDIO_CONFIG names another file. Without any URL: http://127.0.0.1:8787.

Output:
  Every command that prints data takes --json: one JSON document on stdout (jobs watch: one
  per line). Progress bars and notes go to stderr, and only when it is a terminal.

Exit codes:
  0    success
  1    failure (the server refused, the network, the config file)
  2    usage error (a bad flag or value, a missing argument)
  3    authentication: no key configured, the server answered 401 (unknown or revoked key,
       wrong email or password)
  4    insufficient tokens: the server answered 402; the message says need and spendable
  130  interrupted (Ctrl-C) while waiting; the work goes on server-side
  `studio verify FILE` answers with its own: 0 credentials intact, 1 tampered or invalid (or
  the file unreadable), 2 the file carries none";

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
    /// Mint, list and revoke the house's organization keys (mint and revoke sign in for the call).
    Keys(keys::Args),
    /// The house's token balance and open holds.
    Balance(balance::Args),
    /// The admin console's reads: overview, develops, failures, ai-costs, tokenomics, payments,
    /// offerings (an allowlisted admin; each signs in for the call).
    Admin(admin::Args),
    /// Plans and token packs: the catalog, checkouts (prints the URL to pay), the billing
    /// portal and auto top-up (buying signs in as the owner for the call).
    Billing(billing::Args),
    /// Who the configured key acts for.
    Whoami(whoami::Args),
    /// The account page: you, the plan, tokens and where they went, invoices.
    Account(account::Args),
    /// List, invite, re-seat and remove the house's seats (changes sign in for the call).
    Seats(seats::Args),
    /// The houses you sit in; switch the CLI to act for another.
    House(house::Args),
    /// What the studio remembers about the house and about you.
    Memory(memory::Args),
    /// Ask support for help: raise a ticket, reply, list and read your threads.
    Support(support::Args),
    /// Upload images (files, or directories walked recursively) to the library.
    Upload(upload::Args),
    /// List, show, move and delete the library's assets.
    Assets(assets::Args),
    /// List, create and rename collections (folders).
    Folders(folders::Args),
    /// Search the house: assets, looks, models, memories, your tickets and pipeline presets.
    Search(search::Args),
    /// Chat with the studio assistant: it answers and proposes actions with their price, and
    /// applies one only when you say yes (new, ls, show, say and apply for scripts).
    Chat(chat::Args),
    /// Pack assets (ids, or a whole collection) into a zip, download it and check it.
    Pack(pack::Args),
    /// Develop an image with a tool (upload or library inputs); --wait follows it, -o saves it.
    Develop(develop::Args),
    /// List, show, watch, cancel and duplicate develop jobs.
    Jobs(jobs::Args),
    /// Take landed frames again, optionally with a direction.
    Takes(takes::Args),
    /// Propose looks from pieces and price them (plan), then draft them as one batch (run).
    Factory(factory::Args),
    /// List develop runs and cancel their queued frames.
    Runs(runs::Args),
    /// The tools this deployment runs and their prices in tokens.
    Prices(prices::Args),
    /// Looks: create from selections, develop the base frame, lock, unlock, develop variations.
    Looks(looks::Args),
    /// Models: the casting board (ls, show, own, set, preview) and its market (explore, take,
    /// buy prints the checkout URL, owned shows holdings and open checkouts).
    Models(models::Args),
    /// Pipelines: price a plan of develop steps over items (preview), run it with every frame
    /// held at once (--wait follows it), and list, show and cancel runs.
    Pipeline(pipeline::Args),
    /// The house's brand: show and change the profile and the clause develops carry, read it from
    /// images (dna), and keep the renditions of the house's mark (marks ls|add|set|rm).
    Brand(brand::Args),
    /// AI lanes and text tools, 1 token each (a failure costs nothing): remove-bg, segment,
    /// depth (save a PNG with -o), detect, describe, build, character, face, and prompt
    /// build|enhance|shots|keywords.
    Ai(ai::Args),
    /// The house's webhook endpoints: ls, add, rm, rotate, test, deliveries and replay (changes
    /// sign in for the call), and listen --forward-to URL, which posts the house's events,
    /// signed, to a local receiver.
    Webhooks(webhooks::Args),
    /// Serve MCP on stdio for a desktop agent, bridged to the deployment's agent endpoint.
    ///
    /// Each JSON-RPC line on stdin is POSTed to {url}/api/mcp with the configured key; each answer
    /// comes back on stdout as one line (a notification gets none). Diagnostics go to stderr.
    /// EOF on stdin ends it. See docs/mcp.md.
    Mcp(mcp::Args),
    /// Check a file's content credentials (C2PA) offline: exit 0 when intact, 1 when tampered
    /// or invalid, 2 when the file carries none.
    Verify(verify::Args),
    /// Print a shell completion script (bash, zsh, fish) on stdout.
    Completions(completions::Args),
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    // Usage errors, --help and --version exit here, with clap's own codes (2 and 0).
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // Needs no settings: works before any login and with a broken config file.
    if let Cmd::Completions(args) = &cli.command {
        return match completions::run(Cli::command(), args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => report(&e, None),
        };
    }
    // Offline, and its exit code is its verdict.
    if let Cmd::Verify(args) = &cli.command {
        return verify::run(args);
    }
    let ctx = match resolve(&cli, &matches) {
        Ok(ctx) => ctx,
        Err(e) => return report(&e, None),
    };
    let done = match cli.command {
        Cmd::Signup(args) => signup::run(&ctx, args).await,
        Cmd::Login(args) => login::run(&ctx, args).await,
        Cmd::Logout(args) => logout::run(&ctx, args).await,
        Cmd::Keys(args) => keys::run(&ctx, args).await,
        Cmd::Webhooks(args) => webhooks::run(&ctx, args).await,
        Cmd::Balance(args) => balance::run(&ctx, args).await,
        Cmd::Admin(args) => admin::run(&ctx, args).await,
        Cmd::Billing(args) => billing::run(&ctx, args).await,
        Cmd::Whoami(args) => whoami::run(&ctx, args).await,
        Cmd::Account(args) => account::run(&ctx, args).await,
        Cmd::Seats(args) => seats::run(&ctx, args).await,
        Cmd::House(args) => house::run(&ctx, args).await,
        Cmd::Memory(args) => memory::run(&ctx, args).await,
        Cmd::Support(args) => support::run(&ctx, args).await,
        Cmd::Upload(args) => upload::run(&ctx, args).await,
        Cmd::Assets(args) => assets::run(&ctx, args).await,
        Cmd::Folders(args) => folders::run(&ctx, args).await,
        Cmd::Search(args) => search::run(&ctx, args).await,
        Cmd::Chat(args) => chat::run(&ctx, args).await,
        Cmd::Pack(args) => pack::run(&ctx, args).await,
        Cmd::Develop(args) => develop::run(&ctx, args).await,
        Cmd::Jobs(args) => jobs::run(&ctx, args).await,
        Cmd::Takes(args) => takes::run(&ctx, args).await,
        Cmd::Factory(args) => factory::run(&ctx, args).await,
        Cmd::Runs(args) => runs::run(&ctx, args).await,
        Cmd::Prices(args) => prices::run(&ctx, args).await,
        Cmd::Looks(args) => looks::run(&ctx, args).await,
        Cmd::Models(args) => models::run(&ctx, args).await,
        Cmd::Pipeline(args) => pipeline::run(&ctx, args).await,
        Cmd::Brand(args) => brand::run(&ctx, args).await,
        Cmd::Ai(args) => ai::run(&ctx, args).await,
        Cmd::Mcp(args) => mcp::run(&ctx, args).await,
        Cmd::Completions(args) => completions::run(Cli::command(), &args),
        Cmd::Verify(_) => unreachable!("verify answered above"),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_in(&e, Some(&ctx.url), matches.subcommand_name()),
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
    report_in(err, url, None)
}

/// [`report`] for an error `command` (the subcommand's name) met, whose hints may depend on it.
fn report_in(err: &anyhow::Error, url: Option<&str>, command: Option<&str>) -> ExitCode {
    if err.chain().any(|e| e.is::<Interrupted>()) {
        // The command already said what goes on and how to follow it.
        return ExitCode::from(130);
    }
    if let Some(api) = err.chain().find_map(|e| e.downcast_ref::<studio_client::Error>()) {
        return report_client(api, url, command);
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

/// The client's errors: the server's code and message, then what to do (from [`hints`]).
fn report_client(err: &studio_client::Error, url: Option<&str>, command: Option<&str>) -> ExitCode {
    let studio_client::Error::Api { status, code, message, .. } = err else {
        eprintln!("error: {}", chain(err));
        match (err, url) {
            (studio_client::Error::Transport(_), Some(url)) => {
                eprintln!("hint: is a Studio server running at {url}? Pass --url or set STUDIO_URL")
            }
            (studio_client::Error::Decode { .. }, Some(url)) => eprintln!(
                "hint: {url} answered something that is not Studio's: check --url / STUDIO_URL, \
                 and that the CLI is not older than the server"
            ),
            _ => {}
        }
        return ExitCode::FAILURE;
    };
    eprintln!("error: {code}: {message}");
    // A route the server does not have, asked of a URL with a path: the URL is the suspect.
    let path = url.and_then(|u| u.split_once("://")).and_then(|(_, rest)| rest.split_once('/')).map(|(_, p)| p);
    if code == "NOT_FOUND" && message == "No such route." && path.is_some_and(|p| !p.trim_matches('/').is_empty()) {
        eprintln!(
            "hint: check --url / STUDIO_URL: it is the server's root, such as http://127.0.0.1:8787, with no \
             path; {} has one",
            url.unwrap_or_default()
        );
        return ExitCode::FAILURE;
    }
    // A refusal made on this side already says what to do.
    if !message.contains("`studio ") {
        eprintln!("hint: {}", hints::hint_in(err, command));
    }
    match (*status, code.as_str()) {
        (401, _) | (_, "UNAUTHORIZED") => ExitCode::from(3),
        (402, _) | (_, "INSUFFICIENT_TOKENS") => ExitCode::from(4),
        _ => ExitCode::FAILURE,
    }
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
