//! Developing a look (§4.4, §3.2): the develop-lock of a draft, lock and unlock, and the
//! variations of a locked look. Each develop runs the `lookbook` tool on the look's model,
//! pieces (in item order, their roles in `itemRoles`) and background, framed for a variation
//! key and composed for the output destination ([`super::output`]). The whole cost of every
//! frame (the tier, plus a restoration pass where the place needs more pixels than the tier
//! gives) is held before anything is queued, in the storage transaction that also checks the
//! look's state under its row lock ([`crate::storage::LookbookStore::create_look_jobs`]): a
//! refusal holds nothing and creates nothing, and of two concurrent develop-locks exactly one
//! is queued. The jobs carry `lookId` and `stage` (`lock` or `variations`), so they show as the
//! run `look.<lookId>.<stage>` and cancel through the run's cancel.

use std::collections::BTreeMap;

use crate::api::{
    Background, DevelopLockRequest, DevelopLockResponse, LockRequest, LookItem, LookResponse, OutputPlan,
    OutputRequest, Quality, StartDevelop, StartedDevelop, VariationJob, VariationsRequest, VariationsResponse,
};
use crate::caller::Caller;
use crate::develops::{JobInput, JobSpec};
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{JobId, LookId, new_id, now};
use crate::storage::{LockChange, LockOutcome, LookGuard, LookJobsOutcome, LookRow};

use super::output::{self, Destination, Framing};
use super::{Lookbook, look_view, parse, vocabulary};

/// The develop tool of looks.
pub(crate) const LOOK_TOOL: &str = "lookbook";
/// The framing a develop-lock composes.
const LOCK_VARIATION: &str = "full-front";
/// Longest idempotency key.
const MAX_KEY_CHARS: usize = 200;

impl Lookbook<'_> {
    /// The tier price of one lookbook frame at `quality` (no restoration pass).
    pub(crate) fn look_frame_price(&self, quality: Quality) -> i64 {
        self.studio.develops().frame_price(LOOK_TOOL, quality)
    }
}

/// What a develop of a look will make and cost, checked before anything is read or held.
struct Order {
    quality: Quality,
    destination: Destination,
    framing: Framing,
    plan: OutputPlan,
    idempotency_key: String,
}

/// What every frame of one request on a look shares: the look's inputs (model, pieces in item
/// order, an asset background), the options and the brand.
struct LookInputs {
    inputs: Vec<JobInput>,
    params: BTreeMap<String, String>,
    brand_id: Option<String>,
}

fn not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such look in this house.")
}

fn in_flight() -> Error {
    Error::conflict(
        "DEVELOP_IN_FLIGHT",
        "A develop of this look is still queued or rendering; wait for it or cancel it.",
    )
}

