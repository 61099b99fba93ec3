//! studio-server: the Studio HTTP API on axum, over studio-core.
//!
//! [`ServerConfig`] is loaded once (defaults < TOML file < `STUDIO_*` environment);
//! [`build_app`] opens the storage and returns the router, whose every route is documented in
//! the generated `/openapi.json`; [`serve`] runs it until a shutdown signal.

mod auth;
mod config;
mod console;
mod docs;
mod error;
mod extract;
mod ratelimit;
mod respond;
mod routes;
mod state;

pub use crate::{
    config::{ConfigError, ServerConfig},
    state::AppState,
};

use std::future::Future;
use std::net::SocketAddr;

use axum::Router;
use studio_core::Studio;
use tokio::net::TcpListener;

/// Open the configured storage and blob store (creating the data directory and migrating),
/// with no background work: what the operator commands use.
pub async fn open_studio(config: &ServerConfig) -> anyhow::Result<Studio> {
    std::fs::create_dir_all(&config.data_dir)?;
    let core = studio_core::CoreConfig {
        signing_key: config.signing_key()?,
        credentials: config.content_credentials()?,
        ..config.core_config()
    };
    Ok(Studio::open(&config.database_url(), &config.blob_config()?, core).await?)
}

/// Install the learned segmenter when `studio-server models fetch` put its weights in the data
/// dir (their SHA-256 checked here) and `STUDIO_SEGMENTER` is not `classical`; say in the log
/// which segmenter the cutout tools run.
fn install_segmenter(config: &ServerConfig) {
    let weights = studio_core::U2NET;
    let path = studio_core::segmenter::weights_path(&config.data_dir, &weights);
    if config.segmenter == "classical" {
        tracing::info!("segmenter: classical (saliency + GrabCut, behind the subject gate), as STUDIO_SEGMENTER asks");
    } else if !path.exists() {
        tracing::info!(
            "segmenter: classical (saliency + GrabCut, behind the subject gate); `studio-server models fetch` installs              the learned one ({})",
            weights.name
        );
    } else {
        match studio_core::segmenter::install(&path) {
            Ok(()) => tracing::info!(
                weights = %path.display(),
                "segmenter: learned ({}, SHA-256 checked, loaded on the first cutout), behind the subject gate",
                weights.name
            ),
            Err(e) => tracing::warn!("segmenter: classical; the learned segmenter's weights are not usable: {e}"),
        }
    }
}

/// Open the configured storage (creating the data directory and migrating) and build the app.
pub async fn build_app(config: &ServerConfig) -> anyhow::Result<(Router, AppState)> {
    let studio = open_studio(config).await?;
    install_segmenter(config);
    if config.billing == "test" {
        tracing::warn!(
            "billing runs in TEST MODE: its checkout pages on this server grant tokens to anyone who opens them and no \
             money moves. Never expose it; set STUDIO_BILLING=polar (or off) for real use."
        );
    }
    if !config.admin_emails.is_empty() {
        tracing::info!(
            "STUDIO_ADMIN_EMAILS grants platform admin only to an account whose email is verified (through the \
             verification letter); `studio-server admin add EMAIL` marks one directly."
        );
    }
    studio.start_event_relay().await?;
    match config.mailer()? {
        Some(mailer) => {
            tracing::info!(smtp = mailer.server(), "letters are delivered through SMTP");
            let postman = studio.clone();
            let mailer: std::sync::Arc<dyn studio_core::Mailer> = std::sync::Arc::new(mailer);
            tokio::spawn(async move { postman.mail().run_worker(mailer, std::future::pending::<()>()).await });
        }
        None => tracing::warn!(
            "no SMTP server is configured (STUDIO_SMTP_URL): letters are archived only, and nobody receives them; \
             an admin reads them at GET /api/toolkit/admin/emails"
        ),
    }
    let worker = studio.clone();
    tokio::spawn(async move { worker.library().run_pack_worker(std::future::pending::<()>()).await });
    if config.webhooks.workers > 0 {
        let courier = studio.clone();
        tokio::spawn(async move { courier.webhooks().run_worker(std::future::pending::<()>()).await });
    }
    let sweeper = studio.clone();
    tokio::spawn(async move {
        sweeper.billing().run_grant_expiry(std::time::Duration::from_secs(30), std::future::pending::<()>()).await
    });
    if config.runner_concurrency > 0 {
        let runner = studio.clone();
        tokio::spawn(async move { runner.develops().run_job_runner(std::future::pending::<()>()).await });
    }
    let state = AppState::new(studio, config);
    let limit = ratelimit::RateLimit::from_config(config);
    Ok((routes::app(state.clone(), limit), state))
}

/// The OpenAPI 3.1 document of every mounted route, as JSON (what `GET /openapi.json` serves).
pub fn openapi_json() -> String {
    serde_json::to_string_pretty(&routes::document()).unwrap_or_else(|_| "{}".to_string())
}

/// Serve `app` on `listener` until `shutdown` resolves, then finish in-flight requests. Each
/// request carries its peer address (`ConnectInfo<SocketAddr>`), which the rate limit keys on.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
}
