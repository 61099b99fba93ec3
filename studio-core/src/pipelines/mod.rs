//! Pipelines (§2.7, §4.6): a plan is a DAG of develop steps; compiled over items it is a line
//! of frames, each priced from the price book. This file reads and checks plans and items,
//! compiles the line, previews it and keeps presets; `runs.rs` starts, shows and cancels runs;
//! `schedule.rs` queues each step when its inputs land. See docs/pipelines.md.

use crate::ids::{FolderId, PresetId};
mod runs;
mod schedule;

pub use runs::RUNS_LISTED;
pub(crate) use runs::run_row_id;
pub use schedule::SWEEP_EVERY;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::api::{
    CompiledLine, CompiledStep, InputSource, NodeLine, PipelinePreset, PipelinePresetDeleted, PipelinePresetList,
    PipelinePresetResponse, PipelinePreview, PipelinePreviewRequest, Plan, PlanNode, Quality, SkippedStep, StepSource,
};
use crate::caller::Caller;
use crate::develops::{check_input_role, check_params};
use crate::error::{Error, ErrorKind, Result};
use crate::ids::now;
use crate::storage::PipelinePresetRow;

/// Most nodes one plan holds.
pub const MAX_NODES: usize = 16;
/// Most frames one line holds (the pack cap: a whole run fits one pack).
pub const MAX_LINE: usize = 700;
/// Most items one request may carry (a line past [`MAX_LINE`] frames is refused before any
/// asset is read, with the frames it holds).
pub const MAX_ITEMS: usize = 5000;
/// Most presets a listing shows (spec §8).
pub const PRESETS_LISTED: i64 = 100;
/// The tier of a node without `quality`.
const DEFAULT_QUALITY: Quality = Quality::K2;
/// Longest plan or preset name.
const MAX_NAME_CHARS: usize = 200;
/// Longest node id and item key.
const MAX_ID_CHARS: usize = 40;
/// Options the pipeline sets itself; a node may not.
/// Options the line sets itself (the run and step, the house's brand clause, colour and metadata
/// policies) or that only a direct develop takes (`placeMarks`), never a node's.
const RESERVED_PARAMS: [&str; 9] = [
    "runId",
    "pipelineStep",
    "lookId",
    "stage",
    "quality",
    "brandClause",
    "colourOutput",
    "metadataOutput",
    "placeMarks",
];

/// Where a compiled step's input comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    /// A library asset of the item, resolved to its bytes.
    Asset { asset_id: String, blob_key: String, mime: String },
    /// The frame of an earlier step of the line.
    Step(usize),
}

/// One frame of a compiled line.
#[derive(Debug, Clone)]
pub(crate) struct StepPlan {
    pub(crate) index: usize,
    pub(crate) item: usize,
    pub(crate) node: String,
    pub(crate) tool: String,
    pub(crate) quality: Quality,
    pub(crate) tokens: i64,
    pub(crate) params: BTreeMap<String, String>,
    pub(crate) inputs: Vec<(String, Source)>,
    pub(crate) after: Vec<usize>,
    pub(crate) sink: Option<String>,
}

/// A plan over items: the wire line and the steps a run stores.
pub(crate) struct Compiled {
    pub(crate) plan: Plan,
    pub(crate) line: CompiledLine,
    pub(crate) steps: Vec<StepPlan>,
}

fn bad_plan(message: impl Into<String>) -> Error {
    Error::invalid("BAD_PLAN", message)
}

fn bad_node(node: &str, message: impl Into<String>) -> Error {
    bad_plan(format!("Node {node:?}: {}", message.into())).with("node", node)
}

fn bad_items(message: impl Into<String>) -> Error {
    Error::invalid("BAD_ITEMS", message)
}

fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= MAX_ID_CHARS
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Read a plan from JSON: a shape error is `BAD_PLAN` with serde's words (which name the field).
pub(crate) fn parse_plan(value: serde_json::Value) -> Result<Plan> {
    if !value.is_object() {
        return Err(bad_plan("The plan is an object: {name, nodes[]}."));
    }
    serde_json::from_value(value).map_err(|e| bad_plan(format!("The plan does not read: {e}.")))
}

