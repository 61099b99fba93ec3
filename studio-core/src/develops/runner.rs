//! The job runner: claims queued jobs from storage with a lease, runs up to N at a time through
//! the providers, files each result as an asset and settles (or fails and releases) in one
//! transaction, then lets a pipeline's scheduler pass over the job's run (and sweeps open
//! runs beside it). A job whose runner died keeps its lease only until it lapses; then any runner
//! (after a restart, or on another replica) takes it over, so no hold is ever stranded.

use crate::develops::Develops;
use std::sync::Arc;

use chrono::Duration;
use tokio::sync::Semaphore;

use crate::api::{AssetKind, AssetProvenance, JobStatus};
use crate::develops::JobInput;
use crate::error::{Error, Result};
use crate::ids::{AssetId, FolderId, new_id};
use crate::images::OutputSpace;
use crate::library::assets::accepted_image;
use crate::provenance::{Develop, SignedInput, sign_output};
use crate::providers::{DevelopInput, DevelopOutput, DevelopRequest, ProviderError};
use crate::storage::{AssetRow, JobEnd, JobRow};

/// A task that ends with the runner that started it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The largest developed frame filed, in bytes.
const MAX_RESULT_BYTES: u64 = 64 * 1024 * 1024;

impl Develops<'_> {
    /// Run jobs until `shutdown` resolves. In-flight develops are abandoned at shutdown; their
    /// leases lapse and the next runner takes them over.
    pub async fn run_job_runner(&self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let sweep = {
            let me = self.studio.clone();
            AbortOnDrop(tokio::spawn(
                async move { me.pipelines().run_pipeline_sweep(std::future::pending::<()>()).await },
            ))
        };
        let _sweep = sweep;
        let runner = &self.studio.config.runner;
        let slots = Arc::new(Semaphore::new(runner.concurrency.max(1)));
        loop {
            let permit = tokio::select! {
                () = &mut shutdown => return,
                permit = slots.clone().acquire_owned() => match permit { Ok(p) => p, Err(_) => return },
            };
            match self.claim_next_job().await {
                Ok(Some(job)) => {
                    let me = self.studio.clone();
                    tokio::spawn(async move {
                        me.develops().run_claimed(job).await;
                        drop(permit);
                    });
                    continue;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "claiming a job failed"),
            }
            drop(permit);
            tokio::select! {
                () = &mut shutdown => return,
                () = self.studio.job_wakeup.notified() => {}
                () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
            }
        }
    }

    /// Claim the next job (queued, or running with a lapsed lease); announce a first claim.
    pub(crate) async fn claim_next_job(&self) -> Result<Option<JobRow>> {
        let now = crate::ids::now();
        let lease = Duration::seconds(self.studio.config.runner.lease_secs);
        let Some(job) = self.store.claim_job(now, now - lease).await? else { return Ok(None) };
        if job.attempts == 1 {
            self.publish_job(&job).await;
        }
        Ok(Some(job))
    }

    /// Claim and run one job to its end or its next retry; false when none was waiting.
    pub async fn run_next_job(&self) -> Result<bool> {
        match self.claim_next_job().await? {
            Some(job) => {
                self.run_claimed(job).await;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn run_claimed(&self, job: JobRow) {
        let runner = &self.studio.config.runner;
        if job.attempts > runner.max_attempts {
            let why = format!("gave up after {} attempts", runner.max_attempts);
            self.end_job(&job, JobEnd::Failed(why)).await;
            return;
        }
        let heartbeat = {
            let me = self.studio.clone();
            let id = job.id.clone();
            let every = std::time::Duration::from_secs((runner.lease_secs.max(3) / 3) as u64);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    if let Err(e) = me.develops().store.renew_job_claim(&id, crate::ids::now()).await {
                        tracing::warn!(error = %e, job = %id, "could not renew a job lease");
                    }
                }
            })
        };
        let outcome = self.develop_frame(&job).await;
        heartbeat.abort();
        match outcome {
            Ok(asset) => {
                let blob_key = asset.blob_key.clone();
                if !self.end_job(&job, JobEnd::Done(Box::new(asset))).await {
                    let _ = self.studio.blobs.delete(&blob_key).await;
                }
            }
            Err(ProviderError::Rejected(why)) => {
                self.end_job(&job, JobEnd::Failed(why)).await;
            }
            Err(ProviderError::Unavailable(why)) if job.attempts < runner.max_attempts => {
                tracing::warn!(job = %job.id, attempt = job.attempts, error = %why, "develop failed; will retry");
                // Let the lease lapse `retry_after_secs` from now, so a runner claims it again then.
                let lapse = crate::ids::now() - Duration::seconds(runner.lease_secs)
                    + Duration::seconds(runner.retry_after_secs);
                if let Err(e) = self.store.renew_job_claim(&job.id, lapse).await {
                    tracing::warn!(error = %e, job = %job.id, "could not schedule a retry");
                }
            }
            Err(ProviderError::Unavailable(why)) => {
                self.end_job(&job, JobEnd::Failed(why)).await;
            }
        }
    }

    /// End a job (settle or release in the same transaction) and announce it. False when the
    /// job had already ended.
    async fn end_job(&self, job: &JobRow, end: JobEnd) -> bool {
        match self.store.finish_job(&job.org_id, &job.id, end, crate::ids::now()).await {
            Ok(Some(row)) => {
                if row.status == JobStatus::Done {
                    // The settle point: what the provider's work cost, recorded after the
                    // ledger moved, never beside it.
                    let provider = self.studio.config.providers.get(&row.tool).map_or("unknown", |p| p.name());
                    let tokens = row.tokens_settled.unwrap_or(row.tokens);
                    self.studio
                        .admin()
                        .record_cost(&row.org_id, &row.hold_id, Some(&row.id), &row.tool, provider, tokens)
                        .await;
                }
                self.publish_job(&row).await;
                self.studio.pipelines().after_job_end(&row).await;
                true
            }
            Ok(None) => false,
            Err(e) => {
                // The lease lapses and the job is tried again; its hold is still open, not lost.
                tracing::error!(error = %e, job = %job.id, "could not record the end of a job");
                false
            }
        }
    }

    /// Load the inputs, develop through the tool's provider, and store the frame's bytes.
    async fn develop_frame(&self, job: &JobRow) -> std::result::Result<AssetRow, ProviderError> {
        let provider = self
            .studio
            .config
            .providers
            .get(&job.tool)
            .ok_or_else(|| ProviderError::Rejected(format!("{} is no longer a tool this studio runs", job.tool)))?
            .clone();
        let mut stored: Vec<JobInput> = job.input_list();
        // The principal input (the `image`, else the first) leads: it is the image an edit's
        // manifest names as its parent.
        stored.sort_by_key(|i| i.role != "image");
        let mut inputs = Vec::with_capacity(stored.len());
        for input in &stored {
            let bytes = self
                .studio
                .blobs
                .get_bytes(&input.blob_key)
                .await
                .map_err(|e| ProviderError::Unavailable(format!("input {} could not be read: {e}", input.role)))?;
            inputs.push(DevelopInput { role: input.role.clone(), bytes, mime: input.mime.clone() });
        }
        // The frame carries what the house's metadata policy keeps of its principal input's
        // EXIF, IPTC and XMP, and its content credentials name every input as an ingredient.
        let principal = inputs.first().map(|i| i.bytes.clone());
        let ingredients: Vec<SignedInput> = stored
            .iter()
            .zip(&inputs)
            .map(|(kept, input)| SignedInput {
                title: match &kept.asset_id {
                    Some(id) => format!("{id} ({})", kept.role),
                    None => format!("{} (uploaded with the develop)", kept.role),
                },
                mime: input.mime.clone(),
                bytes: input.bytes.clone(),
            })
            .collect();
        let params = job.params_map();
        let metadata = crate::brand::job_metadata(&params);
        let space =
            params.get(crate::providers::local::COLOUR_OUTPUT).map(|p| OutputSpace::from_policy(p)).unwrap_or_default();
        let request = DevelopRequest {
            job_id: job.id.clone().into(),
            tool: job.tool.clone(),
            quality: job.quality_tier(),
            inputs,
            params,
        };
        let limit = std::time::Duration::from_secs(self.studio.config.runner.timeout_secs);
        let mut output = tokio::time::timeout(limit, provider.develop(request))
            .await
            .map_err(|_| ProviderError::Unavailable(format!("the develop took longer than {limit:?}")))??;
        // A hosted provider answers in sRGB: under `keep` the frame goes into the input's space
        // (the local provider writes it there itself, so its frames are left as they are).
        if space == OutputSpace::Keep
            && let Some(input) = principal.clone()
        {
            let frame = std::mem::take(&mut output.bytes);
            output.bytes = tokio::task::spawn_blocking(move || {
                crate::images::colour::into_kept_space(&frame, &input, space).unwrap_or(frame)
            })
            .await
            .map_err(|e| ProviderError::Unavailable(e.to_string()))?;
        }
        output.bytes = crate::images::metadata::carry(output.bytes, principal.as_deref().unwrap_or_default(), metadata);
        let house = self
            .studio
            .accounts()
            .house_name(&job.org_id)
            .await
            .map_err(|e| ProviderError::Unavailable(e.to_string()))?;
        let develop = Develop {
            tool: job.tool.clone(),
            quality: job.quality.clone(),
            provider: provider.name().to_string(),
            job_id: job.id.clone().into(),
            house_id: job.org_id.to_string(),
            house_name: house,
        };
        let credentials = self.studio.config.credentials.clone();
        let (signed, provenance) =
            sign_output(credentials, std::mem::take(&mut output.bytes), output.mime.clone(), develop, ingredients)
                .await
                .map_err(ProviderError::Unavailable)?;
        output.bytes = signed;
        self.file_result(job, &stored, output, provenance).await.map_err(|e| ProviderError::Unavailable(e.to_string()))
    }

    /// Store a frame's bytes and build its asset row (inserted when the job ends).
    async fn file_result(
        &self,
        job: &JobRow,
        inputs: &[JobInput],
        output: DevelopOutput,
        provenance: AssetProvenance,
    ) -> Result<AssetRow> {
        let id = new_id("ast");
        let key = format!("orgs/{}/assets/{id}", job.org_id);
        let blob = self
            .studio
            .blobs
            .put_bytes(&key, output.bytes, MAX_RESULT_BYTES, accepted_image)
            .await
            .map_err(Error::internal)?;
        let source = match inputs.iter().find(|i| i.role == "image").or(inputs.first()).and_then(|i| i.asset_id.clone())
        {
            Some(asset_id) => {
                self.studio.library().asset(&AssetId::from(&asset_id)).await?.filter(|a| a.org_id == job.org_id)
            }
            None => None,
        };
        let params = job.params_map();
        let folder_id = match crate::develops::filing::filing_folder(&params) {
            Some(folder) => self.studio.library().folder(&job.org_id, &FolderId::from(folder)).await?.map(|f| f.id),
            None => None,
        };
        let name = match &source {
            Some(s) => format!("{} · {}", s.name, job.tool),
            None => format!("{} {}", job.tool, job.quality),
        };
        let kind = source.as_ref().map_or(AssetKind::Clothes.as_str(), |s| s.kind.as_str());
        let dims = Some((output.width, output.height));
        let row = AssetRow::over_blob(
            id,
            &job.org_id,
            job.user_id.clone().map(String::from),
            name.chars().take(200).collect(),
            kind,
            &blob,
            dims,
        );
        let sku = source.as_ref().and_then(|s| s.sku.clone());
        Ok(AssetRow { sku, folder_id, tool: Some(job.tool.clone()), ..row.with_provenance(&provenance) })
    }
}
