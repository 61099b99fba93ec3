//! `studio pipeline`: plans of develop steps run over items (spec §2.7, §4.6). `preview` prices
//! a plan file over the items and holds nothing; `run` holds every frame of the line at once and
//! starts it (`--wait` follows it to its end: a run that does not end `done` exits 1); `ls`,
//! `show` and `cancel` follow runs; `presets ls|save|rm` keeps plans in the house.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use clap::builder::NonEmptyStringValueParser;
use indicatif::ProgressBar;
use studio_client::Client;
use studio_client::api::{
    PipelineCancelResponse, PipelinePreset, PipelinePreview, PipelineRun, PipelineRunDetail, PipelineRunRequest,
    PipelineRunStarted, Plan, PlanItem, StepCounts,
};

use super::develop::{POLL_RETRIES, WAIT_AT_MOST};
use super::upload::progress;
use super::{Context, Interrupted, Usage, columns, count, print};

/// The pause between polls of a run under `--wait`.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// Price a plan over items, run it, and follow its runs.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `pipeline` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// Compile a plan over items and price every frame; holds nothing.
    Preview(Preview),
    /// Start a run: every frame of the line is held at once, then developed as its inputs land.
    Run(Start),
    /// The house's pipeline runs, newest first (50).
    #[command(alias = "list")]
    Ls(Json),
    /// A run and every step of it.
    Show(RunId),
    /// Cancel a run: nothing more is queued, waiting and queued frames are released; frames
    /// rendering finish and cost.
    Cancel(RunId),
    /// The house's saved plans: list, save a plan file, remove.
    Presets(Presets),
}

/// `studio pipeline presets`.
#[derive(clap::Args)]
struct Presets {
    #[command(subcommand)]
    command: PresetCommand,
}