/// Read items from JSON: an array of 1 to [`MAX_ITEMS`] objects of item key to asset id.
pub(crate) fn parse_items(value: serde_json::Value) -> Result<Vec<BTreeMap<String, String>>> {
    let serde_json::Value::Array(rows) = value else {
        return Err(bad_items("items is an array of objects, e.g. [{\"image\": \"ast_…\"}]."));
    };
    if rows.is_empty() {
        return Err(bad_items("items names at least one item."));
    }
    if rows.len() > MAX_ITEMS {
        return Err(bad_items(format!("At most {MAX_ITEMS} items per request.")).with("max", MAX_ITEMS));
    }
    let mut items = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        let serde_json::Value::Object(fields) = row else {
            return Err(bad_items(format!("Item {i} is not an object of key to asset id.")).with("item", i));
        };
        let mut item = BTreeMap::new();
        for (key, value) in fields {
            if !plain_name(&key) {
                return Err(bad_items(format!(
                    "Item {i}: key {key:?} is not a plain name (letters, digits, - and _, at most {MAX_ID_CHARS})."
                ))
                .with("item", i));
            }
            let Some(id) = value.as_str().map(str::trim).filter(|v| !v.is_empty()) else {
                return Err(bad_items(format!("Item {i}: {key} is not an asset id.")).with("item", i));
            };
            item.insert(key, id.to_string());
        }
        if item.is_empty() {
            return Err(bad_items(format!("Item {i} is empty.")).with("item", i));
        }
        items.push(item);
    }
    Ok(items)
}

/// The nodes that no other node takes as input (their frames are the finished ones).
fn leaves(plan: &Plan) -> BTreeSet<&str> {
    let consumed: BTreeSet<&str> =
        plan.nodes.iter().flat_map(|n| n.inputs.values().filter_map(|s| s.node.as_deref())).collect();
    plan.nodes.iter().map(|n| n.id.as_str()).filter(|id| !consumed.contains(id)).collect()
}

crate::studio::view! {
    /// The pipelines domain (plans, presets, runs and their schedule): `studio.pipelines()`.
    Pipelines over PipelineStore
}

