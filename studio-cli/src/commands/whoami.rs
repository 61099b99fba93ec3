//! `studio whoami`: who the configured key acts for (`GET /api/auth/session`).

use anyhow::Result;

use super::{Context, Source};

/// Show the person, house and role the configured key acts for.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Print the server's session object as JSON.
    #[arg(long)]
    json: bool,
}

/// Fetch and print the session.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let who = ctx.keyed_client()?.session().await?;
    if args.json {
        println!("{}", serde_json::to_string(&who)?);
        return Ok(());
    }
    match &who.user.name {
        Some(name) => println!("{} ({name})", who.user.email),
        None => println!("{}", who.user.email),
    }
    println!("House:  {} ({})", who.organization.name, who.organization.id);
    println!("Role:   {}", who.role);
    println!("Server: {}", ctx.url);
    let from = match ctx.key_source {
        Source::Flag => "--api-key".to_string(),
        Source::Env => "STUDIO_API_KEY".to_string(),
        Source::ConfigFile | Source::Default => ctx.config_path.display().to_string(),
    };
    println!("Key:    from {from}");
    Ok(())
}