/// The `pipeline presets` subcommands.
#[derive(clap::Subcommand)]
enum PresetCommand {
    /// The house's presets, newest first (100).
    #[command(alias = "list")]
    Ls(Json),
    /// Save a plan file as a preset; prints its id (`ppr_…`), which `run --preset` takes.
    Save {
        /// The plan: a `.toml` file is read as TOML, any other as JSON.
        #[arg(long, value_name = "FILE")]
        plan: PathBuf,
        /// Print the server's {"preset"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete a preset (runs keep the plan they ran).
    Rm {
        /// The preset's id.
        #[arg(value_name = "PRESET_ID", value_parser = NonEmptyStringValueParser::new())]
        id: String,
        /// Print the server's {"id", "deleted"} as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Only `--json`.
#[derive(clap::Args)]
struct Json {
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// A run id and `--json`.
#[derive(clap::Args)]
struct RunId {
    /// The run's id (`run_…`, or its develop id `run.…`), from `studio pipeline ls`.
    #[arg(value_name = "RUN_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// The items a plan runs over: a file's, then the `--item` ones.
#[derive(clap::Args)]
struct Items {
    /// A JSON array of items, each an object of key to asset id: `[{"image": "ast_…"}]`.
    #[arg(long = "items", value_name = "FILE")]
    file: Option<PathBuf>,
    /// One item as KEY=ASSET_ID pairs, comma-separated (`image=ast_1,model=ast_2`); repeat for
    /// more items. They follow those of --items.
    #[arg(long = "item", value_name = "KEY=ASSET_ID,...", value_parser = parse_item)]
    items: Vec<PlanItem>,
}

/// `studio pipeline preview`.
#[derive(clap::Args)]
struct Preview {
    /// The plan {name, sinkFolderId?, nodes[]}: a `.toml` file is read as TOML, any other as JSON.
    #[arg(long, value_name = "FILE", required_unless_present = "preset", conflicts_with = "preset")]
    plan: Option<PathBuf>,
    /// Price a saved preset of the house (`ppr_…`) instead of a plan file.
    #[arg(long, value_name = "PRESET_ID", value_parser = NonEmptyStringValueParser::new())]
    preset: Option<String>,
    #[command(flatten)]
    items: Items,
    /// Print the server's {"compiled", "spendable", "affordable"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio pipeline run`.
#[derive(clap::Args)]
struct Start {
    /// The plan {name, sinkFolderId?, nodes[]}: a `.toml` file is read as TOML, any other as JSON.
    #[arg(long, value_name = "FILE", required_unless_present = "preset", conflicts_with = "preset")]
    plan: Option<PathBuf>,
    /// Run a saved preset of the house (`ppr_…`) instead of a plan file.
    #[arg(long, value_name = "PRESET_ID", value_parser = NonEmptyStringValueParser::new())]
    preset: Option<String>,
    #[command(flatten)]
    items: Items,
    /// The brand the frames are for.
    #[arg(long, value_name = "BRAND_ID", value_parser = NonEmptyStringValueParser::new())]
    brand: Option<String>,
    /// Starting again with the same key (same plan and items) answers the same run and holds
    /// nothing more.
    #[arg(long, value_name = "KEY", value_parser = NonEmptyStringValueParser::new())]
    idempotency_key: Option<String>,
    /// Follow the run until no step is active; Ctrl-C stops waiting, not the run.
    #[arg(long)]
    wait: bool,
    /// Print the server's {"runId", "developId", "started", "compiled", "replayed"} as JSON;
    /// with --wait, the run's final {"run", "steps", "plan"} instead.
    #[arg(long)]
    json: bool,
}

/// Run one `pipeline` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::Preview(a) => {
            let plan = match (&a.plan, &a.preset) {
                (Some(path), _) => read_plan(path)?,
                (None, Some(id)) => preset_plan(&client, id).await?,
                (None, None) => return Err(Usage("name a plan file (--plan) or a preset (--preset)".into()).into()),
            };
            let preview = client.preview_pipeline(&plan, &read_items(&a.items)?).await?;
            print(a.json, &preview, render_preview)?;
        }
        Command::Run(a) => start(&client, a).await?,
        Command::Ls(a) => {
            let list = client.pipeline_runs().await?;
            if a.json {
                println!("{}", serde_json::to_string(&list)?);
            } else if list.runs.is_empty() {
                println!("No pipeline runs.");
            } else {
                print!("{}", render_runs(&list.runs));
            }
        }
        Command::Show(a) => {
            print(a.json, &client.pipeline_run(&a.id).await?, render_detail)?;
        }
        Command::Cancel(a) => {
            print(a.json, &client.cancel_pipeline_run(&a.id).await?, render_cancel)?;
        }
        Command::Presets(p) => presets(&client, p.command).await?,
    }
    Ok(())
}

/// `studio pipeline presets ls|save|rm`.
async fn presets(client: &Client, command: PresetCommand) -> Result<()> {
    match command {
        PresetCommand::Ls(a) => {
            let list = client.pipeline_presets().await?;
            if a.json {
                println!("{}", serde_json::to_string(&list)?);
            } else if list.presets.is_empty() {
                println!("No pipeline presets.");
            } else {
                print!("{}", render_presets(&list.presets));
            }
        }
        PresetCommand::Save { plan, json } => {
            let saved = client.create_pipeline_preset(&read_plan(&plan)?).await?;
            if json {
                println!("{}", serde_json::to_string(&saved)?);
            } else {
                let p = &saved.preset;
                println!("{}", p.id);
                eprintln!(
                    "Saved \"{}\" ({}); run it with `studio pipeline run --preset {}`.",
                    p.name,
                    count(p.nodes.len(), "node"),
                    p.id
                );
            }
        }
        PresetCommand::Rm { id, json } => {
            let gone = client.delete_pipeline_preset(&id).await?;
            if json {
                println!("{}", serde_json::to_string(&gone)?);
            } else {
                println!("Deleted preset {}.", gone.id);
            }
        }
    }
    Ok(())
}

/// A saved preset as a plan (for a preview, which prices a plan).
async fn preset_plan(client: &Client, id: &str) -> Result<Plan> {
    let presets = client.pipeline_presets().await?.presets;
    let Some(p) = presets.into_iter().find(|p| p.id == id) else {
        return Err(refused(404, "PRESET_NOT_FOUND", format!("No pipeline preset {id:?} in this house.")).into());
    };
    Ok(Plan { id: Some(p.id), name: p.name, sink_folder_id: p.sink_folder_id, nodes: p.nodes })
}

/// Presets as a table.
fn render_presets(presets: &[PipelinePreset]) -> String {
    let rows: Vec<Vec<String>> = presets
        .iter()
        .map(|p| {
            let nodes: Vec<String> = p.nodes.iter().map(|n| format!("{}:{}", n.id, n.tool)).collect();
            vec![p.id.clone(), p.name.clone(), nodes.join(" → "), p.updated_at.format("%Y-%m-%d %H:%M").to_string()]
        })
        .collect();
    columns(&["ID", "NAME", "NODES", "UPDATED"], &rows)
}

/// Start the run and say so at once; with `--wait`, follow it to its end.
async fn start(client: &Client, a: Start) -> Result<()> {
    let plan = a.plan.as_deref().map(read_plan).transpose()?;
    let req = PipelineRunRequest {
        plan: plan.map(|p| serde_json::to_value(&p)).transpose()?,
        plan_id: a.preset,
        items: serde_json::to_value(read_items(&a.items)?)?,
        brand_id: a.brand,
        idempotency_key: a.idempotency_key,
    };
    let started = client.start_pipeline_run(req).await?;
    // Said before anything else can go wrong, so the run is never lost.
    if !a.json || a.wait {
        eprintln!("{}", started_line(&started));
    }
    if !a.wait {
        if a.json {
            println!("{}", serde_json::to_string(&started)?);
        } else {
            println!("{}", started.run_id);
        }
        return Ok(());
    }
    let bar = progress(started.compiled.frames.max(0) as u64, a.json);
    let detail = tokio::select! {
        detail = follow(client, &started.run_id, &bar) => {
            bar.finish_and_clear();
            detail?
        }
        _ = tokio::signal::ctrl_c() => {
            bar.finish_and_clear();
            let id = &started.run_id;
            eprintln!(
                "Stopped waiting; run {id} goes on (it is not cancelled).\nhint: follow it with \
                 `studio pipeline show {id}`; stop it with `studio pipeline cancel {id}`"
            );
            return Err(Interrupted.into());
        }
    };
    print(a.json, &detail, render_detail)?;
    match detail.run.status.as_str() {
        "done" => Ok(()),
        _ => Err(ended(&detail.run).into()),
    }
}

/// Poll the run about every second until it leaves `developing`, moving one bar over its
/// ended steps; transport blips are retried.
async fn follow(client: &Client, id: &str, bar: &ProgressBar) -> Result<PipelineRunDetail> {
    let deadline = tokio::time::Instant::now() + WAIT_AT_MOST;
    let mut failed_polls = 0;
    loop {
        match client.pipeline_run(id).await {
            Ok(detail) => {
                failed_polls = 0;
                let (run, s) = (&detail.run, &detail.run.steps);
                bar.set_length(s.total.max(0) as u64);
                bar.set_position((s.done + s.failed + s.cancelled).max(0) as u64);
                bar.set_message(format!("{} {}: {}", run.id, run.status, steps_text(s)));
                if run.status != "developing" {
                    return Ok(detail);
                }
                if tokio::time::Instant::now() >= deadline {
                    bail!(
                        "run {id} was still developing after {} minutes; stopped waiting (it goes on: \
                         `studio pipeline show {id}`)",
                        WAIT_AT_MOST.as_secs() / 60
                    );
                }
            }
            Err(studio_client::Error::Transport(_)) if failed_polls < POLL_RETRIES => failed_polls += 1,
            Err(e) => return Err(e.into()),
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// A refusal made on this side, reported by `main` like the server's: `error: CODE: message`,
/// then the code's hint; exit 1.
fn refused(status: u16, code: &str, message: String) -> studio_client::Error {
    studio_client::Error::Api { status, code: code.into(), message, extra: serde_json::Map::new() }
}

/// A run that ended without every frame landed: exit 1, like a failed develop.
fn ended(run: &PipelineRun) -> studio_client::Error {
    let code = match run.status.as_str() {
        "failed" => "PIPELINE_FAILED",
        "cancelled" => "PIPELINE_CANCELLED",
        _ => "PIPELINE_SETTLED",
    };
    let message = format!(
        "run {} ended {}: {}; {} spent of {} planned",
        run.id,
        run.status,
        steps_text(&run.steps),
        count(run.tokens_spent, "token"),
        run.tokens_planned
    );
    refused(409, code, message)
}

/// The plan in `path`: TOML for a `.toml` file, else JSON; one that does not read is `BAD_PLAN`.
fn read_plan(path: &Path) -> Result<Plan> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let toml = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let plan = if toml {
        toml::from_str(&text).map_err(|e| e.to_string())
    } else {
        serde_json::from_str(&text).map_err(|e| e.to_string())
    };
    Ok(plan.map_err(|e| refused(400, "BAD_PLAN", format!("{} is not a plan: {}", path.display(), e.trim_end())))?)
}

/// The items of `--items FILE`, then those of `--item`; none at all is a usage error.
fn read_items(items: &Items) -> Result<Vec<PlanItem>> {
    let mut all: Vec<PlanItem> = match &items.file {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| {
                let why = format!("{} is not a JSON array of objects of key to asset id: {e}", path.display());
                refused(400, "BAD_ITEMS", why)
            })?
        }
        None => Vec::new(),
    };
    all.extend(items.items.iter().cloned());
    if all.is_empty() {
        return Err(
            Usage("no items: give --items FILE (a JSON array of objects) or --item KEY=ASSET_ID,...".into()).into()
        );
    }
    Ok(all)
}

/// `--item image=ast_1,model=ast_2`: one item.
fn parse_item(raw: &str) -> Result<PlanItem, String> {
    let mut item = PlanItem::new();
    for pair in raw.split(',') {
        let (key, id) = pair
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| format!("expected KEY=ASSET_ID pairs, comma-separated, not `{raw}`"))?;
        if item.insert(key.to_string(), id.to_string()).is_some() {
            return Err(format!("`{key}` is named twice in `{raw}`"));
        }
    }
    Ok(item)
}

/// `2/3 done, 1 failed`: the ended and active counts that are not zero.
fn steps_text(s: &StepCounts) -> String {
    let mut parts = vec![format!("{}/{} done", s.done, s.total)];
    for (n, what) in [(s.failed, "failed"), (s.cancelled, "cancelled"), (s.active, "active")] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    parts.join(", ")
}

/// `run run_… started: 2 frames held (12 tokens), 1 queued now`.
fn started_line(s: &PipelineRunStarted) -> String {
    let c = &s.compiled;
    let mut line = format!(
        "run {} started: {} held ({}), {} queued now",
        s.run_id,
        count(c.frames, "frame"),
        count(c.tokens, "token"),
        s.started
    );
    if c.frames_skipped > 0 {
        line += &format!(", {} skipped", count(c.frames_skipped, "frame"));
    }
    if s.replayed {
        line += " (the idempotency key was used before: same run, nothing new held)";
    }
    line
}

/// The line per node, what was left out, and the total against the balance.
fn render_preview(p: &PipelinePreview) -> String {
    let c = &p.compiled;
    let rows: Vec<Vec<String>> = c
        .nodes
        .iter()
        .map(|n| {
            let q = n.quality.as_str().to_string();
            vec![
                n.node.clone(),
                n.tool.clone(),
                q,
                n.frames.to_string(),
                n.tokens_each.to_string(),
                n.tokens.to_string(),
            ]
        })
        .collect();
    let mut out = format!("Plan \"{}\" over {}:\n", c.name, count(c.items, "item"));
    out += &columns(&["NODE", "TOOL", "QUALITY", "FRAMES", "EACH", "TOKENS"], &rows);
    for s in &c.skipped {
        out += &format!("Skipped: item {}, node {}: {}\n", s.item, s.node, s.reason);
    }
    let short = if p.affordable { String::new() } else { format!(" ({} short)", c.tokens - p.spendable) };
    out += &format!(
        "Total: {} = {}; {} spendable now{short}.\n",
        count(c.frames, "frame"),
        count(c.tokens, "token"),
        p.spendable
    );
    out += "Nothing was held; `studio pipeline run` with the same plan and items starts it.\n";
    out
}

/// The runs as a table.
fn render_runs(runs: &[PipelineRun]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.name.chars().take(40).collect(),
                r.status.clone(),
                format!("{}/{}", r.steps.done, r.steps.total),
                format!("{}/{}", r.tokens_spent, r.tokens_planned),
                r.created_at.format("%Y-%m-%d %H:%M").to_string(),
            ]
        })
        .collect();
    columns(&["ID", "NAME", "STATUS", "DONE", "TOKENS", "CREATED"], &rows)
}

