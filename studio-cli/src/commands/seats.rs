//! `studio seats`: the house's seats (§4.9): list them with the configured key; invite,
//! re-seat and remove sign in for the call, because seats change only from a signed-in
//! session (a key belongs to the house, not to a person).

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::Client;
use studio_client::api::SeatRole;

use super::{Context, SignIn, Usage, columns};

/// List, invite, re-seat and remove the house's seats.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `seats` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List the seats and the pending invitations.
    #[command(alias = "list")]
    Ls(Ls),
    /// Invite an address to a seat; prints the link to send (signs in for the call).
    Invite(Invite),
    /// Give a person another role (signs in for the call).
    Role(Role),
    /// Remove a person's seat; their work stays with the house (signs in for the call).
    #[command(alias = "remove")]
    Rm(Rm),
}

/// `studio seats ls`.
#[derive(clap::Args)]
struct Ls {
    /// Print the server's {"organizationId", "seats", "invitations"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio seats invite`.
#[derive(clap::Args)]
struct Invite {
    /// The address to invite.
    #[arg(value_name = "ADDRESS", value_parser = NonEmptyStringValueParser::new())]
    address: String,
    /// The seat offered: admin, member or viewer (owner: only the owner offers it, and
    /// accepting it hands the house over).
    #[arg(long, value_name = "ROLE", default_value = "member", value_parser = ["owner", "admin", "member", "viewer"])]
    role: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's invitation as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio seats role`.
#[derive(clap::Args)]
struct Role {
    /// The person's user id (`usr_...`, from `studio seats ls`).
    #[arg(value_name = "USER_ID", value_parser = NonEmptyStringValueParser::new())]
    user_id: String,
    /// The new role: admin, member or viewer.
    #[arg(value_name = "ROLE", value_parser = ["admin", "member", "viewer"])]
    role: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"userId", "role", "email"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio seats rm`.
#[derive(clap::Args)]
struct Rm {
    /// The person's user id (`usr_...`, from `studio seats ls`).
    #[arg(value_name = "USER_ID", value_parser = NonEmptyStringValueParser::new())]
    user_id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"userId", "email", "workStaysWithHouse"} as JSON.
    #[arg(long)]
    json: bool,
}

fn role(s: &str) -> Result<SeatRole> {
    s.parse().map_err(|_| Usage(format!("{s} is not a seat role")).into())
}

/// Run one `seats` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => ls(ctx, a).await,
        Command::Invite(a) => {
            let (email, seat) = (a.address.clone(), role(&a.role)?);
            let inv =
                with_session(ctx, a.sign_in, "inviting", |c| async move { c.invite_seat(&email, seat).await }).await?;
            if a.json {
                println!("{}", serde_json::to_string(&inv)?);
            } else {
                println!("{}", inv.url);
                eprintln!(
                    "Invited {} as {} to {} until {}: send them the link above.",
                    inv.email,
                    inv.role,
                    inv.organization_name,
                    inv.expires_at.format("%Y-%m-%d %H:%M UTC")
                );
            }
            Ok(())
        }
        Command::Role(a) => {
            let (user, seat) = (a.user_id.clone(), role(&a.role)?);
            let done =
                with_session(ctx, a.sign_in, "re-seating", |c| async move { c.set_seat_role(&user, seat).await })
                    .await?;
            if a.json {
                println!("{}", serde_json::to_string(&done)?);
            } else {
                println!("{} is now {}.", done.email, done.role);
            }
            Ok(())
        }
        Command::Rm(a) => {
            let user = a.user_id.clone();
            let done =
                with_session(ctx, a.sign_in, "removing a seat", |c| async move { c.remove_seat(&user).await }).await?;
            if a.json {
                println!("{}", serde_json::to_string(&done)?);
            } else {
                println!("Removed {}; their work stays with the house.", done.email);
            }
            Ok(())
        }
    }
}

async fn ls(ctx: &Context, args: Ls) -> Result<()> {
    let list = ctx.keyed_client()?.seats().await?;
    if args.json {
        println!("{}", serde_json::to_string(&list)?);
        return Ok(());
    }
    let rows: Vec<Vec<String>> = list
        .seats
        .iter()
        .map(|s| {
            vec![
                s.user_id.clone(),
                s.email.clone(),
                s.name.clone().unwrap_or_else(|| "-".into()),
                s.role.to_string(),
                s.joined_at.format("%Y-%m-%d").to_string(),
            ]
        })
        .collect();
    print!("{}", columns(&["USER", "EMAIL", "NAME", "ROLE", "JOINED"], &rows));
    if !list.invitations.is_empty() {
        println!("\nPending invitations:");
        let rows: Vec<Vec<String>> = list
            .invitations
            .iter()
            .map(|i| {
                vec![i.id.clone(), i.email.clone(), i.role.to_string(), i.expires_at.format("%Y-%m-%d").to_string()]
            })
            .collect();
        print!("{}", columns(&["ID", "EMAIL", "ROLE", "EXPIRES"], &rows));
    }
    Ok(())
}

async fn with_session<T, F, Fut>(ctx: &Context, sign_in: SignIn, what: &str, call: F) -> Result<T>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = std::result::Result<T, studio_client::Error>>,
{
    super::with_session(ctx, sign_in, what, "a key belongs to the house and cannot change who sits in it", call).await
}
