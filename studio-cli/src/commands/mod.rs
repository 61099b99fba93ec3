//! The subcommands, and what they share: resolved settings, the client, passwords, key names and
//! the failures `main` turns into exit codes.

pub(crate) mod account;
pub(crate) mod admin;
pub(crate) mod ai;
pub(crate) mod assets;
pub(crate) mod balance;
pub(crate) mod billing;
pub(crate) mod brand;
pub(crate) mod chat;
pub(crate) mod completions;
pub(crate) mod develop;
pub(crate) mod factory;
pub(crate) mod folders;
pub(crate) mod house;
pub(crate) mod jobs;
pub(crate) mod keys;
pub(crate) mod login;
pub(crate) mod logout;
pub(crate) mod looks;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod models;
pub(crate) mod pack;
pub(crate) mod pipeline;
pub(crate) mod prices;
pub(crate) mod runs;
pub(crate) mod search;
pub(crate) mod seats;
pub(crate) mod signup;
pub(crate) mod support;
pub(crate) mod takes;
pub(crate) mod upload;
pub(crate) mod verify;
pub(crate) mod webhooks;
pub(crate) mod whoami;

use std::fmt;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};
use serde::Serialize;
use studio_client::Client;
use studio_client::api::{ApiKey, KeyList, Organization, User};

use crate::config::Config;

/// Where a setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A command-line flag.
    Flag,
    /// An environment variable.
    Env,
    /// The config file.
    ConfigFile,
    /// The built-in default.
    Default,
}

/// The settings every command sees, resolved from flags, the environment and the config file.
pub(crate) struct Context {
    /// The deployment's base URL.
    pub(crate) url: String,
    /// The organization key to act with, if any.
    pub(crate) api_key: Option<String>,
    /// Where `api_key` came from.
    pub(crate) key_source: Source,
    /// The config file in use.
    pub(crate) config_path: PathBuf,
    /// Its contents when the command started.
    pub(crate) config: Config,
}

impl Context {
    /// A client for the deployment, with no credential.
    pub(crate) fn client(&self) -> Result<Client> {
        Ok(Client::builder(&self.url).user_agent(format!("studio-cli/{}", env!("CARGO_PKG_VERSION"))).build()?)
    }

    /// A client acting with the configured key; [`NotSignedIn`] when there is none.
    pub(crate) fn keyed_client(&self) -> Result<Client> {
        let key = self.api_key.as_deref().ok_or(NotSignedIn)?;
        Ok(self.client()?.with_api_key(key))
    }

    /// Tell the person when a key from `--api-key` or `STUDIO_API_KEY` will keep overriding
    /// the key just stored or forgotten.
    pub(crate) fn note_override(&self) {
        match self.key_source {
            Source::Env => eprintln!("note: STUDIO_API_KEY is set and overrides the config file until you unset it"),
            Source::Flag => eprintln!("note: --api-key overrides the config file for commands that are given it"),
            Source::ConfigFile | Source::Default => {}
        }
    }

    /// Say so when the config file held another key: replacing it locally does not revoke it.
    pub(crate) fn note_replaced(&self, new_secret: &str) {
        let Some(old) = self.config.api_key.as_deref().filter(|old| *old != new_secret) else { return };
        let id = self.config.key_id.as_deref().unwrap_or("id unknown");
        let prefix: String = old.chars().take(16).collect();
        eprintln!(
            "note: the key stored before ({id}, {prefix}...) stays valid on the server; \
             revoke it from a signed-in session if nothing else uses it"
        );
    }
}

/// No key is configured. `main` exits with 3.
#[derive(Debug)]
pub(crate) struct NotSignedIn;

impl fmt::Display for NotSignedIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not signed in: no API key configured")
    }
}

impl std::error::Error for NotSignedIn {}

