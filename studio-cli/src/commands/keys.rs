//! `studio keys`: the house's organization keys (spec §2.1, §4.1, §5): mint, list, revoke.
//!
//! Minting and revoking need a signed-in session (an owner's or admin's): a key cannot mint or
//! revoke keys, because a key able to mint keys could not be revoked. The CLI stores only a key,
//! so `mint` and `revoke` sign in for the one call (the email from `--email`, else the config
//! file's; the password from `--password`, `STUDIO_PASSWORD` or stdin) and sign out after.
//! Listing works with the configured key.

use anyhow::{Context as _, Result};
use clap::builder::NonEmptyStringValueParser;
use studio_client::Client;
use studio_client::api::{ApiKey, KeyRole};

use super::{Context, SignIn, Usage, columns, describe_key};
use crate::config;

/// Mint, list and revoke the house's organization keys.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `keys` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// Mint a key (signs in for the call: keys are minted from a session, never with a key).
    /// The secret is printed once, on stdout.
    Mint(Mint),
    /// List every key the house minted, revoked included (never a secret).
    #[command(alias = "list")]
    Ls(Ls),
    /// Revoke a key: refused from the next request on (signs in for the call).
    #[command(alias = "rm")]
    Revoke(Revoke),
}

/// `studio keys mint`.
#[derive(clap::Args)]
struct Mint {
    /// The key's label, 1 to 100 characters, e.g. "CI" or "retoucher laptop".
    #[arg(value_name = "NAME", value_parser = NonEmptyStringValueParser::new())]
    name: String,
    /// member (reads and spends tokens) or viewer (reads only).
    #[arg(long, value_name = "ROLE", default_value = "member", value_parser = ["member", "viewer"])]
    role: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's key record, secret included: {"id", "name", "role", "prefix",
    /// "lastUsedAt", "revokedAt", "createdAt", "key"}.
    #[arg(long)]
    json: bool,
}

/// `studio keys ls`.
#[derive(clap::Args)]
struct Ls {
    /// List with a session signed in as this person instead of the configured key.
    #[arg(long, value_name = "EMAIL", value_parser = NonEmptyStringValueParser::new())]
    email: Option<String>,
    /// With --email. Without it: STUDIO_PASSWORD, else one line read from stdin.
    #[arg(long, env = "STUDIO_PASSWORD", hide_env_values = true, value_name = "PASSWORD")]
    password: Option<String>,
    /// Print the server's {"keys": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio keys revoke`.
#[derive(clap::Args)]
struct Revoke {
    /// The key's id (`key_...`, from `studio keys ls`).
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"revoked": true, "id"} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `keys` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Mint(a) => mint(ctx, a).await,
        Command::Ls(a) => ls(ctx, a).await,
        Command::Revoke(a) => revoke(ctx, a).await,
    }
}

/// Sign in, mint, sign out; the secret on stdout once, the warning on stderr.
async fn mint(ctx: &Context, args: Mint) -> Result<()> {
    let role: KeyRole = args.role.parse().map_err(|_| Usage(format!("--role {} is not a key role", args.role)))?;
    let name = args.name.clone();
    let key = with_session(ctx, args.sign_in, "minting a key", |c| async move { c.mint_key(&name, Some(role)).await })
        .await?;
    let secret = key.key.clone().context("the server minted a key but did not return its secret")?;
    if args.json {
        println!("{}", serde_json::to_string(&key)?);
    } else {
        println!("{secret}");
    }
    eprintln!("Minted key {}: {} at {}.", key.id, describe_key(&key), ctx.url);
    eprintln!(
        "warning: the secret above is shown this once and is stored nowhere (the server keeps only its hash): \
         keep it now. A lost key cannot be recovered; mint a new one and revoke the old with `studio keys revoke {}`.",
        key.id
    );
    Ok(())
}

