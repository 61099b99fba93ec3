//! Row P: a pipeline run started over a line at the cap, [`studio_core::MAX_LINE`] frames (a
//! two-node chain, `iron` then `upscale` at 1k, over [`ITEMS`] items: compiled, every frame held
//! and the [`ITEMS`] root steps queued, in one storage transaction) against as many single
//! develop submits of the same tools and quality, measured in the same run.
//!
//! A chain rather than one node over 700 items, because it is what a line usually is: its root
//! steps get a job at the start, its downstream steps only a hold (their jobs come when the
//! upstream frames land), so the row pays for both kinds of step.
//!
//! Both sides call studio-core in this process, as rows 2 and L do: a `Studio` on a fresh SQLite
//! file (and, when a PostgreSQL server is named, on a fresh database of it) whose job runner and
//! pipeline sweep are never started, so every queued job stays queued, no waiting step moves and
//! nothing develops while a side is timed. Set up once: a house and [`ITEMS`] distinct library
//! images (every item its own asset, so the compile looks each one up, as each single does).
//!
//! Each round times (a) one `Studio::start_pipeline_run` of the chain over the items, from the
//! call to its answer; untimed, it checks that the house's held tokens rose by exactly the line's
//! price, then cancels the run (every hold released); and (b) [`LINE`] sequential
//! `Studio::start_develop`, item by item `iron` then `upscale` at 1k on the item's image, one
//! caller, timed together; untimed, the same held-tokens check, then each job is cancelled. The
//! sides take turns, the first of each round alternating, after one untimed warm-up round (a
//! smoke run has one round and no warm-up, but the whole line); each figure is the median round. Target: the run's start takes no longer than the singles (run
//! time / singles' time ≤ [`TARGET`], the time-ratio convention of rows 3, 5, 9 and L).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::json;
use studio_core::api::{PipelinePreviewRequest, PipelineRunRequest, SignUpRequest, StartDevelop};
use studio_core::{BlobConfig, Caller, CoreConfig, MAX_LINE, Studio, UploadForm};

use crate::common::{FreshDatabase, Options, Row, median, ms, ratio};

/// The chain's nodes, upstream first: (node id and tool).
const CHAIN: [&str; 2] = ["iron", "upscale"];
/// Items of the line: the chain over them is exactly [`MAX_LINE`] frames.
const ITEMS: usize = MAX_LINE / CHAIN.len();
/// Frames of the line, and single submits it is compared with.
const LINE: usize = ITEMS * CHAIN.len();
/// The tier of every frame, on both sides.
const QUALITY: &str = "1k";
/// Target: the run's start takes at most this many times the singles' time.
const TARGET: f64 = 1.0;

/// Measure row P.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let rounds = opts.size(9, 1);
    // The smoke run keeps the whole line (the only run in CI of a line at the cap on both
    // backends) but skips the warm-up round, which only steadies figures it does not keep.
    let warm_up = !opts.smoke;
    let dir = opts.work.join("pipelines");
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();

    let bench = Bench::prepared(&format!("sqlite://{}", dir.join("studio.db").display()), &dir).await?;
    let measured = take_turns(&bench, rounds, warm_up).await?;
    drop(bench);
    rows.push(measured.row("SQLite", rounds));

    match &opts.postgres {
        Some(server) => rows.push(postgres_row(server, &dir, rounds, warm_up).await?),
        None => rows.push(Row::info(
            format!(
                "P. pipeline run start, {LINE}-frame line (compile + hold every frame + queue the roots), PostgreSQL"
            ),
            "skipped",
            "set STUDIO_BENCH_POSTGRES_URL or STUDIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432)",
            "",
        )),
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(rows)
}

/// The same rounds on a fresh PostgreSQL database of `server`, dropped afterwards.
async fn postgres_row(server: &str, dir: &Path, rounds: usize, warm_up: bool) -> anyhow::Result<Row> {
    let db = FreshDatabase::create(server).await?;
    let measured = async {
        let bench = Bench::prepared(&db.url, &dir.join("pg")).await?;
        take_turns(&bench, rounds, warm_up).await
    }
    .await;
    db.drop().await;
    Ok(measured?.row("PostgreSQL", rounds))
}