impl Pipelines<'_> {
    /// Check a plan against this deployment and house; answer its nodes in an order where
    /// every node comes after those it takes input from.
    async fn check_plan(&self, caller: &Caller, plan: &mut Plan) -> Result<Vec<usize>> {
        plan.name = plan.name.trim().to_string();
        if plan.name.is_empty() || plan.name.chars().count() > MAX_NAME_CHARS {
            return Err(bad_plan(format!("name is 1 to {MAX_NAME_CHARS} characters.")));
        }
        if let Some(id) = &plan.id
            && (id.trim().is_empty() || id.chars().count() > 100)
        {
            return Err(bad_plan("id, when given, is 1 to 100 characters."));
        }
        if plan.nodes.is_empty() || plan.nodes.len() > MAX_NODES {
            return Err(bad_plan(format!("A plan has 1 to {MAX_NODES} nodes.")).with("max", MAX_NODES));
        }
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (i, node) in plan.nodes.iter().enumerate() {
            if !plain_name(&node.id) {
                return Err(bad_node(
                    &node.id,
                    format!("an id is letters, digits, - and _, 1 to {MAX_ID_CHARS} of them."),
                ));
            }
            if ids.insert(node.id.as_str(), i).is_some() {
                return Err(bad_node(&node.id, "two nodes have this id."));
            }
        }
        for node in &plan.nodes {
            self.check_node(node, &ids)?;
        }
        let mut sinks: BTreeSet<&str> = plan.nodes.iter().filter_map(|n| n.sink_folder_id.as_deref()).collect();
        sinks.extend(plan.sink_folder_id.as_deref());
        for folder in sinks {
            if self.studio.library().folder(&caller.org_id, &FolderId::from(folder)).await?.is_none() {
                return Err(bad_plan(format!("sinkFolderId {folder:?} is not a folder of this house.")));
            }
        }
        // Kahn's order; what is left over sits on a cycle.
        let mut waiting: Vec<usize> =
            plan.nodes.iter().map(|n| n.inputs.values().filter(|s| s.node.is_some()).count()).collect();
        let mut order: Vec<usize> = (0..plan.nodes.len()).filter(|&i| waiting[i] == 0).collect();
        let mut next = 0;
        while next < order.len() {
            let done = plan.nodes[order[next]].id.as_str();
            next += 1;
            for (i, node) in plan.nodes.iter().enumerate() {
                let uses = node.inputs.values().filter(|s| s.node.as_deref() == Some(done)).count();
                if uses > 0 {
                    waiting[i] -= uses;
                    if waiting[i] == 0 {
                        order.push(i);
                    }
                }
            }
        }
        if let Some(stuck) = (0..plan.nodes.len()).find(|i| !order.contains(i)) {
            return Err(bad_node(&plan.nodes[stuck].id, "it sits on a cycle: a node cannot wait for itself."));
        }
        Ok(order)
    }

    fn check_node(&self, node: &PlanNode, ids: &HashMap<&str, usize>) -> Result<()> {
        let id = node.id.as_str();
        let provider = self.studio.config.providers.get(&node.tool).ok_or_else(|| {
            bad_node(
                id,
                format!(
                    "{:?} is not a tool this studio runs; it runs {}.",
                    node.tool,
                    self.studio.develops().runnable_tools().join(", ")
                ),
            )
        })?;
        check_params(&node.params, "BAD_PLAN").map_err(|e| bad_node(id, e.message))?;
        if let Some(name) = RESERVED_PARAMS.iter().find(|p| node.params.contains_key(**p)) {
            return Err(bad_node(id, format!("{name} is set by the pipeline, not in params.")));
        }
        let mut taken: Vec<&str> = Vec::new();
        for (role, source) in &node.inputs {
            check_input_role(taken.iter().copied(), role).map_err(|e| bad_node(id, e.message))?;
            taken.push(role);
            match (&source.item, &source.node) {
                (Some(key), None) if plain_name(key) => {}
                (Some(key), None) => {
                    return Err(bad_node(id, format!("inputs.{role}.item {key:?} is not a plain name.")));
                }
                (None, Some(up)) if up == id => return Err(bad_node(id, "a node cannot take its own frame.")),
                (None, Some(up)) if ids.contains_key(up.as_str()) => {}
                (None, Some(up)) => {
                    return Err(bad_node(id, format!("inputs.{role} names node {up:?}, which is not in the plan.")));
                }
                _ => {
                    return Err(bad_node(
                        id,
                        format!("inputs.{role} is exactly one of {{\"item\": key}} or {{\"node\": id}}."),
                    ));
                }
            }
        }
        for role in provider.required_roles(&node.tool) {
            if !node.inputs.contains_key(*role) {
                return Err(bad_node(id, format!("{} needs inputs.{role}.", node.tool)));
            }
        }
        // The tool's options as its provider will read them, so a plan with an option the tool
        // cannot read is refused before a run holds anything (not failed step by step).
        let roles: Vec<&str> = node.inputs.keys().map(String::as_str).collect();
        provider
            .check_params(&node.tool, &node.params, node.quality.unwrap_or(DEFAULT_QUALITY), &roles)
            .map_err(|e| bad_node(id, format!("{}: {e}.", node.tool)))?;
        Ok(())
    }

    /// Compile `plan` over `items`: every frame in line order (upstream first) with its
    /// price; an item without an input a tool needs skips that step and its dependents.
    pub(crate) async fn compile(
        &self,
        caller: &Caller,
        mut plan: Plan,
        items: Vec<BTreeMap<String, String>>,
    ) -> Result<Compiled> {
        let order = self.check_plan(caller, &mut plan).await?;
        let leaves: BTreeSet<String> = leaves(&plan).into_iter().map(str::to_string).collect();
        let mut steps: Vec<StepPlan> = Vec::new();
        let mut skipped: Vec<SkippedStep> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let mut step_of: HashMap<&str, usize> = HashMap::new();
            for &n in &order {
                let node = &plan.nodes[n];
                let required =
                    self.studio.config.providers.get(&node.tool).map(|p| p.required_roles(&node.tool)).unwrap_or(&[]);
                let mut inputs = Vec::with_capacity(node.inputs.len());
                let mut after = Vec::new();
                let mut missing = None;
                for (role, source) in &node.inputs {
                    let resolved = match source {
                        // The bytes are filled in once the line is known to fit.
                        InputSource { item: Some(key), .. } => item.get(key).map(|id| Source::Asset {
                            asset_id: id.clone(),
                            blob_key: String::new(),
                            mime: String::new(),
                        }),
                        InputSource { node: Some(up), .. } => step_of.get(up.as_str()).map(|&s| {
                            after.push(s);
                            Source::Step(s)
                        }),
                        _ => None,
                    };
                    match resolved {
                        Some(src) => inputs.push((role.clone(), src)),
                        None if required.contains(&role.as_str()) => {
                            missing = Some(match source {
                                InputSource { item: Some(key), .. } => format!("the item has no {key:?}"),
                                InputSource { node: Some(up), .. } => format!("node {up:?} is skipped for this item"),
                                _ => "an input has no source".to_string(),
                            });
                            break;
                        }
                        None => {}
                    }
                }
                if let Some(reason) = missing {
                    skipped.push(SkippedStep { item: i as i64, node: node.id.clone(), reason });
                    continue;
                }
                after.sort_unstable();
                after.dedup();
                let quality = node.quality.unwrap_or(DEFAULT_QUALITY);
                let sink = node
                    .sink_folder_id
                    .clone()
                    .or_else(|| if leaves.contains(&node.id) { plan.sink_folder_id.clone() } else { None });
                step_of.insert(node.id.as_str(), steps.len());
                steps.push(StepPlan {
                    index: steps.len(),
                    item: i,
                    node: node.id.clone(),
                    tool: node.tool.clone(),
                    quality,
                    tokens: self.studio.develops().frame_price(&node.tool, quality),
                    params: node.params.clone(),
                    inputs,
                    after,
                    sink,
                });
            }
        }
        if steps.len() > MAX_LINE {
            let frames = steps.len();
            return Err(Error::new(
                ErrorKind::Unprocessable,
                "LINE_TOO_WIDE",
                format!("This line holds {frames} frames; one run holds at most {MAX_LINE}. Split the items."),
            )
            .with("frames", frames)
            .with("max", MAX_LINE));
        }
        let mut assets: HashMap<String, (String, String)> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            for id in item.values() {
                if !assets.contains_key(id) {
                    let found = self
                        .studio
                        .develops()
                        .input_asset(caller, id, "ASSET_NOT_FOUND")
                        .await
                        .map_err(|e| e.with("item", i))?;
                    assets.insert(id.clone(), found);
                }
            }
        }
        for (_, source) in steps.iter_mut().flat_map(|s| s.inputs.iter_mut()) {
            if let Source::Asset { asset_id, blob_key, mime } = source {
                (*blob_key, *mime) = assets[asset_id.as_str()].clone();
            }
        }
        if steps.is_empty() {
            return Err(bad_items("No item supplies the inputs the plan's first nodes need; nothing would develop.")
                .with("skipped", skipped.len()));
        }
        let line = line_of(&plan, &steps, skipped, items.len());
        Ok(Compiled { plan, line, steps })
    }

    /// `POST /api/toolkit/pipelines/preview`: the line with its price and whether the balance
    /// covers it. Reserves nothing.
    pub async fn preview_pipeline(&self, caller: &Caller, req: PipelinePreviewRequest) -> Result<PipelinePreview> {
        let plan = parse_plan(req.plan)?;
        let items = parse_items(req.items)?;
        let compiled = self.compile(caller, plan, items).await?;
        let spendable = self.studio.billing().totals(&caller.org_id).await?.spendable();
        Ok(PipelinePreview { affordable: spendable >= compiled.line.tokens, spendable, compiled: compiled.line })
    }

    fn preset_view(&self, row: &PipelinePresetRow) -> PipelinePreset {
        let plan: Option<Plan> = serde_json::from_str(&row.plan).ok();
        PipelinePreset {
            id: row.id.clone().into(),
            name: row.name.clone(),
            nodes: plan.map(|p| p.nodes).unwrap_or_default(),
            sink_folder_id: row.sink_folder_id.clone().map(String::from),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }

    /// A plan as a preset stores it (checked; its `id` is the preset's own).
    async fn preset_plan(&self, caller: &Caller, value: serde_json::Value) -> Result<Plan> {
        let mut plan = parse_plan(value)?;
        self.check_plan(caller, &mut plan).await?;
        plan.id = None;
        Ok(plan)
    }

    /// `GET /api/toolkit/pipelines/presets`: newest first, at most [`PRESETS_LISTED`].
    pub async fn pipeline_presets(&self, caller: &Caller) -> Result<PipelinePresetList> {
        let rows = self.store.pipeline_presets(&caller.org_id, PRESETS_LISTED).await?;
        Ok(PipelinePresetList { presets: rows.iter().map(|r| self.preset_view(r)).collect() })
    }

    /// `POST /api/toolkit/pipelines/presets`: `{plan}` or the plan itself.
    pub async fn create_pipeline_preset(
        &self,
        caller: &Caller,
        body: serde_json::Value,
    ) -> Result<PipelinePresetResponse> {
        caller.require_write_library()?;
        let value = match body {
            serde_json::Value::Object(mut map) if map.contains_key("plan") => {
                map.remove("plan").unwrap_or(serde_json::Value::Null)
            }
            serde_json::Value::Object(map) => serde_json::Value::Object(map),
            _ => return Err(Error::invalid("BAD_BODY", "Send {plan} or the plan itself as a JSON object.")),
        };
        let plan = self.preset_plan(caller, value).await?;
        let at = now();
        let row = PipelinePresetRow {
            id: PresetId::generate(),
            org_id: caller.org_id.clone(),
            created_by: Some(caller.user_id.clone()),
            name: plan.name.clone(),
            plan: serde_json::to_string(&plan).map_err(Error::internal)?,
            sink_folder_id: plan.sink_folder_id.clone().map(FolderId::from),
            created_at: at,
            updated_at: at,
        };
        self.store.insert_pipeline_preset(row.clone()).await?;
        Ok(PipelinePresetResponse { preset: self.preset_view(&row) })
    }

    /// `PATCH /api/toolkit/pipelines/presets/{id}`: replace the plan.
    pub async fn update_pipeline_preset(
        &self,
        caller: &Caller,
        id: &str,
        plan: serde_json::Value,
    ) -> Result<PipelinePresetResponse> {
        caller.require_write_library()?;
        if self.store.pipeline_preset(&caller.org_id, &PresetId::from(id)).await?.is_none() {
            return Err(preset_not_found("NOT_FOUND"));
        }
        let plan = self.preset_plan(caller, plan).await?;
        let text = serde_json::to_string(&plan).map_err(Error::internal)?;
        let row = self
            .store
            .update_pipeline_preset(
                &caller.org_id,
                &PresetId::from(id),
                &plan.name,
                &text,
                plan.sink_folder_id.clone().map(FolderId::from).as_ref(),
                now(),
            )
            .await?
            .ok_or_else(|| preset_not_found("NOT_FOUND"))?;
        Ok(PipelinePresetResponse { preset: self.preset_view(&row) })
    }

    /// `DELETE /api/toolkit/pipelines/presets/{id}`. Runs keep the plan they ran.
    pub async fn delete_pipeline_preset(&self, caller: &Caller, id: &PresetId) -> Result<PipelinePresetDeleted> {
        caller.require_write_library()?;
        if !self.store.delete_pipeline_preset(&caller.org_id, id).await? {
            return Err(preset_not_found("NOT_FOUND"));
        }
        Ok(PipelinePresetDeleted { id: id.to_string(), deleted: true })
    }
}

