//! `studio logout`: forget the stored key; with `--revoke`, revoke it first, which needs a
//! signed-in session because a key cannot revoke keys.

use anyhow::{Context as _, Result, anyhow};
use serde::Serialize;

use super::{Context, key_matching, password};
use crate::config;

/// Forget the stored key. With --revoke --email, sign in and revoke it on the server first.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Also revoke the key on the server. Keys are revoked from a signed-in session, never with
    /// a key: give --email too, or the key is only forgotten here and stays valid.
    #[arg(long)]
    revoke: bool,
    /// With --revoke: sign in as this person (an owner or admin of the house) to revoke the key.
    #[arg(long, value_name = "EMAIL", requires = "revoke")]
    email: Option<String>,
    /// With --email. Without it: STUDIO_PASSWORD, else one line read from stdin.
    #[arg(long, env = "STUDIO_PASSWORD", hide_env_values = true, value_name = "PASSWORD")]
    password: Option<String>,
    /// Print {"forgot": bool, "revoked": ID or null, "configPath"} as JSON.
    #[arg(long)]
    json: bool,
}

/// What `--json` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    /// Whether a key was removed from the config file.
    forgot: bool,
    /// The id of the key revoked on the server, if one was.
    revoked: Option<String>,
    /// The config file.
    config_path: String,
}

/// Revoke (when asked and possible), then remove the key from the config file.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let path = ctx.config_path.display();
    let report = |forgot, revoked| Report { forgot, revoked, config_path: path.to_string() };
    let Some(secret) = ctx.config.api_key.clone() else {
        if args.json {
            println!("{}", serde_json::to_string(&report(false, None))?);
        } else {
            println!("No key is stored in {path}; nothing to forget.");
        }
        ctx.note_override();
        return Ok(());
    };
    let mut revoked = None;
    if args.revoke {
        match &args.email {
            Some(email) => revoked = Some(revoke(ctx, &secret, email, args.password, args.json).await?),
            None => {
                let which = ctx.config.key_id.as_deref().unwrap_or("stored in the config file");
                eprintln!(
                    "warning: not revoked: a key cannot revoke itself, keys are revoked from a signed-in session. \
                     The key ({which}) stays valid on the server; revoke it with \
                     `studio logout --revoke --email YOU` or `studio keys revoke ID --email YOU`."
                );
            }
        }
    }
    let mut stored = ctx.config.clone();
    stored.forget_key();
    config::save(&ctx.config_path, &stored)?;
    if args.json {
        println!("{}", serde_json::to_string(&report(true, revoked))?);
    } else {
        println!("Forgot the key stored in {path}.");
    }
    ctx.note_override();
    Ok(())
}

/// Sign in, revoke the stored key by id (found by prefix when the config lacks it), sign out.
async fn revoke(ctx: &Context, secret: &str, email: &str, given: Option<String>, json: bool) -> Result<String> {
    let password = password(given, email)?;
    let client = ctx.client()?;
    let signed = client.sign_in(email, &password).await?;
    let session = client.with_session(&signed.session);
    let revoked = revoke_with(&session, ctx.config.key_id.clone(), secret).await;
    if let Err(e) = session.sign_out().await {
        eprintln!("warning: could not sign the session out: {e}");
    }
    let id = revoked?;
    if !json {
        println!("Revoked key {id} on {}.", ctx.url);
    }
    Ok(id)
}

/// Revoke with a session; the id revoked.
async fn revoke_with(session: &studio_client::Client, key_id: Option<String>, secret: &str) -> Result<String> {
    let id = match key_id {
        Some(id) => id,
        None => {
            let keys = session.list_keys().await?;
            key_matching(keys, secret)
                .map(|k| k.id)
                .ok_or_else(|| anyhow!("the stored key is not a live key of this person's house; nothing revoked"))?
        }
    };
    let answer = session.revoke_key(&id).await?;
    answer.revoked.then_some(answer.id).context("the server did not confirm the revocation")
}