/// The median round of each side, and the line's price.
struct Measured {
    run: Duration,
    singles: Duration,
    tokens: i64,
}

impl Measured {
    fn row(&self, backend: &str, rounds: usize) -> Row {
        let (ours, base) = (self.run.as_secs_f64(), self.singles.as_secs_f64());
        let each = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0 / LINE as f64);
        Row::new(
            format!(
                "P. pipeline run start, {LINE}-frame line ({ITEMS} items × {} at {QUALITY}; compile + hold every \
                 frame + queue the {ITEMS} roots, {} tokens held), {backend} (median of {rounds})",
                CHAIN.join(" → "),
                self.tokens
            ),
            format!("{} ({} a frame)", ms(self.run), each(self.run)),
            format!(
                "{} ({LINE} sequential start_develop, {ITEMS} × {} at {QUALITY}; {} each)",
                ms(self.singles),
                CHAIN.join(" + "),
                each(self.singles)
            ),
            format!("{} / ≤ {TARGET:.1}×", ratio(ours, base)),
            base > 0.0 && ours / base <= TARGET,
        )
    }
}

/// A `Studio` (runner and sweep not started) with a house and one library image per item.
struct Bench {
    studio: Studio,
    caller: Caller,
    /// One image per item, in item order.
    images: Vec<String>,
    /// The chain, as a run request takes it.
    plan: serde_json::Value,
    /// `[{image: <asset>}, …]`.
    items: serde_json::Value,
    /// The line's price, from a preview (which reserves nothing).
    tokens: i64,
}