/// The run, its steps as a table, then why any step failed or was cancelled.
fn render_detail(d: &PipelineRunDetail) -> String {
    let r = &d.run;
    let mut out = format!("{} \"{}\" {}: {}\n", r.id, r.name, r.status, steps_text(&r.steps));
    out += &format!("  tokens  {} spent of {} planned, {} held\n", r.tokens_spent, r.tokens_planned, r.tokens_held);
    if r.frames_skipped > 0 {
        out += &format!("  skipped {} (an item without the input)\n", count(r.frames_skipped, "frame"));
    }
    if r.cancel_requested && r.status == "developing" {
        out += "  cancel asked: nothing more is queued\n";
    }
    let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let rows: Vec<Vec<String>> = d
        .steps
        .iter()
        .map(|s| {
            let tokens = match s.tokens_settled {
                Some(settled) => settled.to_string(),
                None => format!("{} held", s.tokens),
            };
            vec![
                s.index.to_string(),
                s.item.to_string(),
                s.node.clone(),
                s.tool.clone(),
                s.status.clone(),
                tokens,
                dash(&s.job_id),
                dash(&s.result_asset_id),
            ]
        })
        .collect();
    out += &columns(&["#", "ITEM", "NODE", "TOOL", "STATUS", "TOKENS", "JOB", "RESULT"], &rows);
    for s in d.steps.iter().filter(|s| s.error.is_some()) {
        out += &format!("step {} ({} of item {}) {}: {}\n", s.index, s.node, s.item, s.status, dash(&s.error));
    }
    out
}

