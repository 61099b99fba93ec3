//! `studio login`: sign in and mint a key for this machine, or store an existing key after
//! checking it.

use anyhow::{Context as _, Result};
use studio_client::api::KeyRole;

use super::{Context, Source, Stored, Usage, describe_key, key_matching, key_name, password};
use crate::config;

/// Sign in and store a fresh key for this machine, or store an existing key (--api-key).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Sign in as this person; a key is minted for this machine and the session is closed.
    #[arg(long, value_name = "EMAIL")]
    email: Option<String>,
    /// Without it: STUDIO_PASSWORD, else one line read from stdin.
    #[arg(long, env = "STUDIO_PASSWORD", hide_env_values = true, value_name = "PASSWORD")]
    password: Option<String>,
    /// Name of the minted key [default: "studio-cli on <hostname>"].
    #[arg(long, value_name = "NAME")]
    key_name: Option<String>,
    /// Role of the minted key: member (reads and spends tokens) or viewer (reads only).
    #[arg(long, value_name = "ROLE", default_value = "member")]
    role: KeyRole,
    /// Print {"url", "configPath", "user", "organization", "key"} as JSON (the key's record,
    /// never its secret; null when a stored key could not be identified).
    #[arg(long)]
    json: bool,
}

/// `--email`: password sign-in and a new key. Otherwise `--api-key` / `STUDIO_API_KEY`: store it.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match (args.email.clone(), ctx.key_source) {
        (Some(_), Source::Flag) => Err(Usage("give either --email or --api-key, not both".into()).into()),
        (Some(email), _) => with_password(ctx, args, &email).await,
        (None, Source::Flag | Source::Env) => store_key(ctx, args.json).await,
        (None, Source::ConfigFile | Source::Default) => Err(Usage(
            "give --email to sign in and mint a key, or --api-key studio_sk_... to store an existing key".into(),
        )
        .into()),
    }
}

/// Sign in, mint a key with the session, store it, sign the session out.
async fn with_password(ctx: &Context, args: Args, email: &str) -> Result<()> {
    let json = args.json;
    let password = password(args.password, email)?;
    let client = ctx.client()?;
    let signed = client.sign_in(email, &password).await?;
    let session = client.with_session(&signed.session);
    let key = match session.mint_key(&key_name(args.key_name), Some(args.role)).await {
        Ok(key) => key,
        Err(e) => {
            let _ = session.sign_out().await;
            return Err(e.into());
        }
    };
    let secret = key.key.clone().context("the server minted a key but did not return its secret")?;
    let (user, house) = (&signed.account.user, &signed.account.organization);
    let mut stored = ctx.config.clone();
    stored.url = Some(ctx.url.clone());
    stored.api_key = Some(secret);
    stored.key_id = Some(key.id.clone());
    stored.email = Some(user.email.clone());
    let saved = config::save(&ctx.config_path, &stored);
    if let Err(e) = session.sign_out().await {
        eprintln!("warning: could not sign the session out (the key is what stays): {e}");
    }
    saved?;
    ctx.note_replaced(stored.api_key.as_deref().unwrap_or_default());
    if json {
        println!("{}", serde_json::to_string(&Stored::new(ctx, user, house, Some(&key)))?);
        ctx.note_override();
        return Ok(());
    }
    println!("Logged in as {} to {} at {}.", user.email, house.name, ctx.url);
    println!("Key {} saved to {}.", describe_key(&key), ctx.config_path.display());
    ctx.note_override();
    Ok(())
}

/// Check the given key with `GET /api/auth/session`, then store it.
async fn store_key(ctx: &Context, json: bool) -> Result<()> {
    let secret = ctx.api_key.clone().context("no key given")?;
    let client = ctx.keyed_client()?;
    let who = client.session().await?;
    // Knowing the id lets `logout --revoke` name the key later; listing is best effort.
    let key = client.list_keys().await.ok().and_then(|keys| key_matching(keys, &secret));
    let mut stored = ctx.config.clone();
    stored.url = Some(ctx.url.clone());
    stored.api_key = Some(secret);
    stored.key_id = key.as_ref().map(|k| k.id.clone());
    stored.email = Some(who.user.email.clone());
    config::save(&ctx.config_path, &stored)?;
    ctx.note_replaced(stored.api_key.as_deref().unwrap_or_default());
    if json {
        println!("{}", serde_json::to_string(&Stored::new(ctx, &who.user, &who.organization, key.as_ref()))?);
        return Ok(());
    }
    println!("Logged in as {} to {} ({}) at {}.", who.user.email, who.organization.name, who.role, ctx.url);
    match &key {
        Some(key) => println!("Key {} saved to {}.", describe_key(key), ctx.config_path.display()),
        None => println!("Key saved to {}.", ctx.config_path.display()),
    }
    Ok(())
}
