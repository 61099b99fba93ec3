//! `studio webhooks`: the house's webhook endpoints (docs/webhooks.md): list them and read their
//! delivery logs with the configured key; add, remove, rotate, test and replay sign in for the
//! call, because only an owner's or admin's session does those (an organization key is a member
//! or a viewer).
//!
//! `studio webhooks listen --forward-to URL` is for local development, as payment providers'
//! CLIs do it: it follows the house's event socket (backfilled across reconnects) and posts each
//! event, as the socket sends it, to a local URL, signed as Standard Webhooks with a secret of
//! this run (printed on stderr, or `--secret`), so a receiver under development checks exactly
//! what a real delivery carries. A forward is sent once: a failed one is printed, not retried.

use std::io::Write as _;
use std::time::Duration;

use anyhow::{Context as _, Result};
use clap::builder::NonEmptyStringValueParser;
use serde::Serialize;
use studio_client::Client;
use studio_client::api::{DeliveriesQuery, NewWebhook, SocketMessage, Webhook, WebhookCreated, WebhookDelivery};

use super::{Context, SignIn, Usage, columns};

/// List, add, remove and rotate the house's webhook endpoints; forward events to a local URL.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `webhooks` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List the house's endpoints.
    #[command(alias = "list")]
    Ls(Ls),
    /// Add an endpoint; its signing secret is printed once, on stdout (signs in for the call).
    Add(Add),
    /// Remove an endpoint: nothing more is delivered to it (signs in for the call).
    #[command(alias = "remove")]
    Rm(Rm),
    /// Issue a new signing secret, printed once; the old one keeps signing beside it for 24
    /// hours (signs in for the call).
    Rotate(Rotate),
    /// Send a `ping` to an endpoint now and print what came back (signs in for the call).
    Test(Test),
    /// An endpoint's delivery log, newest attempt first, one line per attempt.
    Deliveries(Deliveries),
    /// Send one delivery again now, under its own webhook-id (signs in for the call).
    Replay(Replay),
    /// Follow the house's events and post each, signed, to a local URL (development).
    Listen(Listen),
}

