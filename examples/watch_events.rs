//! Watch events: follow the house's job changes and ready packs with the self-backfilling
//! event stream of studio-client.
//!
//! Start a server in one terminal (`cargo run -p studio-server`), get a key (`studio signup`, or
//! the `first_key` example), then:
//!
//! ```text
//! STUDIO_URL=http://127.0.0.1:8787 STUDIO_API_KEY=studio_sk_... \
//!   cargo run -p studio-examples --example watch_events -- [SINCE]
//! ```
//!
//! and submit develops from another terminal (for example with the `upload_and_develop`
//! example). `SINCE` is an eventSeq cursor: 0 (the default) first replays every job's latest
//! state, a cursor you saved before starts where you left off. Ctrl-C stops and prints the
//! cursor to resume from.
//!
//! How the stream works: `client.events(since)` opens the job socket
//! (`GET /api/toolkit/jobs/ws`) and only then backfills with `GET /api/toolkit/jobs?since=<cursor>`,
//! so nothing can fall between the two. When the socket drops (a server restart, a network blip,
//! the server closing a client that fell behind) it reconnects with backoff and backfills again
//! from the highest eventSeq it delivered, on every reconnect. It remembers the newest eventSeq
//! of each job, so a change seen both in a backfill and on the socket is printed once: it never
//! misses and never repeats a change. `cursor()` is that highest eventSeq; `reconnects()`
//! counts the reconnections.

use studio_client::Client;
use studio_client::api::SocketMessage;
use studio_examples::url_and_key_from_env;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let since = match std::env::args().nth(1) {
        Some(raw) => raw.parse::<i64>().map_err(|_| anyhow::anyhow!("SINCE is an integer eventSeq, not {raw:?}"))?,
        None => 0,
    };
    let (url, key) = url_and_key_from_env()?;
    let client = Client::builder(&url).api_key(key).build()?;

    let mut events = client.events(since);
    println!("watching {url} from eventSeq {since} (Ctrl-C to stop)");
    loop {
        let message = tokio::select! {
            message = events.next() => message?,
            _ = tokio::signal::ctrl_c() => break,
        };
        let position = format!("[cursor {} · reconnects {}]", events.cursor(), events.reconnects());
        match message {
            SocketMessage::Job { job } => {
                let detail = match (&job.result_asset_id, &job.error) {
                    (Some(asset), _) => format!(" -> asset {asset}"),
                    (None, Some(error)) => format!(" ({error})"),
                    (None, None) => String::new(),
                };
                println!(
                    "#{:<6} job {} {:<10} {}{detail} {position}",
                    job.event_seq,
                    job.id,
                    job.tool,
                    job.status.as_str()
                );
            }
            SocketMessage::PackReady { pack } => {
                println!(
                    "pack.ready {} {} ({} items, {} bytes) {} {position}",
                    pack.pack_id, pack.filename, pack.items, pack.bytes, pack.href
                );
            }
        }
    }
    println!(
        "stopped at cursor {} after {} reconnects; resume with SINCE={}",
        events.cursor(),
        events.reconnects(),
        events.cursor()
    );
    events.close().await;
    Ok(())
}