impl Lookbook<'_> {
    /// A request's quality (the standing preset's when absent) and destination, priced.
    async fn order(
        &self,
        caller: &Caller,
        quality: Option<&str>,
        out: Option<&OutputRequest>,
        key: Option<&str>,
    ) -> Result<Order> {
        let quality = match quality.map(str::trim).filter(|q| !q.is_empty()) {
            Some(q) => q.parse().map_err(|_| Error::invalid("BAD_BODY", "quality is one of 1k, 2k, 4k."))?,
            None => self.preset(caller).await?.preset.quality,
        };
        let idempotency_key = match key.map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) if k.chars().count() > MAX_KEY_CHARS => {
                return Err(Error::invalid(
                    "BAD_BODY",
                    format!("idempotencyKey is at most {MAX_KEY_CHARS} characters."),
                ));
            }
            Some(k) => k.to_string(),
            None => new_id("look-idem"),
        };
        let destination = output::destination(out, quality)?;
        let framing = output::framing(&destination, quality)?;
        let tier_tokens = self.look_frame_price(quality);
        let restoration_tokens =
            if framing.restore_edge.is_some() { self.studio.develops().frame_price("upscale", Quality::K4) } else { 0 };
        let plan = OutputPlan {
            destination: destination.key.clone(),
            width: destination.width,
            height: destination.height,
            composed_aspect: format!("{}:{}", destination.composed.0, destination.composed.1),
            frame_width: framing.frame_width,
            frame_height: framing.frame_height,
            trim_percent: framing.trim_percent,
            tier_tokens,
            restoration_tokens,
            tokens_per_frame: tier_tokens + restoration_tokens,
        };
        Ok(Order { quality, destination, framing, plan, idempotency_key })
    }

    /// The look, 404 `NOT_FOUND` when it is not the house's.
    async fn look_row(&self, caller: &Caller, id: &str) -> Result<LookRow> {
        self.store.look(&caller.org_id, &LookId::from(id.trim())).await?.ok_or_else(not_found)
    }

    /// What every frame of a request on `look` shares, its assets read once per request.
    async fn look_inputs(&self, caller: &Caller, look: &LookRow, order: &Order) -> Result<LookInputs> {
        let items: Vec<LookItem> = parse(&look.items)?;
        let background: Background = parse(&look.background)?;
        let studio = self.studio;
        let mut inputs = Vec::with_capacity(items.len() + 2);
        let mut add = |role: &str, asset_id: &str, found: (String, String)| {
            inputs.push(JobInput {
                role: role.to_string(),
                blob_key: found.0,
                mime: found.1,
                asset_id: Some(asset_id.to_string()),
            });
        };
        add(
            "model",
            &look.model_asset_id,
            studio.develops().input_asset(caller, &look.model_asset_id, "ASSET_NOT_FOUND").await?,
        );
        for item in &items {
            add(
                "garment",
                &item.asset_id,
                studio.develops().input_asset(caller, &item.asset_id, "ASSET_NOT_FOUND").await?,
            );
        }
        let mut params = BTreeMap::from([
            ("lookId".to_string(), look.id.to_string()),
            ("itemRoles".to_string(), items.iter().map(|i| i.role.as_str()).collect::<Vec<_>>().join(",")),
            ("aesthetic".to_string(), look.aesthetic.clone()),
            ("aspect".to_string(), format!("{}:{}", order.destination.composed.0, order.destination.composed.1)),
            ("destination".to_string(), order.destination.key.clone()),
            ("outputWidth".to_string(), order.destination.width.to_string()),
            ("outputHeight".to_string(), order.destination.height.to_string()),
        ]);
        match &background {
            Background::Preset { value } => {
                params.insert("ground".to_string(), value.clone());
            }
            Background::Asset { asset_id } => {
                add("background", asset_id, studio.develops().input_asset(caller, asset_id, "ASSET_NOT_FOUND").await?);
            }
        }
        if let Some(edge) = order.framing.restore_edge {
            params.insert("restoreEdge".to_string(), edge.to_string());
        }
        if let Some(base) = &look.look_base_asset_id {
            params.insert("lookBaseAssetId".to_string(), base.to_string());
        }
        Ok(LookInputs { inputs, params, brand_id: look.brand_id.clone() })
    }

    /// One job of the look for `variation` at `stage`, held at the order's price per frame.
    fn look_job(
        &self,
        caller: &Caller,
        order: &Order,
        shared: &LookInputs,
        (stage, variation): (&str, &str),
        key: String,
    ) -> crate::storage::JobRow {
        let mut params = shared.params.clone();
        params.insert("stage".to_string(), stage.to_string());
        params.insert("variation".to_string(), variation.to_string());
        let spec = JobSpec {
            tool: LOOK_TOOL.to_string(),
            quality: order.quality,
            params,
            inputs: shared.inputs.clone(),
            idempotency_key: Some(key),
            brand_id: shared.brand_id.clone(),
            source_job_id: None,
            retry_of_job_id: None,
        };
        let mut job = self.studio.develops().new_job(caller, spec);
        job.tokens = order.plan.tokens_per_frame;
        job
    }

    /// File the frames of one request on a look in the collection `folder` names (checked as a
    /// develop's `folderId` is, before anything is held); a blank or absent one files nothing.
    async fn file_into(&self, caller: &Caller, folder: Option<String>, shared: &mut LookInputs) -> Result<()> {
        let Some(folder) = folder else { return Ok(()) };
        shared.params.insert(crate::develops::filing::FOLDER_FIELD.to_string(), folder);
        self.studio.develops().check_develop_folder(caller, &mut shared.params).await
    }

    fn tool_runs(&self) -> Result<()> {
        if self.studio.config.providers.get(LOOK_TOOL).is_none() {
            return Err(Error::new(
                ErrorKind::NotConfigured,
                "LOOKBOOK_NOT_CONFIGURED",
                "No provider of this studio runs the lookbook tool.",
            ));
        }
        Ok(())
    }

    /// Hold and queue jobs on a look in the state `status`; the jobs and whether it was a replay.
    async fn queue_on_look(
        &self,
        caller: &Caller,
        look_id: &LookId,
        status: &'static str,
        mut jobs: Vec<crate::storage::JobRow>,
    ) -> Result<(Vec<crate::storage::JobRow>, bool)> {
        self.studio.brand().carry_clause(&mut jobs).await?;
        let guard = LookGuard { org_id: caller.org_id.clone(), look_id: look_id.clone(), status };
        let outcome = self.store.create_look_jobs(guard, jobs).await.map_err(crate::develops::enqueue_failed)?;
        let outcome = match outcome {
            LookJobsOutcome::Jobs(o) => o,
            LookJobsOutcome::NotFound => return Err(not_found()),
            LookJobsOutcome::InFlight => return Err(in_flight()),
            LookJobsOutcome::WrongStatus(_) if status == "draft" => {
                return Err(Error::conflict(
                    "LOOK_LOCKED",
                    "This look is locked; unlock it before developing its base again.",
                ));
            }
            LookJobsOutcome::WrongStatus(_) => {
                return Err(Error::conflict(
                    "LOCK_REQUIRED",
                    "Variations grow from a locked look: lock it on one of its frames first.",
                ));
            }
        };
        let rows = self.studio.develops().queued(outcome).await?;
        let replayed = rows.first().is_some_and(|r| r.1);
        Ok((rows.into_iter().map(|r| r.0).collect(), replayed))
    }

    /// `POST looks/{id}/develop-lock`: develop the look's base frame. Draft looks only (409
    /// `LOOK_LOCKED`), nothing of the look in flight (409 `DEVELOP_IN_FLIGHT`); 402 when the
    /// house cannot hold the whole cost.
    pub async fn develop_lock(
        &self,
        caller: &Caller,
        id: &str,
        req: DevelopLockRequest,
    ) -> Result<DevelopLockResponse> {
        caller.require_spend_tokens()?;
        let order =
            self.order(caller, req.quality.as_deref(), req.output.as_ref(), req.idempotency_key.as_deref()).await?;
        let look = self.look_row(caller, id).await?;
        self.tool_runs()?;
        let mut shared = self.look_inputs(caller, &look, &order).await?;
        self.file_into(caller, req.folder_id, &mut shared).await?;
        let job = self.look_job(caller, &order, &shared, ("lock", LOCK_VARIATION), order.idempotency_key.clone());
        let (rows, replayed) = self.queue_on_look(caller, &look.id, "draft", vec![job]).await?;
        let row = rows.into_iter().next().ok_or_else(|| Error::internal("no job came back"))?;
        Ok(DevelopLockResponse {
            job_id: row.id.clone().into(),
            status: row.job_status(),
            tokens_held: if replayed { 0 } else { row.tokens },
            idempotency_key: order.idempotency_key,
            replayed,
            output: order.plan,
        })
    }

    /// `POST looks/{id}/variations`: one frame per key, all held together or none (402 names
    /// the whole need). Locked looks only (409 `LOCK_REQUIRED`).
    pub async fn variations(&self, caller: &Caller, id: &LookId, req: VariationsRequest) -> Result<VariationsResponse> {
        caller.require_spend_tokens()?;
        let keys = vocabulary::variation_frames(req.keys.as_deref())?;
        let order =
            self.order(caller, req.quality.as_deref(), req.output.as_ref(), req.idempotency_key.as_deref()).await?;
        let look = self.look_row(caller, id).await?;
        self.tool_runs()?;
        let mut shared = self.look_inputs(caller, &look, &order).await?;
        self.file_into(caller, req.folder_id, &mut shared).await?;
        let jobs = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let idem = format!("{}:{i}:{key}", order.idempotency_key);
                self.look_job(caller, &order, &shared, ("variations", key), idem)
            })
            .collect();
        let (rows, replayed) = self.queue_on_look(caller, &look.id, "locked", jobs).await?;
        let jobs: Vec<VariationJob> = rows
            .iter()
            .map(|r| VariationJob {
                key: r.params_map().get("variation").cloned().unwrap_or_default(),
                job_id: r.id.clone().into(),
            })
            .collect();
        Ok(VariationsResponse {
            jobs,
            tokens_held: if replayed { 0 } else { rows.iter().map(|r| r.tokens).sum() },
            idempotency_key: order.idempotency_key,
            replayed,
            output: order.plan,
        })
    }

    /// The agent endpoint's start_develop of the `lookbook` tool on a look (`params.lookId`):
    /// without `params.variation` the look's develop-lock, with it one variation frame of a
    /// locked look. `params.destination`, `width` and `height` give the output. Any other
    /// option or an input is refused (`BAD_PARAMS`): the look names its own inputs.
    pub(crate) async fn start_develop(&self, caller: &Caller, req: StartDevelop) -> Result<StartedDevelop> {
        const TAKEN: [&str; 5] = ["lookId", "variation", "destination", "width", "height"];
        if let Some(other) = req.params.keys().find(|k| !TAKEN.contains(&k.as_str())) {
            return Err(Error::invalid(
                "BAD_PARAMS",
                format!("A look develop takes params {}; not {other:?}.", TAKEN.join(", ")),
            ));
        }
        if !req.inputs.is_empty() {
            return Err(Error::invalid("BAD_INPUTS", "A look develop takes no inputs: the look names them."));
        }
        let param = |k: &str| req.params.get(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let pixels = |k: &str| -> Result<Option<i64>> {
            param(k)
                .map(|v| {
                    v.parse::<i64>().map_err(|_| Error::invalid("BAD_DIMENSIONS", format!("params.{k} is pixels.")))
                })
                .transpose()
        };
        let output =
            OutputRequest { destination: param("destination"), width: pixels("width")?, height: pixels("height")? };
        let look_id = param("lookId").unwrap_or_default();
        match param("variation") {
            None => {
                let r = self
                    .develop_lock(
                        caller,
                        &look_id,
                        DevelopLockRequest {
                            quality: Some(req.quality),
                            output: Some(output),
                            idempotency_key: req.idempotency_key,
                            folder_id: req.folder_id,
                        },
                    )
                    .await?;
                Ok(StartedDevelop {
                    job_id: r.job_id,
                    status: r.status,
                    tokens_held: r.tokens_held,
                    idempotency_key: Some(r.idempotency_key),
                })
            }
            Some(key) => {
                let r = self
                    .variations(
                        caller,
                        &LookId::from(&look_id),
                        VariationsRequest {
                            keys: Some(vec![key]),
                            quality: Some(req.quality),
                            output: Some(output),
                            idempotency_key: req.idempotency_key,
                            folder_id: req.folder_id,
                        },
                    )
                    .await?;
                let job = r.jobs.into_iter().next().ok_or_else(|| Error::internal("no variation job came back"))?;
                let status = self.studio.develops().own_job(caller, &JobId::from(&job.job_id)).await?.job_status();
                Ok(StartedDevelop {
                    job_id: job.job_id,
                    status,
                    tokens_held: r.tokens_held,
                    idempotency_key: Some(r.idempotency_key),
                })
            }
        }
    }

    /// `POST looks/{id}/lock`: make a landed frame of one of this look's develops its base
    /// (422 `NOT_A_LOOK_FRAME` otherwise); lineage records the model collage as its parent.
    /// Locking a locked look moves its base to the new frame.
    pub async fn lock(&self, caller: &Caller, id: &LookId, req: LockRequest) -> Result<LookResponse> {
        caller.require_write_library()?;
        let asset_id = req.asset_id.as_deref().map(str::trim).unwrap_or_default();
        if asset_id.is_empty() {
            return Err(Error::invalid("ASSET_REQUIRED", "Name the frame to lock on (assetId)."));
        }
        let look = self.look_row(caller, id).await?;
        let change = LockChange::Lock { asset_id: asset_id.to_string(), parent_id: Some(look.model_asset_id.clone()) };
        self.change_lock(caller, &look.id, change).await
    }

    /// `POST looks/{id}/unlock`: back to draft, the look-base fields kept; a draft is answered
    /// unchanged.
    pub async fn unlock(&self, caller: &Caller, id: &LookId) -> Result<LookResponse> {
        caller.require_write_library()?;
        self.change_lock(caller, id.trim(), LockChange::Unlock).await
    }

    async fn change_lock(&self, caller: &Caller, id: &str, change: LockChange) -> Result<LookResponse> {
        match self.store.set_look_lock(&caller.org_id, &LookId::from(id), change, now()).await? {
            LockOutcome::Changed(row) | LockOutcome::Unchanged(row) => Ok(LookResponse { look: look_view(&row)? }),
            LockOutcome::NotFound => Err(not_found()),
            LockOutcome::InFlight => Err(in_flight()),
            LockOutcome::NotAFrame => Err(Error::new(
                ErrorKind::Unprocessable,
                "NOT_A_LOOK_FRAME",
                "That asset did not develop from this look: lock on a landed frame of its develop-lock or variations.",
            )),
        }
    }
}