/// What a cancel did.
fn render_cancel(a: &PipelineCancelResponse) -> String {
    let out = if a.cancelled {
        format!(
            "Cancelled {} and {} of run {}; {} released\n",
            count(a.cancelled_job_ids.len(), "queued frame"),
            count(a.cancelled_step_ids.len(), "waiting step"),
            a.id,
            count(a.tokens_released, "token")
        )
    } else {
        format!("Nothing to cancel in run {}: no step is waiting or queued (run {})\n", a.id, a.run.status)
    };
    out + &super::runs::still_rendering(&a.still_rendering)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_is_comma_separated_pairs() {
        let item = parse_item("image=ast_1, model = ast_2").unwrap();
        assert_eq!(item.get("image").map(String::as_str), Some("ast_1"));
        assert_eq!(item.get("model").map(String::as_str), Some("ast_2"));
        assert!(parse_item("image").is_err());
        assert!(parse_item("image=").is_err());
        assert!(parse_item("image=a,image=b").unwrap_err().contains("named twice"));
    }

    #[test]
    fn a_plan_reads_the_same_from_toml_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let toml = dir.path().join("plan.TOML");
        std::fs::write(
            &toml,
            "name = \"Cut, then big\"\n\n[[nodes]]\nid = \"cut\"\ntool = \"packshot\"\ninputs.image.item = \"image\"\n\n\
             [[nodes]]\nid = \"big\"\ntool = \"upscale\"\nquality = \"1k\"\ninputs.image.node = \"cut\"\n",
        )
        .unwrap();
        let json = dir.path().join("plan.json");
        let from_toml = read_plan(&toml).unwrap();
        std::fs::write(&json, serde_json::to_string(&from_toml).unwrap()).unwrap();
        assert_eq!(read_plan(&json).unwrap(), from_toml);
        assert_eq!(from_toml.nodes[1].inputs["image"].node.as_deref(), Some("cut"));

        std::fs::write(&json, "{\"name\": \"x\", \"nodes\": [], \"extra\": 1}").unwrap();
        let err = read_plan(&json).unwrap_err();
        let api = err.downcast_ref::<studio_client::Error>().expect("a refusal");
        assert_eq!(api.code(), Some("BAD_PLAN"));
    }
}