/// The command line is inconsistent in a way clap does not check. `main` exits with 2.
#[derive(Debug)]
pub(crate) struct Usage(pub(crate) String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// The person pressed Ctrl-C while the command waited on work that goes on without it (a
/// develop keeps rendering). `main` exits with 130, the shell's code for an interrupt.
#[derive(Debug)]
pub(crate) struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// A `NOT_FOUND` refusal made on this side (e.g. an id missing from a listing), reported by
/// `main` like the server's own: `error: NOT_FOUND: message`, exit 1.
pub(crate) fn not_found(message: impl Into<String>) -> studio_client::Error {
    studio_client::Error::Api {
        status: 404,
        code: "NOT_FOUND".into(),
        message: message.into(),
        extra: serde_json::Map::new(),
    }
}

/// `n` and the noun, plural unless `n` is 1: `1 asset`, `2 assets`.
pub(crate) fn count(n: impl fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// Rows under a header as aligned columns, two spaces apart, trailing blanks trimmed.
pub(crate) fn columns(header: &[&str], rows: &[Vec<String>]) -> String {
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut widths = vec![0; header.len()];
    for row in std::iter::once(&header).chain(rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        out += cells.join("  ").trim_end();
        out += "\n";
    }
    out
}

/// The password: the one given (`--password` or `STUDIO_PASSWORD`), else one line on stdin. On
/// a terminal the line is prompted for and, where `stty` exists, not echoed.
pub(crate) fn password(given: Option<String>, email: &str) -> Result<String> {
    if let Some(p) = given.filter(|p| !p.is_empty()) {
        return Ok(p);
    }
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut line = String::new();
    if interactive {
        eprint!("Password for {email}: ");
        let _ = std::io::stderr().flush();
        let hidden = stty("-echo");
        let read = stdin.lock().read_line(&mut line);
        if hidden {
            stty("echo");
            eprintln!();
        }
        read.context("cannot read the password from the terminal")?;
    } else {
        stdin.lock().read_line(&mut line).context("cannot read the password from stdin")?;
    }
    let password = line.trim_end_matches(['\r', '\n']).to_string();
    if password.is_empty() {
        return Err(Usage("no password given: pass --password, set STUDIO_PASSWORD, or type it on stdin".into()).into());
    }
    Ok(password)
}

/// Run `stty <arg>` on the terminal; whether it worked.
fn stty(arg: &str) -> bool {
    Command::new("stty")
        .arg(arg)
        .stdin(Stdio::inherit())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The name a key minted by the CLI gets unless `--key-name` says otherwise.
pub(crate) fn key_name(given: Option<String>) -> String {
    let name = given.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    let name = name.unwrap_or_else(|| format!("studio-cli on {}", hostname()));
    name.chars().take(100).collect()
}

/// This machine's name, best effort.
fn hostname() -> String {
    let from_file = ["/proc/sys/kernel/hostname", "/etc/hostname"].iter().find_map(|p| std::fs::read_to_string(p).ok());
    let from_env = || ["COMPUTERNAME", "HOSTNAME"].iter().find_map(|v| std::env::var(v).ok());
    from_file
        .or_else(from_env)
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this computer".into())
}

/// The one live key of `keys` whose shown prefix begins `secret`, if exactly one matches.
pub(crate) fn key_matching(keys: KeyList, secret: &str) -> Option<ApiKey> {
    let mut found = keys.keys.into_iter().filter(|k| k.revoked_at.is_none() && secret.starts_with(&k.prefix));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// How a key is shown: its name and prefix, never the secret.
pub(crate) fn describe_key(key: &ApiKey) -> String {
    format!("\"{}\" ({}..., {})", key.name, key.prefix, key.role)
}

/// What `signup --json` and `login --json` print: who is signed in where, the key stored (its
/// record, never the secret) and the config file it went to.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Stored<'a> {
    /// The deployment's base URL.
    pub(crate) url: &'a str,
    /// The config file written.
    pub(crate) config_path: String,
    /// The person the key acts for.
    pub(crate) user: &'a User,
    /// Their house.
    pub(crate) organization: &'a Organization,
    /// The stored key's record without its secret; null when it could not be identified.
    pub(crate) key: Option<ApiKey>,
}

impl<'a> Stored<'a> {
    /// The report for `key` (its secret dropped) stored in `ctx`'s config file.
    pub(crate) fn new(ctx: &'a Context, user: &'a User, organization: &'a Organization, key: Option<&ApiKey>) -> Self {
        let key = key.map(|k| ApiKey { key: None, ..k.clone() });
        Stored { url: &ctx.url, config_path: ctx.config_path.display().to_string(), user, organization, key }
    }
}

/// Signing in for one call: the commands that need a browser session, never a key.
#[derive(clap::Args)]
pub(crate) struct SignIn {
    /// Sign in as this person [default: the config file's email, written by `studio login` /
    /// `signup`].
    #[arg(long, value_name = "EMAIL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub(crate) email: Option<String>,
    /// Without it: STUDIO_PASSWORD, else one line read from stdin (prompted, unechoed, on a
    /// terminal).
    #[arg(long, env = "STUDIO_PASSWORD", hide_env_values = true, value_name = "PASSWORD")]
    pub(crate) password: Option<String>,
}

/// Sign in as `--email` (else the config file's email) for `what`, saying on stderr why a
/// session is needed (`why`), make one call with the session, and sign out whatever happened
/// (a failed sign-out is only a warning: the session lapses by itself).
pub(crate) async fn with_session<T, F, Fut>(ctx: &Context, sign_in: SignIn, what: &str, why: &str, call: F) -> Result<T>
where
    F: FnOnce(studio_client::Client) -> Fut,
    Fut: std::future::Future<Output = std::result::Result<T, studio_client::Error>>,
{
    let Some(email) = sign_in.email.or_else(|| ctx.config.email.clone()) else {
        return Err(Usage(format!(
            "{what} needs a signed-in session ({why}), and the config file names no email: give --email YOU"
        ))
        .into());
    };
    eprintln!("note: {what} needs a signed-in session, never a key ({why}): signing in as {email} for this call");
    let password = password(sign_in.password, &email)?;
    let client = ctx.client()?;
    let signed = client.sign_in(&email, &password).await?;
    let session = client.with_session(&signed.session);
    let answer = call(session.clone()).await;
    if let Err(e) = session.sign_out().await {
        eprintln!("warning: could not sign the session out (it lapses by itself): {e}");
    }
    Ok(answer?)
}

/// Print the server's answer: as JSON with `--json`, else as `text` renders it.
pub(crate) fn print<T: Serialize>(json: bool, answer: &T, text: impl FnOnce(&T) -> String) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(answer)?);
    } else {
        print!("{}", text(answer));
    }
    Ok(())
}
