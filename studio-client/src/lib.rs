//! studio-client: typed async access to a Studio deployment.
//!
//! One [`Client`] method per HTTP route, typed with the wire types of `studio_core::api`
//! (re-exported as [`api`]); this crate compiles no database, image or blob-store code.
//!
//! # A short tour
//!
//! **Build a client** with a base URL and a credential (an organization key, or a browser
//! session for the session-only routes such as minting keys):
//!
//! ```no_run
//! # async fn demo() -> Result<(), studio_client::Error> {
//! let client = studio_client::Client::builder("http://127.0.0.1:8787")
//!     .api_key("studio_sk_...")
//!     .user_agent("lookbook-sync/2.1")
//!     .build()?;
//! let balance = client.balance().await?;
//! println!("{} tokens spendable, {} held", balance.balance, balance.held);
//! # Ok(()) }
//! ```
//!
//! **Sign in and mint a key** ([`Client::sign_in`], [`Client::mint_key`],
//! [`Client::list_keys`], [`Client::revoke_key`]):
//!
//! ```no_run
//! # async fn demo(public: studio_client::Client) -> Result<(), studio_client::Error> {
//! let signed = public.sign_in("ada@maison.example", "a long enough password").await?;
//! let session = public.with_session(&signed.session);
//! let minted = session.mint_key("ci", None).await?;
//! let client = public.with_api_key(minted.key.expect("shown once"));
//! println!("acting for {}", client.session().await?.organization.name);
//! # Ok(()) }
//! ```
//!
//! **Upload** images into the library ([`Client::upload_file`] streams from disk,
//! [`Client::upload_bytes`] sends memory), then **check them for free** before paying
//! ([`Client::preflight`]):
//!
//! ```no_run
//! # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
//! use studio_client::{InputSource, PreflightCheck, UploadOptions};
//!
//! let uploaded = client.upload_file("shots/coat.jpg".as_ref(), &UploadOptions::default()).await?;
//! let check = PreflightCheck::new().image(InputSource::Asset(uploaded.asset.id.clone()));
//! println!("clear: {}", client.preflight(&check).await?.clear);
//! # Ok(()) }
//! ```
//!
//! **Develop** and wait for the frame ([`Client::submit_develop`], [`Client::wait_for`]):
//!
//! ```no_run
//! # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
//! use std::time::Duration;
//! use studio_client::api::Quality;
//! use studio_client::{DevelopSubmit, InputSource};
//!
//! let develop = DevelopSubmit::new("upscale")
//!     .input("image", InputSource::Asset("ast_0190abc".into()))
//!     .quality(Quality::K4);
//! let accepted = client.submit_develop(&develop).await?;
//! let status = client.wait_for(&accepted.job_id, Duration::from_secs(300)).await?;
//! println!("{}: {:?}", status.status.as_str(), status.result_asset_id);
//! # Ok(()) }
//! ```
//!
//! **Follow events** on the job socket, backfilled and de-duplicated across reconnects
//! ([`Client::events`]):
//!
//! ```no_run
//! # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
//! use studio_client::api::SocketMessage;
//!
//! let mut events = client.events(0);
//! loop {
//!     match events.next().await? {
//!         SocketMessage::Job { job } => println!("{} is {}", job.id, job.status.as_str()),
//!         SocketMessage::PackReady { pack } => println!("pack {} is up", pack.pack_id),
//!     }
//! }
//! # }
//! ```
//!
//! **Pack** frames for download ([`Client::create_pack`], [`Client::wait_for_pack`],
//! [`Client::download_pack`]):
//!
//! ```no_run
//! # async fn demo(client: studio_client::Client, ids: Vec<String>) -> Result<(), studio_client::Error> {
//! use std::time::Duration;
//! use studio_client::api::PackRequest;
//!
//! let pack = client.create_pack(&PackRequest { asset_ids: ids, ..PackRequest::default() }).await?;
//! let pack = client.wait_for_pack(&pack.pack_id, Duration::from_secs(2), Duration::from_secs(600)).await?;
//! client.download_pack(&pack.pack_id, pack.filename.as_ref(), |_, _| {}).await?;
//! # Ok(()) }
//! ```
//!
//! **Handle refusals** by the spec's code and extra fields ([`Error::code`],
//! [`Error::extra_i64`]):
//!
//! ```no_run
//! # async fn demo(client: studio_client::Client, develop: studio_client::DevelopSubmit) {
//! if let Err(e) = client.submit_develop(&develop).await {
//!     if e.code() == Some("INSUFFICIENT_TOKENS") {
//!         eprintln!("need {:?}, spendable {:?}", e.extra_i64("need"), e.extra_i64("spendable"));
//!     }
//! }
//! # }
//! ```
//!
//! **Pipelines** price a plan over items ([`Client::preview_pipeline`]), start a run whose steps
//! are all held at once ([`Client::start_pipeline_run`]) and follow it
//! ([`Client::pipeline_run`], [`Client::cancel_pipeline_run`]).
//!
//! **Brand**: the house's profile and the clause develops carry ([`Client::brand_profile`],
//! [`Client::patch_brand`]), the brand DNA read ([`Client::brand_dna`]) and the house's marks
//! ([`Client::brand_marks`], [`Client::create_mark`], [`Client::update_mark`],
//! [`Client::delete_mark`]).
//!
//! **AI lanes and text tools** (1 token each, sent once): the image lanes
//! ([`Client::remove_background`], [`Client::segment`], [`Client::depth`],
//! [`Client::detect_items`], [`Client::describe_item`], [`Client::extract_build`],
//! [`Client::extract_character`], [`Client::face_features`]), the text tools
//! ([`Client::prompt_builder`], [`Client::prompt_enhancer`], [`Client::imagemodel_prompts`],
//! [`Client::inspiration_keywords`]) and the download of a lane's signed result URL
//! ([`Client::fetch_lane_result`]).
//!
//! **The agent endpoint** is available raw ([`Client::mcp`]).
//!
//! **Webhooks**: the house's endpoints ([`Client::webhooks`], [`Client::create_webhook`],
//! [`Client::patch_webhook`], [`Client::delete_webhook`], [`Client::rotate_webhook_secret`]),
//! and, for the receiving side, [`verify_webhook`]: it checks a delivery's Standard Webhooks
//! headers with the very code the server signs with:
//!
//! ```no_run
//! # fn demo(headers: &reqwest::header::HeaderMap, body: &[u8]) {
//! match studio_client::verify_webhook("whsec_...", headers, body) {
//!     Ok(id) => println!("delivery {id} is ours; deduplicate on it"),
//!     Err(e) => eprintln!("refused: {e}"),
//! }
//! # }
//! ```
//!
//! # Retries and timeouts
//!
//! A call is retried (by default up to 3 times, see [`RetryPolicy`]) on 429, 502 and 503 and
//! on connection failures, waiting the server's `Retry-After` (seconds or HTTP date, capped
//! at 60 s) or an exponential backoff with jitter (250 ms doubling, at most 8 s). Only calls
//! that are safe to send twice are retried: `GET`s, and the spending calls
//! ([`Client::submit_develop`], [`Client::duplicate_job`], [`Client::take_again`],
//! [`Client::start_pipeline_run`]), which
//! always carry an idempotency key: the caller's, or a fresh one generated per call
//! ([`new_idempotency_key`]). Everything else is sent once. Each attempt has the builder's
//! timeout (default 60 s); uploads, submits, pre-flights, packs and downloads have longer ones.

mod account_mail;
mod admin;
mod analyst;
mod billing;
mod brand;
mod chat;
mod client;
mod develops;
mod error;
mod events;
mod factory;
mod invitations;
mod lanes;
mod lookbook;
mod mcp;
mod models;
mod people;
mod pipelines;
mod posts;
mod preflight;
mod retry;
mod search;
mod support;
mod webhooks;

pub use crate::client::{Client, ClientBuilder, Credential, SignedIn, UploadOptions};
pub use crate::develops::{DevelopSubmit, InputSource};
pub use crate::error::Error;
pub use crate::events::EventStream;
pub use crate::mcp::MCP_PROTOCOL_VERSION;
pub use crate::preflight::PreflightCheck;
pub use crate::retry::{RetryPolicy, new_idempotency_key};
pub use crate::webhooks::{WebhookError, verify_webhook, verify_webhook_at};
pub use studio_core::api;
