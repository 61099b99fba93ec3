//! Row 7: job-change delivery over the job socket (`GET /api/toolkit/jobs/ws`) to 1,000
//! subscribers of one house at 50 changes per second; p50 / p99 over every delivery, target
//! p99 < 100 ms. Also the server's RSS with every socket open (information).
//!
//! The server runs with STUDIO_RUNNER_CONCURRENCY=0, so jobs stay queued and every change has a
//! known moment: every 40 ms a develop is submitted (the job appears `queued`) and 20 ms later
//! its job is cancelled (`cancelled`), each pair on its own task, so the rate holds however
//! slowly the server answers. A delivery's latency runs from the moment its request was sent to
//! the moment the message arrived at the subscriber, so it includes the request's own handling
//! (an upper bound); the same deliveries counted from the request's answer are reported beside
//! it (a lower bound: the event is published before the answer is written). One task per socket
//! records each message's eventSeq and arrival; the changes are matched to their requests
//! afterwards.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use studio_client::{DevelopSubmit, InputSource};
use studio_core::api::{JobStatus, Quality, SocketMessage};
use studio_tests::images::solid_png;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::common::{Options, Row, Server, mib, ms, percentile};

/// Job changes per second (half submits, half cancels).
const CHANGES_PER_SEC: u64 = 50;
/// Sockets opened at once while connecting.
const CONNECTING: usize = 64;

pub(crate) type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// What one subscriber saw: every message's eventSeq and arrival; the first subscriber also
/// keeps which change each eventSeq was.
#[derive(Default)]
struct Seen {
    arrivals: Vec<(i64, Instant)>,
    changes: HashMap<i64, (String, JobStatus)>,
}

pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let subscribers = opts.size(1000, 50);
    let seconds = opts.size(20, 2);
    check_open_files(subscribers)?;
    let data = opts.work.join("sockets");
    let server = Server::start(opts, &data, &[("STUDIO_RUNNER_CONCURRENCY", "0".into())]).await?;
    let (client, key) = server.house("sockets").await?;
    let rss_before = server.rss_kib();

    // Open every socket, then hand each to its own task.
    let url = server.base.replacen("http", "ws", 1) + "/api/toolkit/jobs/ws";
    let sockets: Vec<Socket> = futures_util::stream::iter(0..subscribers)
        .map(|_| open(&url, &key))
        .buffer_unordered(CONNECTING)
        .try_collect()
        .await?;
    let (stop_tx, stop) = watch::channel(false);
    let ready = Arc::new(AtomicUsize::new(0));
    let delivered = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(i, socket)| tokio::spawn(subscribe(socket, i == 0, stop.clone(), ready.clone(), delivered.clone())))
        .collect();

    // The server subscribes a socket to the house's events only after the upgrade: submit
    // warm-up develops until every subscriber has received something.
    let submit = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: solid_png(32, 32, [120, 90, 60]) })
        .quality(Quality::K1);
    let deadline = Instant::now() + Duration::from_secs(30);
    while ready.load(Ordering::Relaxed) < subscribers {
        anyhow::ensure!(
            Instant::now() < deadline,
            "only {} of {subscribers} sockets received events",
            ready.load(Ordering::Relaxed)
        );
        client.submit_develop(&submit).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let rss_open = server.rss_kib();

    // The load, at a fixed rate whatever the answers' latency: every 40 ms a task submits a
    // develop and, 20 ms after sending it, cancels the job it queued.
    let first_delivery = delivered.load(Ordering::Relaxed);
    let period = Duration::from_micros(2_000_000 / CHANGES_PER_SEC);
    let mut tick = tokio::time::interval(period);
    let mut pairs = Vec::new();
    for _ in 0..seconds * CHANGES_PER_SEC / 2 {
        tick.tick().await;
        let (client, submit) = (client.clone(), submit.clone());
        pairs.push(tokio::spawn(async move { submit_and_cancel(&client, &submit, period / 2).await }));
    }
    // Every change: when its request was sent and how long the answer took.
    let mut sent: HashMap<(String, JobStatus), (Instant, Duration)> = HashMap::new();
    for pair in pairs {
        let pair = pair.await??;
        sent.insert((pair.job.clone(), JobStatus::Queued), pair.submit);
        sent.insert((pair.job, JobStatus::Cancelled), pair.cancel);
    }
    let (first, last) = (sent.values().map(|v| v.0).min(), sent.values().map(|v| v.0).max());
    let produced = first.zip(last).map_or(Duration::ZERO, |(f, l)| l - f);

    // Let the last changes arrive, then close every socket.
    let expected = sent.len() * subscribers;
    let grace = Instant::now() + Duration::from_secs(5);
    while delivered.load(Ordering::Relaxed) - first_delivery < expected && Instant::now() < grace {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop_tx.send(true)?;
    let mut seen = Vec::with_capacity(subscribers);
    for task in tasks {
        seen.push(task.await??);
    }

    // Match every delivery to its change's request: latency from the request sent, and from
    // its answer (zero when the message came first).
    let when: HashMap<i64, (Instant, Duration)> =
        seen[0].changes.iter().filter_map(|(seq, change)| Some((*seq, *sent.get(change)?))).collect();
    let (mut latencies, mut after_answer): (Vec<Duration>, Vec<Duration>) = seen
        .iter()
        .flat_map(|s| &s.arrivals)
        .filter_map(|(seq, arrived)| {
            let (sent, request) = when.get(seq)?;
            Some((arrived.saturating_duration_since(*sent), arrived.saturating_duration_since(*sent + *request)))
        })
        .unzip();
    let mut requests: Vec<Duration> = sent.values().map(|v| v.1).collect();
    for v in [&mut latencies, &mut after_answer, &mut requests] {
        v.sort();
    }
    let (p50, p99) = (percentile(&latencies, 0.50), percentile(&latencies, 0.99));
    let missing = expected.saturating_sub(latencies.len());
    let rate = (sent.len() - 1) as f64 / produced.as_secs_f64();
    Ok(vec![
        Row::new(
            format!("7 job socket delivery, {subscribers} subscribers × {rate:.0} changes/s, {seconds} s"),
            format!("p50 {} / p99 {} ({} deliveries, {missing} missing)", ms(p50), ms(p99), latencies.len()),
            format!(
                "request send→answer p50 {} / p99 {}",
                ms(percentile(&requests, 0.50)),
                ms(percentile(&requests, 0.99))
            ),
            format!("p99 {} / < 100 ms, from request sent", ms(p99)),
            p99 < Duration::from_millis(100) && missing == 0,
        ),
        Row::info(
            "7 the same deliveries, from the request's answer",
            format!("p50 {} / p99 {}", ms(percentile(&after_answer, 0.50)), ms(percentile(&after_answer, 0.99))),
            "",
            "",
        ),
        Row::info(
            format!("7 server RSS with {subscribers} sockets open"),
            mib(rss_open),
            format!("{} before the sockets", mib(rss_before)),
            format!(
                "+{} ({:.1} KiB per socket)",
                mib(rss_open.saturating_sub(rss_before)),
                rss_open.saturating_sub(rss_before) as f64 / subscribers as f64
            ),
        ),
    ])
}

/// One submitted and cancelled job: when each request was sent and how long its answer took.
struct Pair {
    job: String,
    submit: (Instant, Duration),
    cancel: (Instant, Duration),
}

/// Submit a develop, then cancel its job `gap` after the submit was sent (or on its answer, if
/// later).
async fn submit_and_cancel(
    client: &studio_client::Client,
    develop: &DevelopSubmit,
    gap: Duration,
) -> anyhow::Result<Pair> {
    let submitted = Instant::now();
    let job = client.submit_develop(develop).await?.job_id;
    let submit = (submitted, submitted.elapsed());
    tokio::time::sleep_until((submitted + gap).into()).await;
    let cancelled = Instant::now();
    let cancel = client.cancel_job(&job).await?;
    anyhow::ensure!(cancel.cancelled, "job {job} was not cancelled: {:?}", cancel.reason);
    Ok(Pair { job, submit, cancel: (cancelled, cancelled.elapsed()) })
}

/// Open the house's job socket with its key.
pub(crate) async fn open(url: &str, key: &str) -> anyhow::Result<Socket> {
    let mut request = url.into_client_request()?;
    request.headers_mut().insert("authorization", format!("Bearer {key}").parse()?);
    // The library's default read buffer (128 KiB, zeroed on every read) would make the
    // subscribers' side cost more than the server's.
    let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
    Ok(tokio_tungstenite::connect_async_with_config(request, Some(config), true).await?.0)
}

/// Read the socket until told to stop: record every job message's eventSeq and arrival.
async fn subscribe(
    mut socket: Socket,
    first: bool,
    mut stop: watch::Receiver<bool>,
    ready: Arc<AtomicUsize>,
    delivered: Arc<AtomicUsize>,
) -> anyhow::Result<Seen> {
    let mut seen = Seen::default();
    loop {
        let message = tokio::select! {
            message = socket.next() => message,
            _ = stop.changed() => break,
        };
        let arrived = Instant::now();
        match message {
            Some(Ok(Message::Text(text))) => {
                let SocketMessage::Job { job } = serde_json::from_str(text.as_str())? else { continue };
                if seen.arrivals.is_empty() {
                    ready.fetch_add(1, Ordering::Relaxed);
                }
                seen.arrivals.push((job.event_seq, arrived));
                if first {
                    seen.changes.insert(job.event_seq, (job.id, job.status));
                }
                delivered.fetch_add(1, Ordering::Relaxed);
            }
            Some(Ok(Message::Close(frame))) => anyhow::bail!("the server closed a socket: {frame:?}"),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e.into()),
            None => anyhow::bail!("a socket ended"),
        }
    }
    let _ = socket.close(None).await;
    Ok(seen)
}

/// Both ends of every socket live on this machine: the soft open-file limit must hold them.
fn check_open_files(subscribers: usize) -> anyhow::Result<()> {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok());
    match soft {
        Some(n) if n < subscribers + 256 => {
            anyhow::bail!(
                "open-file limit {n} is too low for {subscribers} sockets: raise it (ulimit -n {})",
                subscribers * 2 + 256
            )
        }
        _ => Ok(()),
    }
}