/// List with the configured key, or with a session when `--email` is given.
async fn ls(ctx: &Context, args: Ls) -> Result<()> {
    let keys = match args.email {
        Some(email) => {
            let sign_in = SignIn { email: Some(email), password: args.password };
            with_session(ctx, sign_in, "listing", |c| async move { c.list_keys().await }).await?
        }
        None => ctx.keyed_client()?.list_keys().await?,
    };
    if args.json {
        println!("{}", serde_json::to_string(&keys)?);
    } else if keys.keys.is_empty() {
        println!("No keys.");
    } else {
        print!("{}", table(&keys.keys, ctx.api_key.as_deref()));
    }
    Ok(())
}

/// Sign in, revoke, sign out. Revoking the key the config file holds also forgets it there.
async fn revoke(ctx: &Context, args: Revoke) -> Result<()> {
    let id = args.id.clone();
    let answer = with_session(ctx, args.sign_in, "revoking a key", |c| async move { c.revoke_key(&id).await }).await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!("Revoked key {}: it is refused from the next request on.", answer.id);
    }
    if ctx.config.key_id.as_deref() == Some(answer.id.as_str()) {
        let mut stored = ctx.config.clone();
        stored.forget_key();
        config::save(&ctx.config_path, &stored)?;
        eprintln!(
            "note: that was the key stored in {}; it is forgotten there. Run `studio login` to store a new one.",
            ctx.config_path.display()
        );
    }
    Ok(())
}

/// Sign in for `what` and make one call with the session.
async fn with_session<T, F, Fut>(ctx: &Context, sign_in: SignIn, what: &str, call: F) -> Result<T>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = std::result::Result<T, studio_client::Error>>,
{
    super::with_session(ctx, sign_in, what, "a key cannot mint or revoke keys", call).await
}

/// How times are shown in the listing.
const MINUTE: &str = "%Y-%m-%d %H:%M";

/// The listing as aligned columns; the key this CLI acts with is marked.
fn table(keys: &[ApiKey], in_use: Option<&str>) -> String {
    let rows: Vec<Vec<String>> = keys
        .iter()
        .map(|k| {
            let status = match (k.revoked_at, in_use.is_some_and(|s| s.starts_with(&k.prefix))) {
                (Some(at), _) => format!("revoked {}", at.format(MINUTE)),
                (None, true) => "active (this CLI)".to_string(),
                (None, false) => "active".to_string(),
            };
            vec![
                k.id.clone(),
                k.name.clone(),
                k.role.as_str().to_string(),
                format!("{}...", k.prefix),
                k.created_at.format(MINUTE).to_string(),
                k.last_used_at.map_or_else(|| "-".to_string(), |t| t.format(MINUTE).to_string()),
                status,
            ]
        })
        .collect();
    columns(&["ID", "NAME", "ROLE", "PREFIX", "CREATED (UTC)", "LAST USED (UTC)", "STATUS"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str, prefix: &str, revoked: bool) -> ApiKey {
        let mut key = ApiKey {
            id: id.into(),
            name: format!("name {id}"),
            role: KeyRole::Member,
            prefix: prefix.into(),
            last_used_at: None,
            revoked_at: None,
            created_at: "2025-01-02T03:04:05Z".parse().unwrap(),
            key: None,
        };
        key.revoked_at = revoked.then_some(key.created_at);
        key
    }

    #[test]
    fn table_marks_the_key_in_use_and_the_revoked() {
        let keys = [key("key_1", "studio_sk_aaaaaa", false), key("key_2", "studio_sk_bbbbbb", true)];
        let text = table(&keys, Some("studio_sk_aaaaaa0123456789"));
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(
            lines[0],
            "ID     NAME        ROLE    PREFIX               CREATED (UTC)     LAST USED (UTC)  STATUS"
        );
        assert_eq!(
            lines[1],
            "key_1  name key_1  member  studio_sk_aaaaaa...  2025-01-02 03:04  -                active (this CLI)"
        );
        assert!(lines[2].ends_with("revoked 2025-01-02 03:04"), "{text}");
    }
}
