//! Pipelines on the wire (`02-route-groups.md` §2.7, §4.6): the plan format (nodes of a DAG,
//! each a develop step whose inputs come from the item or from an earlier node), presets, the
//! compiled line a preview prices, and runs with their steps. See docs/pipelines.md.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Quality;

/// Where one input of a node comes from: exactly one of `item` (a key of each item, e.g.
/// `"image"`) or `node` (the id of an earlier node, whose frame for the same item is used).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputSource {
    /// A key of the item: its value (an asset id) is the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// An earlier node: its frame for the same item is the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// One step of a plan: a develop tool run once per item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanNode {
    /// Unique within the plan: letters, digits, `-` and `_`, at most 40.
    pub id: String,
    /// A develop tool this deployment runs (`GET /api/toolkit/ai/billing/prices`).
    pub tool: String,
    /// The tier; 2k when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<Quality>,
    /// The tool's options, as a submit's text fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// Input role (image, garment, model, mask, background) to where it comes from.
    #[serde(default)]
    pub inputs: BTreeMap<String, InputSource>,
    /// A folder of the house where this node's frames are filed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_folder_id: Option<String>,
}

/// A pipeline plan: named nodes forming a DAG (§2.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Plan {
    /// The preset it came from, when it came from one (echoed and recorded on runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A label for people.
    pub name: String,
    /// Where finished frames (those of nodes no other node consumes) are filed, unless their
    /// node names its own `sinkFolderId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_folder_id: Option<String>,
    /// The steps, at most 16.
    pub nodes: Vec<PlanNode>,
}

/// One row the plan runs over: a key (referred to by nodes' `item` inputs) to an asset id or
/// a kept model's id.
pub type PlanItem = BTreeMap<String, String>;

/// `POST /api/toolkit/pipelines/preview`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PipelinePreviewRequest {
    /// The plan.
    #[schemars(with = "Plan")]
    pub plan: serde_json::Value,
    /// The items (at least one).
    #[schemars(with = "Vec<PlanItem>")]
    pub items: serde_json::Value,
}

/// `POST /api/toolkit/pipelines/runs`: a plan or a preset's id, and the items.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelineRunRequest {
    /// The plan (or give `planId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Plan>")]
    pub plan: Option<serde_json::Value>,
    /// A preset of the house to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
    /// The items (at least one).
    #[schemars(with = "Vec<PlanItem>")]
    pub items: serde_json::Value,
    /// The brand the frames are for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand_id: Option<String>,
    /// The same key again (same person, same plan and items) answers the first run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// Where a compiled step's input comes from: a library asset, or an earlier step's frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepSource {
    /// The asset (from the item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_id: Option<String>,
    /// The step (its `index`) whose frame it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<i64>,
}

/// One frame of the line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompiledStep {
    /// Position in the line (0-based); steps upstream always come first.
    pub index: i64,
    /// The item (0-based) it develops.
    pub item: i64,
    /// The node it runs.
    pub node: String,
    /// The tool.
    pub tool: String,
    /// The tier.
    pub quality: Quality,
    /// Its price today.
    pub tokens: i64,
    /// Role to source.
    pub inputs: BTreeMap<String, StepSource>,
    /// The steps it waits for.
    pub after: Vec<i64>,
    /// Where its frame is filed, if anywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_folder_id: Option<String>,
}

/// A step the line leaves out because its item does not supply an input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedStep {
    /// The item.
    pub item: i64,
    /// The node.
    pub node: String,
    /// Why, in plain words.
    pub reason: String,
}

/// One node across every item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeLine {
    /// The node.
    pub node: String,
    /// Its tool.
    pub tool: String,
    /// Its tier.
    pub quality: Quality,
    /// The price of one of its frames.
    pub tokens_each: i64,
    /// How many of its frames the line holds.
    pub frames: i64,
    /// What they cost together.
    pub tokens: i64,
}

/// A plan over items: every frame with its price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompiledLine {
    /// The plan's name.
    pub name: String,
    /// The plan's id, when it has one.
    pub plan_id: Option<String>,
    /// How many items.
    pub items: i64,
    /// Frames in the line (each one hold).
    pub frames: i64,
    /// Frames left out (see `skipped`).
    pub frames_skipped: i64,
    /// The whole line's price.
    pub tokens: i64,
    /// Per node.
    pub nodes: Vec<NodeLine>,
    /// Every frame, upstream first.
    pub steps: Vec<CompiledStep>,
    /// What was left out and why.
    pub skipped: Vec<SkippedStep>,
}

/// `POST /api/toolkit/pipelines/preview`: the line and whether the balance covers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PipelinePreview {
    /// The line.
    pub compiled: CompiledLine,
    /// Tokens the house can spend now.
    pub spendable: i64,
    /// True when `spendable` covers the line.
    pub affordable: bool,
}

/// A saved plan (§2.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelinePreset {
    /// Id (`ppr_…`).
    pub id: String,
    /// Name.
    pub name: String,
    /// The plan's nodes.
    pub nodes: Vec<PlanNode>,
    /// The plan's sink folder.
    pub sink_folder_id: Option<String>,
    /// When saved first.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// `{preset}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PipelinePresetResponse {
    /// The preset.
    pub preset: PipelinePreset,
}

/// `{presets}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PipelinePresetList {
    /// Newest first, at most 100.
    pub presets: Vec<PipelinePreset>,
}

