//! `studio signup`: create a person and their house, mint a key for this machine and store it.

use anyhow::{Context as _, Result};
use studio_client::api::KeyRole;

use super::{Context, Stored, describe_key, key_name, password};
use crate::config;

/// Create an account and house, then mint and store a key for this machine.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Your email; it is also your sign-in name.
    #[arg(long, value_name = "EMAIL")]
    email: String,
    /// At least 10 characters. Without it: STUDIO_PASSWORD, else one line read from stdin.
    #[arg(long, env = "STUDIO_PASSWORD", hide_env_values = true, value_name = "PASSWORD")]
    password: Option<String>,
    /// Your display name; the house is named after it.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Name of the key minted for this machine [default: "studio-cli on <hostname>"].
    #[arg(long, value_name = "NAME")]
    key_name: Option<String>,
    /// Role of that key: member (reads and spends tokens) or viewer (reads only).
    #[arg(long, value_name = "ROLE", default_value = "member")]
    role: KeyRole,
    /// Print {"url", "configPath", "user", "organization", "key"} as JSON (the key's record,
    /// never its secret).
    #[arg(long)]
    json: bool,
}

/// Sign up, mint a key with the new session, store URL and key, close the session.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let password = password(args.password, &args.email)?;
    let client = ctx.client()?;
    let signed = client.sign_up(&args.email, &password, args.name.as_deref()).await?;
    let (user, house) = (&signed.account.user, &signed.account.organization);
    let session = client.with_session(&signed.session);
    let key = match session.mint_key(&key_name(args.key_name), Some(args.role)).await {
        Ok(key) => key,
        Err(e) => {
            eprintln!(
                "note: the account {} was created but no key was minted; run `studio login --email {}`",
                user.email, user.email
            );
            let _ = session.sign_out().await;
            return Err(e.into());
        }
    };
    let secret = key.key.clone().context("the server minted a key but did not return its secret")?;
    let mut stored = ctx.config.clone();
    stored.url = Some(ctx.url.clone());
    stored.api_key = Some(secret.clone());
    stored.key_id = Some(key.id.clone());
    stored.email = Some(user.email.clone());
    config::save(&ctx.config_path, &stored)?;
    ctx.note_replaced(stored.api_key.as_deref().unwrap_or_default());
    if let Err(e) = session.sign_out().await {
        eprintln!("warning: could not close the sign-up session: {e}");
    }

    if args.json {
        println!("{}", serde_json::to_string(&Stored::new(ctx, user, house, Some(&key)))?);
        ctx.note_override();
        return Ok(());
    }
    match &user.name {
        Some(name) => println!("Signed up {} ({name}) at {}.", user.email, ctx.url),
        None => println!("Signed up {} at {}.", user.email, ctx.url),
    }
    println!("House: {} ({}); you are its owner.", house.name, house.id);
    println!("Key {} saved to {}.", describe_key(&key), ctx.config_path.display());
    match client.with_api_key(secret).balance().await {
        Ok(b) => println!("Tokens: {} spendable to start; `studio balance` shows them.", b.balance),
        Err(_) => println!("Run `studio balance` to see the house's tokens."),
    }
    ctx.note_override();
    Ok(())
}
