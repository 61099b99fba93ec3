//! The console's money views (§4.12): `ai-costs` (tokens of settled holds by tool and day,
//! beside what the providers' calls cost) and `kept-cost` (tokens spent on frames the houses
//! kept against frames they deleted), and the cost record every settled charge leaves.
//!
//! Neither provider reports a price in its answers today (fal's queue answers carry the request
//! id, status and the output; the AI reader's OpenAI-compatible answer carries model tokens, not
//! dollars), so each record carries the documented per-call estimate below, marked
//! `estimated`; in-process work (the local provider) costs no provider anything and is recorded
//! as an exact 0. docs/admin.md lists the table.

use crate::ids::{HoldId, JobId, OrgId};
use std::collections::BTreeMap;

use crate::api::{AiCosts, DayCost, KeptCost, SinceQuery, ToolCost, ToolKept};
use crate::caller::PlatformAdmin;
use crate::error::Result;
use crate::ids::{new_id, now};
use crate::storage::CostRecordRow;

use super::Admin;
use super::window::{days_back, since_days};

/// The provider of in-process work.
pub(crate) const LOCAL: &str = "local";
/// The hosted models.
pub(crate) const FAL: &str = "fal";
/// The OpenAI-compatible AI reader.
pub(crate) const AI_READER: &str = "ai-reader";

/// Estimated US dollars per fal develop, by tool; other fal tools cost [`FAL_DEFAULT_USD`].
pub(crate) const FAL_ESTIMATES: &[(&str, f64)] = &[
    ("upscale", 0.02),
    ("packshot", 0.04),
    ("tryon", 0.05),
    ("lookbook", 0.05),
    ("generate-character", 0.04),
    ("segment", 0.01),
    ("depth", 0.01),
];
/// Estimated US dollars of a fal call whose tool the table does not name.
pub(crate) const FAL_DEFAULT_USD: f64 = 0.03;
/// Estimated US dollars of one AI reader call (one image and a short answer).
pub(crate) const AI_READER_USD: f64 = 0.005;

/// What a call of `provider` for `tool` costs: (dollars, estimated).
pub(crate) fn call_cost(provider: &str, tool: &str) -> (f64, bool) {
    match provider {
        LOCAL => (0.0, false),
        AI_READER => (AI_READER_USD, true),
        _ => (FAL_ESTIMATES.iter().find(|(t, _)| *t == tool).map_or(FAL_DEFAULT_USD, |(_, usd)| *usd), true),
    }
}

/// Round dollars to a hundredth of a cent, so sums read cleanly.
fn usd(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

impl Admin<'_> {
    /// Record what a settled charge cost at its provider (after the settle, never beside the
    /// ledger write). A failure is logged: the charge stands either way.
    pub(crate) async fn record_cost(
        &self,
        org_id: &OrgId,
        hold_id: &str,
        job_id: Option<&str>,
        tool: &str,
        provider: &str,
        tokens: i64,
    ) {
        let (cost_usd, estimated) = call_cost(provider, tool);
        let row = CostRecordRow {
            id: new_id("pcs"),
            hold_id: HoldId::from(hold_id),
            org_id: org_id.clone(),
            job_id: job_id.map(JobId::from),
            tool: tool.to_string(),
            provider: provider.to_string(),
            tokens,
            cost_usd,
            estimated,
            created_at: now(),
        };
        if let Err(e) = self.store.insert_cost_record(&row).await {
            tracing::warn!(error = %e, hold = %hold_id, "could not record a provider cost");
        }
    }
}

impl Admin<'_> {
    /// `GET /api/toolkit/admin/ai-costs`: settled holds of the window by tool and UTC day, with
    /// their providers' cost. A settled hold no develop or cost record names counts as `other`.
    pub async fn ai_costs(&self, _admin: &PlatformAdmin, q: SinceQuery) -> Result<AiCosts> {
        let days = since_days(q.since, 30)?;
        let rows = self.store.settled_holds(days_back(days)).await?;
        let mut by_tool: BTreeMap<String, ToolCost> = BTreeMap::new();
        let mut daily: BTreeMap<String, (i64, f64)> = BTreeMap::new();
        let (mut tokens, mut cost, mut estimated) = (0i64, 0f64, false);
        for r in rows {
            let tool = r.tool.unwrap_or_else(|| "other".to_string());
            let usd_of = r.cost_usd.unwrap_or(0.0);
            let est = r.estimated.unwrap_or(false);
            let entry = by_tool.entry(tool.clone()).or_insert(ToolCost {
                tool,
                tokens: 0,
                cost_usd: 0.0,
                n: 0,
                estimated: false,
            });
            entry.tokens += r.amount;
            entry.cost_usd += usd_of;
            entry.n += 1;
            entry.estimated |= est;
            let day = daily.entry(r.resolved_at.format("%Y-%m-%d").to_string()).or_default();
            day.0 += r.amount;
            day.1 += usd_of;
            tokens += r.amount;
            cost += usd_of;
            estimated |= est;
        }
        let mut by_tool: Vec<ToolCost> =
            by_tool.into_values().map(|t| ToolCost { cost_usd: usd(t.cost_usd), ..t }).collect();
        by_tool.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.tool.cmp(&b.tool)));
        Ok(AiCosts {
            by_tool,
            daily: daily
                .into_iter()
                .map(|(day, (tokens, cost))| DayCost { day, tokens, cost_usd: usd(cost) })
                .collect(),
            total_tokens_settled: tokens,
            total_cost_usd: usd(cost),
            estimated,
            since_days: days,
        })
    }

    /// `GET /api/toolkit/admin/kept-cost`: for develops that landed in the window, the tokens
    /// settled for frames still in a library against those of frames since deleted, by tool.
    pub async fn kept_cost(&self, _admin: &PlatformAdmin, q: SinceQuery) -> Result<KeptCost> {
        let days = since_days(q.since, 30)?;
        let rows = self.store.kept_cost(days_back(days)).await?;
        let mut by_tool: BTreeMap<String, ToolKept> = BTreeMap::new();
        for r in rows {
            let t = by_tool.entry(r.tool.clone()).or_insert(ToolKept {
                tool: r.tool,
                kept_frames: 0,
                kept_tokens: 0,
                deleted_frames: 0,
                deleted_tokens: 0,
            });
            if r.kept {
                t.kept_frames += r.frames;
                t.kept_tokens += r.tokens;
            } else {
                t.deleted_frames += r.frames;
                t.deleted_tokens += r.tokens;
            }
        }
        let by_tool: Vec<ToolKept> = by_tool.into_values().collect();
        Ok(KeptCost {
            kept_tokens: by_tool.iter().map(|t| t.kept_tokens).sum(),
            deleted_tokens: by_tool.iter().map(|t| t.deleted_tokens).sum(),
            by_tool,
            since_days: days,
        })
    }
}