fn preset_not_found(code: &'static str) -> Error {
    Error::not_found(code, "No such pipeline preset in this house.")
}

/// The wire line of compiled steps.
fn line_of(plan: &Plan, steps: &[StepPlan], skipped: Vec<SkippedStep>, items: usize) -> CompiledLine {
    let nodes = plan
        .nodes
        .iter()
        .map(|n| {
            let mine: Vec<&StepPlan> = steps.iter().filter(|s| s.node == n.id).collect();
            let quality = n.quality.unwrap_or(DEFAULT_QUALITY);
            NodeLine {
                node: n.id.clone(),
                tool: n.tool.clone(),
                quality,
                tokens_each: mine.first().map_or(0, |s| s.tokens),
                frames: mine.len() as i64,
                tokens: mine.iter().map(|s| s.tokens).sum(),
            }
        })
        .collect();
    CompiledLine {
        name: plan.name.clone(),
        plan_id: plan.id.clone(),
        items: items as i64,
        frames: steps.len() as i64,
        frames_skipped: skipped.len() as i64,
        tokens: steps.iter().map(|s| s.tokens).sum(),
        nodes,
        steps: steps.iter().map(wire_step).collect(),
        skipped,
    }
}

fn wire_step(s: &StepPlan) -> CompiledStep {
    CompiledStep {
        index: s.index as i64,
        item: s.item as i64,
        node: s.node.clone(),
        tool: s.tool.clone(),
        quality: s.quality,
        tokens: s.tokens,
        inputs: s.inputs.iter().map(|(role, src)| (role.clone(), wire_source(src))).collect(),
        after: s.after.iter().map(|&a| a as i64).collect(),
        sink_folder_id: s.sink.clone(),
    }
}

pub(crate) fn wire_source(src: &Source) -> StepSource {
    match src {
        Source::Asset { asset_id, .. } => StepSource { asset_id: Some(asset_id.clone()), step: None },
        Source::Step(i) => StepSource { asset_id: None, step: Some(*i as i64) },
    }
}