/// `PATCH /api/toolkit/pipelines/presets/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PipelinePresetPatch {
    /// The new plan (name, sink and nodes are replaced).
    #[schemars(with = "Plan")]
    pub plan: serde_json::Value,
}

/// `{id, deleted}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PipelinePresetDeleted {
    /// The preset.
    pub id: String,
    /// True.
    pub deleted: bool,
}

/// A run's steps by state; `active` is waiting, queued and rendering together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StepCounts {
    /// Landed.
    pub done: i64,
    /// Failed, or never started because an upstream step failed.
    pub failed: i64,
    /// Cancelled, or never started because an upstream step was cancelled.
    pub cancelled: i64,
    /// Waiting for inputs, queued or rendering.
    pub active: i64,
    /// Every step of the run.
    pub total: i64,
}

/// One node's progress in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeProgress {
    /// The node.
    pub node: String,
    /// Its tool.
    pub tool: String,
    /// Its steps by state.
    pub steps: StepCounts,
}

/// A pipeline run (§2.7). `status`: `developing` while any step is active; then `done` (every
/// step landed), `settled` (mixed endings), `failed` (nothing landed) or `cancelled`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelineRun {
    /// Id (`run_<uuid>`).
    pub id: String,
    /// The plan's name.
    pub name: String,
    /// `run.<uuid>`: the run in `GET /api/toolkit/develops`.
    pub develop_id: String,
    /// developing, done, settled, failed or cancelled.
    pub status: String,
    /// The preset it ran, when it ran one.
    pub plan_id: Option<String>,
    /// The brand.
    pub brand_id: Option<String>,
    /// Frames held when the run started.
    pub frames_planned: i64,
    /// Frames left out at compile (an item without the input).
    pub frames_skipped: i64,
    /// Tokens held when the run started.
    pub tokens_planned: i64,
    /// Tokens settled for landed frames so far.
    pub tokens_spent: i64,
    /// Tokens still held for active steps.
    pub tokens_held: i64,
    /// Steps by state.
    pub steps: StepCounts,
    /// Per node.
    pub line: Vec<NodeProgress>,
    /// True once a cancel was asked: nothing more is queued.
    pub cancel_requested: bool,
    /// Start time.
    pub created_at: DateTime<Utc>,
    /// When the last step ended.
    pub finished_at: Option<DateTime<Utc>>,
}

/// One step of a run. `status`: waiting (held, inputs not landed yet), queued, running, done,
/// failed or cancelled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStep {
    /// Id.
    pub id: String,
    /// Position in the line.
    pub index: i64,
    /// The item.
    pub item: i64,
    /// The node.
    pub node: String,
    /// The tool.
    pub tool: String,
    /// The tier.
    pub quality: Quality,
    /// waiting, queued, running, done, failed or cancelled.
    pub status: String,
    /// Tokens held for it.
    pub tokens: i64,
    /// Tokens charged once it ended (0 when released).
    pub tokens_settled: Option<i64>,
    /// Its job, once queued.
    pub job_id: Option<String>,
    /// Its frame, once landed.
    pub result_asset_id: Option<String>,
    /// Role to source.
    pub inputs: BTreeMap<String, StepSource>,
    /// The steps it waits for.
    pub after: Vec<i64>,
    /// Why it failed or was cancelled.
    pub error: Option<String>,
    /// Where its frame is filed.
    pub sink_folder_id: Option<String>,
}

/// `GET /api/toolkit/pipelines/runs/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PipelineRunDetail {
    /// The run.
    pub run: PipelineRun,
    /// Every step, in line order.
    pub steps: Vec<RunStep>,
    /// The plan it ran.
    pub plan: Plan,
}

/// `{runs}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PipelineRunList {
    /// Newest first, at most 50.
    pub runs: Vec<PipelineRun>,
}

/// `POST /api/toolkit/pipelines/runs` (202).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelineRunStarted {
    /// The run.
    pub run_id: String,
    /// `run.<uuid>` in `GET /api/toolkit/develops`.
    pub develop_id: String,
    /// Steps queued at once (the rest wait for their inputs); 0 on a replay.
    pub started: i64,
    /// The line, every frame held.
    pub compiled: CompiledLine,
    /// True when an earlier request with the same key answered.
    pub replayed: bool,
}

/// `POST /api/toolkit/pipelines/runs/{id}/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PipelineCancelResponse {
    /// The run.
    pub id: String,
    /// True when this call cancelled at least one step.
    pub cancelled: bool,
    /// Queued jobs this call cancelled.
    pub cancelled_job_ids: Vec<String>,
    /// Waiting steps (no job yet) this call cancelled.
    pub cancelled_step_ids: Vec<String>,
    /// Jobs rendering now: they finish and cost.
    pub still_rendering: Vec<String>,
    /// Tokens returned to the balance by this call.
    pub tokens_released: i64,
    /// The run after the call.
    pub run: PipelineRun,
}

/// What `POST /api/toolkit/pipelines/presets` accepts: `{plan}` or the plan itself (the
/// schema only; the body is read by [`PipelinePresetBody`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PipelinePresetBodySchema {
    /// `{plan}`.
    Wrapped {
        /// The plan.
        plan: Plan,
    },
    /// The plan itself.
    Bare(Plan),
}

/// `POST /api/toolkit/pipelines/presets`: read as JSON, checked by the core so a bad plan is
/// `BAD_PLAN` naming what is wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct PipelinePresetBody(#[schemars(with = "PipelinePresetBodySchema")] pub serde_json::Value);
