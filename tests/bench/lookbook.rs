//! Row L: a variations fan-out of [`FRAMES`] frames of a locked look (one request: every frame
//! held together and its job queued, in one storage transaction) against as many single develop
//! submits of the same house, measured in the same run.
//!
//! Both sides call studio-core in this process, as row 2 does ([`crate::submit`]): a `Studio` on
//! a fresh SQLite file (and, when a PostgreSQL server is named, on a fresh database of it) whose
//! job runner is never started, so every queued job stays queued and nothing develops while a
//! side is timed. Set up once: a model and two garments (synthetic PNGs), a draft look of them,
//! its develop-lock run to its end by hand (`run_next_job`, the local compositor makes a real
//! frame), the look locked on that frame, and a library image for the single submits.
//!
//! Each round times (a) one `Lookbook::variations` of [`FRAMES`] keys at 1k, from the call to
//! its answer, then cancels the run `look.<id>.variations` untimed (the hold is released, the look
//! is free again); and (b) [`FRAMES`] sequential `Studio::start_develop` of `upscale` at 1k, one
//! caller, timed together, then cancels each job untimed. The sides take turns, the first of each
//! round alternating, after one untimed warm-up round; each figure is the median round. Target:
//! the fan-out takes no longer than the singles (fan-out time / singles' time ≤ [`TARGET`], the
//! time-ratio convention of rows 3, 5 and 9).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::json;
use studio_core::api::{
    CreateLookRequest, DevelopLockRequest, LockRequest, SignUpRequest, StartDevelop, VariationsRequest,
};
use studio_core::{BlobConfig, Caller, CoreConfig, Studio, UploadForm};

use crate::common::{FreshDatabase, Options, Row, median, ms, ratio};

/// Frames of one fan-out, and single submits it is compared with.
const FRAMES: usize = 24;
/// The variation keys, repeated to [`FRAMES`] (a key named twice is another take).
const KEYS: [&str; 6] = ["full-front", "three-quarter", "back", "detail", "walking", "seated"];
/// Target: the fan-out takes at most this many times the singles' time.
const TARGET: f64 = 1.0;

/// Measure row L.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let rounds = opts.size(15, 2);
    let dir = opts.work.join("lookbook");
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();

    let bench = Bench::prepared(&format!("sqlite://{}", dir.join("studio.db").display()), &dir).await?;
    let measured = take_turns(&bench, rounds).await?;
    drop(bench);
    rows.push(measured.row("SQLite", rounds));

    match &opts.postgres {
        Some(server) => rows.push(postgres_row(server, &dir, rounds).await?),
        None => rows.push(Row::info(
            format!("L. variations fan-out, {FRAMES} frames in one request (reserve + enqueue), PostgreSQL"),
            "skipped",
            "set STUDIO_BENCH_POSTGRES_URL or STUDIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432)",
            "",
        )),
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(rows)
}

/// The same rounds on a fresh PostgreSQL database of `server`, dropped afterwards.
async fn postgres_row(server: &str, dir: &Path, rounds: usize) -> anyhow::Result<Row> {
    let db = FreshDatabase::create(server).await?;
    let measured = async {
        let bench = Bench::prepared(&db.url, &dir.join("pg")).await?;
        take_turns(&bench, rounds).await
    }
    .await;
    db.drop().await;
    Ok(measured?.row("PostgreSQL", rounds))
}

/// The median round of each side.
struct Measured {
    fan_out: Duration,
    singles: Duration,
}

impl Measured {
    fn row(&self, backend: &str, rounds: usize) -> Row {
        let (ours, base) = (self.fan_out.as_secs_f64(), self.singles.as_secs_f64());
        let each = |d: Duration| ms(d / FRAMES as u32);
        Row::new(
            format!(
                "L. variations fan-out, {FRAMES} frames in one request (reserve + enqueue), {backend} \
                 (median of {rounds})"
            ),
            format!("{} ({} a frame)", ms(self.fan_out), each(self.fan_out)),
            format!(
                "{} ({FRAMES} sequential start_develop, upscale 1k; {} each)",
                ms(self.singles),
                each(self.singles)
            ),
            format!("{} / ≤ {TARGET:.1}×", ratio(ours, base)),
            base > 0.0 && ours / base <= TARGET,
        )
    }
}

/// A `Studio` (runner not started) with a house, its locked look and a library image.
struct Bench {
    studio: Studio,
    caller: Caller,
    look_id: String,
    image: String,
}