/// `studio webhooks ls`.
#[derive(clap::Args)]
struct Ls {
    /// Print the server's {"webhooks": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks add`.
#[derive(clap::Args)]
struct Add {
    /// Where deliveries go: https://... (http only to loopback, when the deployment allows it).
    // Named `endpoint`, not `url`: clap would read it as the global `--url` (the deployment's).
    #[arg(value_name = "URL", value_parser = NonEmptyStringValueParser::new())]
    endpoint: String,
    /// Event kinds, comma-separated (job, pack.ready), or * for all [default: *].
    #[arg(long, value_name = "KINDS", value_delimiter = ',')]
    events: Vec<String>,
    /// A note for people.
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// Create it disabled.
    #[arg(long)]
    disabled: bool,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's answer, secret included, as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks rm`.
#[derive(clap::Args)]
struct Rm {
    /// The endpoint's id (`whk_...`, from `studio webhooks ls`).
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"id", "deleted"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks rotate`.
#[derive(clap::Args)]
struct Rotate {
    /// The endpoint's id.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"id", "secret", "previousSecretExpiresAt"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks test`.
#[derive(clap::Args)]
struct Test {
    /// The endpoint's id.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the attempt as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks deliveries`.
#[derive(clap::Args)]
struct Deliveries {
    /// The endpoint's id.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Attempts per page, 1 to 100 [default: 50].
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
    /// The nextCursor of the previous page.
    #[arg(long, value_name = "CURSOR")]
    cursor: Option<String>,
    /// Print the server's {"deliveries", "nextCursor"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks replay`.
#[derive(clap::Args)]
struct Replay {
    /// The endpoint's id.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// The delivery's id (`msg_...`, the webhook-id; from `studio webhooks deliveries`).
    #[arg(value_name = "DELIVERY_ID", value_parser = NonEmptyStringValueParser::new())]
    delivery_id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the attempt as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio webhooks listen`.
#[derive(clap::Args)]
struct Listen {
    /// The local receiver, e.g. http://127.0.0.1:4000/hook.
    #[arg(long, value_name = "URL", value_parser = NonEmptyStringValueParser::new())]
    forward_to: String,
    /// Sign with this secret (whsec_...) instead of a new one made for this run.
    #[arg(long, env = "STUDIO_WEBHOOKS_LISTEN_SECRET", hide_env_values = true, value_name = "SECRET")]
    secret: Option<String>,
    /// Forward the events after this house event number (eventSeq); 0 forwards from now on.
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    since: i64,
    /// Stop after forwarding this many events [default: run until Ctrl-C].
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// One JSON line per forward: {"webhookId", "event", "eventSeq", "status", "error"}.
    #[arg(long)]
    json: bool,
}

/// Run one `webhooks` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => ls(ctx, a).await,
        Command::Add(a) => add(ctx, a).await,
        Command::Rm(a) => rm(ctx, a).await,
        Command::Rotate(a) => rotate(ctx, a).await,
        Command::Test(a) => test(ctx, a).await,
        Command::Deliveries(a) => deliveries(ctx, a).await,
        Command::Replay(a) => replay(ctx, a).await,
        Command::Listen(a) => listen(ctx, a).await,
    }
}

/// Sign in for `what` and make one call with the session.
async fn with_session<T, F, Fut>(ctx: &Context, sign_in: SignIn, what: &str, call: F) -> Result<T>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = std::result::Result<T, studio_client::Error>>,
{
    super::with_session(ctx, sign_in, what, "only an owner or admin changes webhooks; a key cannot", call).await
}

async fn ls(ctx: &Context, args: Ls) -> Result<()> {
    let list = ctx.keyed_client()?.webhooks().await?;
    if args.json {
        println!("{}", serde_json::to_string(&list)?);
    } else if list.webhooks.is_empty() {
        println!("No webhook endpoints. Add one with `studio webhooks add https://...`.");
    } else {
        print!("{}", table(&list.webhooks));
    }
    Ok(())
}

async fn add(ctx: &Context, args: Add) -> Result<()> {
    let events: Vec<String> = args.events.iter().map(|e| e.trim().to_string()).filter(|e| !e.is_empty()).collect();
    let new = NewWebhook {
        url: args.endpoint.trim().to_string(),
        description: args.description,
        events: (!events.is_empty()).then_some(events),
        enabled: args.disabled.then_some(false),
    };
    let created: WebhookCreated =
        with_session(ctx, args.sign_in, "adding a webhook", |c| async move { c.create_webhook(&new).await }).await?;
    if args.json {
        println!("{}", serde_json::to_string(&created)?);
    } else {
        println!("{}", created.secret);
    }
    eprintln!("Added {} -> {} ({}).", created.webhook.id, created.webhook.url, created.webhook.events.join(", "));
    eprintln!(
        "warning: the signing secret above is shown this once; keep it where your receiver reads it. \
         A lost secret cannot be shown again: issue a new one with `studio webhooks rotate {}`.",
        created.webhook.id
    );
    Ok(())
}

async fn rm(ctx: &Context, args: Rm) -> Result<()> {
    let id = args.id.clone();
    let answer =
        with_session(ctx, args.sign_in, "removing a webhook", |c| async move { c.delete_webhook(&id).await }).await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!("Removed webhook {}: nothing more is delivered to it.", answer.id);
    }
    Ok(())
}

async fn rotate(ctx: &Context, args: Rotate) -> Result<()> {
    let id = args.id.clone();
    let answer =
        with_session(
            ctx,
            args.sign_in,
            "rotating a webhook secret",
            |c| async move { c.rotate_webhook_secret(&id).await },
        )
        .await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!("{}", answer.secret);
    }
    eprintln!(
        "Rotated {}: the secret above is shown this once. Deliveries carry both signatures until {} (UTC); \
         move your receiver to the new secret before then.",
        answer.id,
        answer.previous_secret_expires_at.format("%Y-%m-%d %H:%M")
    );
    Ok(())
}

async fn test(ctx: &Context, args: Test) -> Result<()> {
    let id = args.id.clone();
    let attempt =
        with_session(ctx, args.sign_in, "testing a webhook", |c| async move { c.test_webhook(&id).await }).await?;
    super::print(args.json, &attempt, |a| format!("{}\n", attempt_line(a)))
}

async fn deliveries(ctx: &Context, args: Deliveries) -> Result<()> {
    let query = DeliveriesQuery { limit: args.limit, cursor: args.cursor };
    let page = ctx.keyed_client()?.webhook_deliveries(&args.id, &query).await?;
    super::print(args.json, &page, |p| {
        let mut text = if p.deliveries.is_empty() {
            "No deliveries yet.\n".to_string()
        } else {
            p.deliveries.iter().map(|a| format!("{}\n", attempt_line(a))).collect()
        };
        if let Some(next) = &p.next_cursor {
            text.push_str(&format!("More: studio webhooks deliveries {} --cursor {next}\n", args.id));
        }
        text
    })
}

async fn replay(ctx: &Context, args: Replay) -> Result<()> {
    let (id, delivery) = (args.id.clone(), args.delivery_id.clone());
    let attempt = with_session(ctx, args.sign_in, "replaying a delivery", |c| async move {
        c.replay_webhook_delivery(&id, &delivery).await
    })
    .await?;
    super::print(args.json, &attempt, |a| format!("{}\n", attempt_line(a)))
}

/// One attempt on one line: when, the delivery and its attempt, the event, and the outcome.
fn attempt_line(a: &WebhookDelivery) -> String {
    let seq = a.event_seq.map_or_else(String::new, |s| format!(" seq {s}"));
    let outcome = match (a.ok, a.status, &a.error) {
        (true, Some(s), _) => format!("{s} in {} ms", a.latency_ms),
        (_, status, error) => {
            let status = status.map_or_else(|| "no answer".to_string(), |s| s.to_string());
            format!("FAILED {status}: {}", error.as_deref().unwrap_or("not 2xx"))
        }
    };
    let next = a.next_attempt_at.map_or_else(String::new, |t| format!(" (next attempt {})", t.format(MINUTE)));
    format!(
        "{}  {} #{}  {}{seq}  {outcome}{next}",
        a.created_at.format("%Y-%m-%d %H:%M:%S"),
        a.delivery_id,
        a.attempt,
        a.event
    )
}

/// How times are shown in the listing.
const MINUTE: &str = "%Y-%m-%d %H:%M";

/// The listing as aligned columns.
fn table(hooks: &[Webhook]) -> String {
    let rows: Vec<Vec<String>> = hooks
        .iter()
        .map(|h| {
            let state = match (&h.disabled_reason, h.enabled) {
                (_, true) => "enabled".to_string(),
                (Some(why), false) => format!("disabled: {why}"),
                (None, false) => "disabled".to_string(),
            };
            vec![h.id.clone(), h.url.clone(), h.events.join(","), h.created_at.format(MINUTE).to_string(), state]
        })
        .collect();
    columns(&["ID", "URL", "EVENTS", "CREATED (UTC)", "STATE"], &rows)
}

/// Time one forward may take, connection included.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);

/// One forward, as `--json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Forwarded {
    webhook_id: String,
    event: &'static str,
    event_seq: Option<i64>,
    status: Option<u16>,
    error: Option<String>,
}

/// The kind, house event number and `webhook-id` of a socket message: a job change is
/// identified by its job and eventSeq, a ready pack by its pack.
fn identify(message: &SocketMessage) -> (&'static str, Option<i64>, String) {
    match message {
        SocketMessage::Job { job } => ("job", Some(job.event_seq), format!("msg_{}_{}", job.id, job.event_seq)),
        SocketMessage::PackReady { pack } => ("pack.ready", None, format!("msg_{}_ready", pack.pack_id)),
    }
}

/// A new signing secret for one listen run: `whsec_` and the base64 of 32 random bytes.
fn new_secret() -> String {
    use base64::Engine as _;
    let bytes: [u8; 32] = rand::random();
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Post one event to the receiver, signed; the status, or the failure in words.
async fn forward(
    http: &reqwest::Client,
    to: &str,
    secret: &str,
    id: &str,
    body: Vec<u8>,
) -> std::result::Result<u16, String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let timestamp = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
    let signature = studio_core::sign_webhook(secret, id, timestamp, &body).map_err(|e| e.to_string())?;
    let answer = http
        .post(to)
        .header("content-type", "application/json")
        .header("webhook-id", id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await
        .map_err(|e| format!("could not reach {to}: {e}"))?;
    Ok(answer.status().as_u16())
}

async fn listen(ctx: &Context, args: Listen) -> Result<()> {
    let to = reqwest::Url::parse(&args.forward_to)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| Usage(format!("--forward-to {} is not an http(s) URL", args.forward_to)))?;
    let secret = match args.secret {
        Some(s) => {
            studio_core::sign_webhook(&s, "msg_check", 0, b"").map_err(|e| Usage(format!("--secret: {e}")))?;
            s
        }
        None => new_secret(),
    };
    let client = ctx.keyed_client()?;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(FORWARD_TIMEOUT)
        .build()
        .context("building the forwarding client")?;
    let mut events = client.events(args.since);
    eprintln!("Forwarding the house's events after seq {} to {to} (Ctrl-C to stop).", args.since);
    eprintln!("Signing secret of this run (give it to your receiver): {secret}");
    let stopped = tokio::signal::ctrl_c();
    tokio::pin!(stopped);
    let mut sent = 0u64;
    while args.count.is_none_or(|n| sent < n) {
        let message = tokio::select! {
            message = events.next() => message?,
            _ = &mut stopped => break,
        };
        let (event, event_seq, webhook_id) = identify(&message);
        let body = serde_json::to_vec(&message)?;
        let outcome = forward(&http, to.as_str(), &secret, &webhook_id, body).await;
        sent += 1;
        let (status, error) = match outcome {
            Ok(s) if (200..300).contains(&s) => (Some(s), None),
            Ok(s) if (300..400).contains(&s) => (Some(s), Some(format!("answered {s}: redirects are not followed"))),
            Ok(s) => (Some(s), Some(format!("answered {s}"))),
            Err(e) => (None, Some(e)),
        };
        let line = if args.json {
            serde_json::to_string(&Forwarded { webhook_id, event, event_seq, status, error })?
        } else {
            let seq = event_seq.map_or_else(String::new, |s| format!(" seq {s}"));
            match (status, error) {
                (_, Some(e)) => format!("{event}{seq} {webhook_id}: FAILED {e}"),
                (Some(s), None) => format!("{event}{seq} {webhook_id}: {s}"),
                (None, None) => format!("{event}{seq} {webhook_id}"),
            }
        };
        let mut out = std::io::stdout().lock();
        // A closed pipe (`| head`) ends the listen quietly.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    eprintln!("Stopped after {sent} forwards; resume with `--since {}`.", events.cursor());
    events.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_secret_is_32_random_bytes_and_signs() {
        let (a, b) = (new_secret(), new_secret());
        assert_ne!(a, b);
        assert!(a.starts_with("whsec_") && a.len() == "whsec_".len() + 44, "{a}");
        let sig = studio_core::sign_webhook(&a, "msg_1", 1, b"{}").expect("signs");
        let headers =
            studio_core::WebhookHeaders { id: Some("msg_1".into()), timestamp: Some("1".into()), signature: Some(sig) };
        assert_eq!(studio_core::verify_webhook(&a, &headers, b"{}", 1).as_deref(), Ok("msg_1"));
        assert!(studio_core::verify_webhook(&b, &headers, b"{}", 1).is_err());
    }
}