impl Bench {
    /// Open `database_url`, sign a house up, upload the items' images, price the line.
    async fn prepared(database_url: &str, blobs: &Path) -> anyhow::Result<Bench> {
        // Every round's holds are released again; the grant only has to cover one side's
        // holds (700 frames at 1k), with a wide margin.
        let config = CoreConfig { signup_grant_tokens: 1_000_000, ..CoreConfig::default() };
        let studio = Studio::open(database_url, &BlobConfig::Local(blobs.join("blobs")), config).await?;
        let req = SignUpRequest {
            email: format!("bench-pipeline-{}@example.com", uuid::Uuid::new_v4().simple()),
            password: "a long enough bench password".into(),
            name: None,
        };
        let (_, token) = studio.accounts().sign_up(req).await?;
        let caller = studio.accounts().authenticate_session(&token).await?;
        let mut images = Vec::with_capacity(ITEMS);
        for i in 0..ITEMS {
            let bytes = bytes::Bytes::from(studio_tests::images::padded_png(i, 4096));
            let body = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(bytes)]);
            let pending = studio.library().stream_upload(&caller, body.boxed()).await?;
            images.push(studio.library().finish_upload(&caller, pending, UploadForm::default()).await?.asset.id);
        }
        let plan = json!({
            "name": "Bench line",
            "nodes": [
                {"id": CHAIN[0], "tool": CHAIN[0], "quality": QUALITY, "inputs": {"image": {"item": "image"}}},
                {"id": CHAIN[1], "tool": CHAIN[1], "quality": QUALITY, "inputs": {"image": {"node": CHAIN[0]}}},
            ],
        });
        let items = serde_json::Value::Array(images.iter().map(|id| json!({"image": id})).collect());
        let preview = PipelinePreviewRequest { plan: plan.clone(), items: items.clone() };
        let line = studio.pipelines().preview_pipeline(&caller, preview).await?.compiled;
        anyhow::ensure!(
            line.frames as usize == LINE && line.frames_skipped == 0,
            "the preview compiled {} frames ({} skipped), not {LINE}",
            line.frames,
            line.frames_skipped
        );
        Ok(Bench { studio, caller, images, plan, items, tokens: line.tokens })
    }

    /// Tokens the house holds now.
    async fn held(&self) -> anyhow::Result<i64> {
        Ok(self.studio.billing().balance(&self.caller).await?.held)
    }

    /// One run started over the line, timed from the call to its answer; then its holds
    /// checked and the run cancelled, untimed.
    async fn pipeline(&self) -> anyhow::Result<Duration> {
        let req = PipelineRunRequest {
            plan: Some(self.plan.clone()),
            plan_id: None,
            items: self.items.clone(),
            brand_id: None,
            idempotency_key: None,
        };
        let before = self.held().await?;
        let started = Instant::now();
        let answer = self.studio.pipelines().start_pipeline_run(&self.caller, req).await?;
        let took = started.elapsed();
        anyhow::ensure!(
            answer.compiled.frames as usize == LINE && answer.started as usize == ITEMS && !answer.replayed,
            "the run holds {} frames and queued {} (replayed: {})",
            answer.compiled.frames,
            answer.started,
            answer.replayed
        );
        let held = self.held().await? - before;
        anyhow::ensure!(
            held == self.tokens && answer.compiled.tokens == self.tokens,
            "the run's start held {held} tokens; its line costs {} (preview: {})",
            answer.compiled.tokens,
            self.tokens
        );
        let cancelled = self
            .studio
            .pipelines()
            .cancel_pipeline_run(&self.caller, &studio_core::RunId::from(&answer.run_id))
            .await?;
        anyhow::ensure!(
            cancelled.cancelled_job_ids.len() == ITEMS
                && cancelled.cancelled_step_ids.len() == LINE - ITEMS
                && cancelled.tokens_released == self.tokens,
            "cancelling the run released {} of {} tokens ({} jobs, {} waiting steps)",
            cancelled.tokens_released,
            self.tokens,
            cancelled.cancelled_job_ids.len(),
            cancelled.cancelled_step_ids.len()
        );
        Ok(took)
    }

    /// [`LINE`] sequential single submits, timed together; then their holds checked and each
    /// cancelled, untimed.
    async fn singles(&self) -> anyhow::Result<Duration> {
        let requests: Vec<StartDevelop> = self
            .images
            .iter()
            .flat_map(|image| {
                CHAIN.iter().map(move |tool| StartDevelop {
                    tool: tool.to_string(),
                    inputs: BTreeMap::from([("image".to_string(), image.clone())]),
                    quality: QUALITY.into(),
                    params: BTreeMap::new(),
                    idempotency_key: None,
                    folder_id: None,
                    webhook_url: None,
                })
            })
            .collect();
        let before = self.held().await?;
        let mut ids = Vec::with_capacity(LINE);
        let started = Instant::now();
        for req in requests {
            ids.push(self.studio.develops().start_develop(&self.caller, req).await?.job_id);
        }
        let took = started.elapsed();
        let held = self.held().await? - before;
        anyhow::ensure!(held == self.tokens, "{LINE} singles held {held} tokens; the line costs {}", self.tokens);
        for id in ids {
            let cancelled = self.studio.develops().cancel_job(&self.caller, &studio_core::JobId::from(&id)).await?;
            anyhow::ensure!(cancelled.cancelled, "a single submit {id} was not cancelled: {:?}", cancelled.state);
        }
        Ok(took)
    }
}

/// One untimed warm-up round (when `warm_up`), then `rounds` rounds of both sides, the first
/// of each round alternating; the median of each side. The house's balance must end where it
/// began.
async fn take_turns(bench: &Bench, rounds: usize, warm_up: bool) -> anyhow::Result<Measured> {
    let before = bench.studio.billing().balance(&bench.caller).await?;
    let (mut run, mut singles) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let first = if warm_up { 0 } else { 1 };
    for round in first..=rounds {
        let (p, s) = if round % 2 == 0 {
            let p = bench.pipeline().await?;
            (p, bench.singles().await?)
        } else {
            let s = bench.singles().await?;
            (bench.pipeline().await?, s)
        };
        if round > 0 {
            run.push(p);
            singles.push(s);
        }
    }
    let after = bench.studio.billing().balance(&bench.caller).await?;
    anyhow::ensure!(
        (after.balance, after.held) == (before.balance, before.held),
        "the rounds moved the balance: {} held {} before, {} held {} after",
        before.balance,
        before.held,
        after.balance,
        after.held
    );
    Ok(Measured { run: median(run), singles: median(singles), tokens: bench.tokens })
}