impl Bench {
    /// Open `database_url`, sign a house up, build and lock the look (module docs).
    async fn prepared(database_url: &str, blobs: &Path) -> anyhow::Result<Bench> {
        // Every round's holds are released again; the grant only has to cover the set-up and
        // one round's holds, with a wide margin.
        let config = CoreConfig { signup_grant_tokens: 1_000_000, ..CoreConfig::default() };
        let studio = Studio::open(database_url, &BlobConfig::Local(blobs.join("blobs")), config).await?;
        let req = SignUpRequest {
            email: format!("bench-look-{}@example.com", uuid::Uuid::new_v4().simple()),
            password: "a long enough bench password".into(),
            name: None,
        };
        let (_, token) = studio.accounts().sign_up(req).await?;
        let caller = studio.accounts().authenticate_session(&token).await?;
        let upload = async |bytes: Vec<u8>| -> anyhow::Result<String> {
            let body = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(bytes::Bytes::from(bytes))]);
            let pending = studio.library().stream_upload(&caller, body.boxed()).await?;
            Ok(studio.library().finish_upload(&caller, pending, UploadForm::default()).await?.asset.id)
        };
        let model = upload(studio_tests::images::shot(96, 160, 235, [0.3, 0.1, 0.7, 0.95])).await?;
        let top = upload(studio_tests::images::garment_shot(80, 80)).await?;
        let shoes = upload(studio_tests::images::shot(80, 48, 235, [0.2, 0.2, 0.8, 0.8])).await?;
        let image = upload(studio_tests::images::padded_png(0, 4096)).await?;

        let lookbook = studio.lookbook();
        let look = CreateLookRequest {
            name: Some("Bench look".into()),
            model_asset_id: Some(model),
            item_asset_ids: Some(vec![
                json!({"assetId": top, "role": "top"}),
                json!({"assetId": shoes, "role": "shoes"}),
            ]),
            background: Some(json!({"kind": "preset", "value": "white"})),
            aesthetic: Some("minimal".into()),
            brand_id: None,
        };
        let look_id = lookbook.create_look(&caller, look).await?.id;
        let lock =
            DevelopLockRequest { quality: Some("1k".into()), output: None, idempotency_key: None, folder_id: None };
        lookbook.develop_lock(&caller, &look_id, lock).await?;
        anyhow::ensure!(studio.develops().run_next_job().await?, "the develop-lock's job was not queued");
        let develop = lookbook.look(&caller, &studio_core::LookId::from(&look_id)).await?.lock_develop;
        let frame = match develop {
            Some(d) if d.status == "done" => d.result_asset_id,
            other => anyhow::bail!("the develop-lock did not land: {other:?}"),
        };
        let frame = frame.ok_or_else(|| anyhow::anyhow!("the develop-lock landed no frame"))?;
        lookbook.lock(&caller, &studio_core::LookId::from(&look_id), LockRequest { asset_id: Some(frame) }).await?;
        Ok(Bench { studio, caller, look_id, image })
    }

    /// One fan-out, timed from the call to its answer; then its run cancelled, untimed.
    async fn fan_out(&self) -> anyhow::Result<Duration> {
        let keys = KEYS.iter().cycle().take(FRAMES).map(|k| k.to_string()).collect();
        let req = VariationsRequest {
            keys: Some(keys),
            quality: Some("1k".into()),
            output: None,
            idempotency_key: None,
            folder_id: None,
        };
        let started = Instant::now();
        let answer =
            self.studio.lookbook().variations(&self.caller, &studio_core::LookId::from(&self.look_id), req).await?;
        let took = started.elapsed();
        anyhow::ensure!(answer.jobs.len() == FRAMES && !answer.replayed, "the fan-out queued {}", answer.jobs.len());
        let run = format!("look.{}.variations", self.look_id);
        let cancelled = self.studio.develops().cancel_run(&self.caller, &run).await?;
        anyhow::ensure!(
            cancelled.cancelled_job_ids.len() == FRAMES && cancelled.tokens_released == answer.tokens_held,
            "cancelling the fan-out released {} of {} tokens ({} jobs)",
            cancelled.tokens_released,
            answer.tokens_held,
            cancelled.cancelled_job_ids.len()
        );
        Ok(took)
    }

    /// [`FRAMES`] sequential single submits, timed together; then each cancelled, untimed.
    async fn singles(&self) -> anyhow::Result<Duration> {
        let requests: Vec<StartDevelop> = (0..FRAMES)
            .map(|_| StartDevelop {
                tool: "upscale".into(),
                inputs: BTreeMap::from([("image".to_string(), self.image.clone())]),
                quality: "1k".into(),
                params: BTreeMap::new(),
                idempotency_key: None,
                folder_id: None,
                webhook_url: None,
            })
            .collect();
        let mut ids = Vec::with_capacity(FRAMES);
        let started = Instant::now();
        for req in requests {
            ids.push(self.studio.develops().start_develop(&self.caller, req).await?.job_id);
        }
        let took = started.elapsed();
        for id in ids {
            let cancelled = self.studio.develops().cancel_job(&self.caller, &studio_core::JobId::from(&id)).await?;
            anyhow::ensure!(cancelled.cancelled, "a single submit {id} was not cancelled: {:?}", cancelled.state);
        }
        Ok(took)
    }
}

/// One untimed warm-up round, then `rounds` rounds of both sides, the first of each round
/// alternating; the median of each side. The house's balance must end where it began.
async fn take_turns(bench: &Bench, rounds: usize) -> anyhow::Result<Measured> {
    let before = bench.studio.billing().balance(&bench.caller).await?;
    let (mut fan_out, mut singles) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for round in 0..=rounds {
        let (f, s) = if round % 2 == 0 {
            let f = bench.fan_out().await?;
            (f, bench.singles().await?)
        } else {
            let s = bench.singles().await?;
            (bench.fan_out().await?, s)
        };
        if round > 0 {
            fan_out.push(f);
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
    Ok(Measured { fan_out: median(fan_out), singles: median(singles) })
}
