//! `studio house`: the houses you sit in. `ls` lists them; `switch` signs in, points the
//! session at another house (`POST /api/auth/switch-house`), mints a key for this machine
//! there and stores it, so the CLI acts for that house from then on. Minting needs an owner's
//! or admin's seat in that house; a member or viewer asks one of them for a key and stores it
//! with `studio login --api-key`.

use anyhow::{Context as _, Result};
use clap::builder::NonEmptyStringValueParser;

use super::{Context, SignIn, Stored, columns, describe_key, key_name, password};
use crate::config;

/// List the houses you sit in, or switch the CLI to another.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `house` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List the houses you sit in and your role in each (signs in for the call: a key knows
    /// only its own house).
    #[command(alias = "list")]
    Ls(Ls),
    /// Act for another house: signs in, switches, mints and stores a key for that house.
    Switch(Switch),
}

/// `studio house ls`.
#[derive(clap::Args)]
struct Ls {
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"profile", "houses", "admin"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio house switch`.
#[derive(clap::Args)]
struct Switch {
    /// The house's organization id (`org_...`, from `studio house ls`).
    #[arg(value_name = "ORGANIZATION_ID", value_parser = NonEmptyStringValueParser::new())]
    organization_id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Name of the minted key [default: "studio-cli on <hostname>"].
    #[arg(long, value_name = "NAME")]
    key_name: Option<String>,
    /// Print {"url", "configPath", "user", "organization", "key"} as JSON (never the secret).
    #[arg(long)]
    json: bool,
}

/// Run one `house` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => {
            let me = super::with_session(
                ctx,
                a.sign_in,
                "listing houses",
                "a key knows only its own house",
                |c| async move { c.me().await },
            )
            .await?;
            if a.json {
                println!("{}", serde_json::to_string(&me)?);
                return Ok(());
            }
            let rows: Vec<Vec<String>> = me
                .houses
                .iter()
                .map(|h| {
                    let mut notes = Vec::new();
                    if h.founder {
                        notes.push("yours");
                    }
                    vec![h.organization_id.clone(), h.name.clone(), h.role.to_string(), notes.join(", ")]
                })
                .collect();
            print!("{}", columns(&["ID", "NAME", "ROLE", ""], &rows));
            Ok(())
        }
        Command::Switch(a) => switch(ctx, a).await,
    }
}

/// Sign in, switch the session, mint a key there, store it, sign out.
async fn switch(ctx: &Context, args: Switch) -> Result<()> {
    let email = args
        .sign_in
        .email
        .clone()
        .or_else(|| ctx.config.email.clone())
        .ok_or_else(|| super::Usage("switching houses signs in: give --email YOU".into()))?;
    let password = password(args.sign_in.password.clone(), &email)?;
    let client = ctx.client()?;
    let signed = client.sign_in(&email, &password).await?;
    let session = client.with_session(&signed.session);
    let outcome = async {
        let house = session.switch_house(&args.organization_id).await?;
        let key = session.mint_key(&key_name(args.key_name.clone()), None).await?;
        let who = session.session().await?;
        Ok::<_, studio_client::Error>((house, key, who))
    }
    .await;
    if let Err(e) = session.sign_out().await {
        eprintln!("warning: could not sign the session out (it lapses by itself): {e}");
    }
    let (house, key, who) = outcome?;
    let secret = key.key.clone().context("the server minted a key but did not return its secret")?;
    let mut stored = ctx.config.clone();
    stored.url = Some(ctx.url.clone());
    stored.api_key = Some(secret);
    stored.key_id = Some(key.id.clone());
    stored.email = Some(who.user.email.clone());
    config::save(&ctx.config_path, &stored)?;
    ctx.note_replaced(stored.api_key.as_deref().unwrap_or_default());
    if args.json {
        println!("{}", serde_json::to_string(&Stored::new(ctx, &who.user, &who.organization, Some(&key)))?);
    } else {
        println!("Now acting for {} ({}) as {}.", house.organization_name, house.organization_id, house.role);
        println!("Key {} saved to {}.", describe_key(&key), ctx.config_path.display());
    }
    ctx.note_override();
    Ok(())
}
