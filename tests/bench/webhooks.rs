//! Row W: webhook deliveries. One house with one endpoint (a receiver on loopback, answering
//! 200) subscribed to job changes; the server's runner is off, so each submitted develop makes
//! exactly one change (`queued`), published inside the submit. `events` develops are submitted
//! eight at a time; each change's latency runs from the moment its submit was sent to the moment
//! the receiver got its delivery (an upper bound on publish-to-delivery, which includes the
//! submit's own handling, the outbox's write, its settle of `STUDIO_WEBHOOKS_SETTLE_MS` (250 ms
//! by default, which keeps a job's changes in order), claim and signed POST). The baseline is the
//! same changes arriving on one job socket of the house in the same run: the path a client had
//! before webhooks. Throughput is changes delivered per second of wall time from the first
//! submit to the last delivery. Information rows: the issue sets no target.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use studio_client::api::NewWebhook;
use studio_client::{DevelopSubmit, InputSource};
use studio_core::api::Quality;
use studio_tests::House;
use studio_tests::images::solid_png;
use tokio_tungstenite::tungstenite::Message;

use crate::common::{Options, Row, Server, ms, percentile, ratio};

/// Job id → arrival, as one side saw them.
type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

/// Submits in flight at once.
const CONCURRENCY: usize = 8;

pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let events = opts.size(500, 40);
    let data = opts.work.join("webhooks");
    let env = [("STUDIO_RUNNER_CONCURRENCY", "0".into()), ("STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "1".into())];
    let server = Server::start(opts, &data, &env).await?;
    let email = format!("bench-webhooks-{}@example.com", uuid::Uuid::new_v4().simple());
    let house = House::sign_up(&server.client(), &email, "a long enough bench password", None, "webhooks").await?;

    // The receiver and the socket, each noting when every job's change arrived.
    let hooked: Arrivals = Arc::default();
    let url = receiver(hooked.clone()).await?;
    let new = NewWebhook { url, events: Some(vec!["job".into()]), ..Default::default() };
    house.session.create_webhook(&new).await?;
    let socketed: Arrivals = Arc::default();
    let ws = server.base.replacen("http", "ws", 1) + "/api/toolkit/jobs/ws";
    let mut socket = crate::sockets::open(&ws, &house.secret).await?;
    let seen = socketed.clone();
    let reader = tokio::spawn(async move {
        while let Some(Ok(message)) = socket.next().await {
            let arrived = Instant::now();
            if let Message::Text(text) = message
                && let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
                && let Some(job) = value["job"]["id"].as_str()
            {
                seen.lock().unwrap().insert(job.to_string(), arrived);
            }
        }
    });

    let submit = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: solid_png(32, 32, [90, 60, 30]) })
        .quality(Quality::K1);
    // Warm up until both sides see a change (the socket subscribes after its upgrade). A
    // delivery leaves after the outbox's settle (250 ms by default), so each try waits up to 2 s.
    let deadline = Instant::now() + Duration::from_secs(30);
    'warm: loop {
        let job = house.key.submit_develop(&submit).await?.job_id;
        let settled = Instant::now() + Duration::from_secs(2);
        while Instant::now() < settled {
            tokio::time::sleep(Duration::from_millis(20)).await;
            if hooked.lock().unwrap().contains_key(&job) && socketed.lock().unwrap().contains_key(&job) {
                break 'warm;
            }
        }
        anyhow::ensure!(Instant::now() < deadline, "no change reached both the receiver and the socket");
    }

    // The load: `events` submits, eight at a time, each noting when it was sent.
    let sent: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let started = Instant::now();
    let results: Vec<anyhow::Result<()>> = futures_util::stream::iter(0..events)
        .map(|_| {
            let (key, submit, sent) = (house.key.clone(), submit.clone(), sent.clone());
            async move {
                let at = Instant::now();
                let job = key.submit_develop(&submit).await?.job_id;
                sent.lock().unwrap().insert(job, at);
                Ok(())
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    results.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    let sent = std::mem::take(&mut *sent.lock().unwrap());
    let grace = Instant::now() + Duration::from_secs(60);
    while sent.keys().any(|j| !hooked.lock().unwrap().contains_key(j)) && Instant::now() < grace {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    reader.abort();
    let (hooked, socketed) = (hooked.lock().unwrap().clone(), socketed.lock().unwrap().clone());
    let missing = sent.keys().filter(|j| !hooked.contains_key(*j)).count();
    anyhow::ensure!(missing == 0, "{missing} of {events} changes never reached the receiver");

    let side = |arrivals: &HashMap<String, Instant>| {
        let mut lat: Vec<Duration> =
            sent.iter().filter_map(|(j, at)| arrivals.get(j).map(|got| got.saturating_duration_since(*at))).collect();
        lat.sort();
        let last = sent.keys().filter_map(|j| arrivals.get(j)).max().copied().unwrap_or(started);
        let per_sec = lat.len() as f64 / last.saturating_duration_since(started).as_secs_f64().max(1e-6);
        (per_sec, percentile(&lat, 0.50), percentile(&lat, 0.99), lat.len())
    };
    let (w_rate, w50, w99, _) = side(&hooked);
    let (s_rate, s50, s99, s_count) = side(&socketed);
    Ok(vec![
        Row::info(
            format!("W webhooks: {events} job changes delivered to a local receiver"),
            format!("{w_rate:.0} changes/s"),
            format!("{s_rate:.0} changes/s on one job socket ({s_count} seen)"),
            ratio(w_rate, s_rate),
        ),
        Row::info(
            "W webhooks: a change's submit sent to its delivery, p50 / p99",
            format!("{} / {}", ms(w50), ms(w99)),
            format!("{} / {} on the job socket", ms(s50), ms(s99)),
            ratio(w99.as_secs_f64(), s99.as_secs_f64()),
        ),
    ])
}

/// A receiver on loopback that answers 200 and notes when each job's change arrived.
async fn receiver(arrivals: Arrivals) -> anyhow::Result<String> {
    let handler = move |body: bytes::Bytes| {
        let arrivals = arrivals.clone();
        async move {
            let arrived = Instant::now();
            if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body)
                && let Some(job) = value["job"]["id"].as_str()
            {
                arrivals.lock().unwrap().insert(job.to_string(), arrived);
            }
            "ok"
        }
    };
    let app = axum::Router::new().route("/hook", axum::routing::post(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    Ok(format!("http://{addr}/hook"))
}
