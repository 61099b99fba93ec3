//! `studio runs`: develop runs (spec §2.6, §4.3), the frames grouped by runId, lookbook batch or
//! same tool close in time: list them, cancel the queued frames of one.

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{DevelopRun, RunCancelResponse};

use super::{Context, columns, count};

/// List develop runs and cancel their queued frames.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `runs` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List runs, newest first: id, kind, tool, state, frame counts, the cost of again.
    #[command(alias = "list")]
    Ls(Ls),
    /// Cancel every queued frame of a run and release their tokens (rendering frames finish
    /// and cost).
    Cancel(Cancel),
}

/// `studio runs ls`.
#[derive(clap::Args)]
struct Ls {
    /// Only runs with a frame still queued or rendering (their counts stay whole).
    #[arg(long)]
    active: bool,
    /// At most N runs, 1 to 100 [default: the server's, 20].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    limit: Option<u32>,
    /// Print the server's {"runs": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio runs cancel`.
#[derive(clap::Args)]
struct Cancel {
    /// The run's id (`run.…` or `look.….STAGE`, from `studio runs ls`).
    #[arg(value_name = "RUN_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's {"id", "cancelled", "cancelledJobIds", "stillRendering",
    /// "tokensReleased", "run"} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `runs` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => ls(ctx, a).await,
        Command::Cancel(a) => cancel(ctx, a).await,
    }
}

/// The runs as a table or JSON.
async fn ls(ctx: &Context, args: Ls) -> Result<()> {
    let list = ctx.keyed_client()?.list_runs(args.active, args.limit).await?;
    if args.json {
        println!("{}", serde_json::to_string(&list)?);
    } else if list.runs.is_empty() {
        println!("{}", if args.active { "No active runs." } else { "No runs." });
    } else {
        print!("{}", table(&list.runs));
    }
    Ok(())
}

/// Cancel the run's queued frames; nothing to cancel is no error.
async fn cancel(ctx: &Context, args: Cancel) -> Result<()> {
    let answer = ctx.keyed_client()?.cancel_run(&args.id).await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        print!("{}", cancel_text(&answer));
    }
    Ok(())
}

/// What a run cancel did.
fn cancel_text(a: &RunCancelResponse) -> String {
    let out = if a.cancelled {
        format!(
            "Cancelled {} of run {}; {} released\n",
            count(a.cancelled_job_ids.len(), "queued frame"),
            a.id,
            count(a.tokens_released, "token")
        )
    } else {
        format!("Nothing to cancel in run {}: no frame is queued (run {})\n", a.id, a.run.state)
    };
    out + &still_rendering(&a.still_rendering)
}

/// The line a cancel prints for frames it could not stop (empty when there are none).
pub(super) fn still_rendering(ids: &[String]) -> String {
    if ids.is_empty() {
        return String::new();
    }
    format!("{} still rendering: {} (they finish and cost)\n", count(ids.len(), "frame"), ids.join(", "))
}

/// `3/5 done, 1 failed, 1 active`: the counts that are not zero.
fn frames(r: &DevelopRun) -> String {
    let c = &r.counts;
    let mut parts = vec![format!("{}/{} done", c.done, c.total)];
    for (n, what) in [(c.failed, "failed"), (c.cancelled, "cancelled"), (c.active, "active")] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    parts.join(", ")
}

/// The listing as aligned columns.
fn table(runs: &[DevelopRun]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.kind.clone(),
                r.tool.clone(),
                r.state.clone(),
                frames(r),
                r.again_cost.to_string(),
                r.created_at.format("%Y-%m-%d %H:%M").to_string(),
                r.title.clone(),
            ]
        })
        .collect();
    columns(&["ID", "KIND", "TOOL", "STATE", "FRAMES", "AGAIN", "STARTED (UTC)", "TITLE"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use studio_client::api::RunCounts;

    fn run(active: i64) -> DevelopRun {
        DevelopRun {
            id: "run.ss25".into(),
            kind: "run".into(),
            tool: "upscale".into(),
            title: "Upscale x3".into(),
            stage: None,
            look_id: None,
            state: if active > 0 { "rendering".into() } else { "done".into() },
            counts: RunCounts { total: 3, done: 3 - active, failed: 0, cancelled: 0, active },
            created_at: "2025-01-02T03:04:05Z".parse().unwrap(),
            finished_at: None,
            thumb_asset_id: None,
            job_ids: vec!["job_1".into(), "job_2".into(), "job_3".into()],
            again_cost: 27,
        }
    }

    #[test]
    fn table_counts_frames() {
        let text = table(&[run(1)]);
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines[0], "ID        KIND  TOOL     STATE      FRAMES              AGAIN  STARTED (UTC)     TITLE");
        assert_eq!(
            lines[1],
            "run.ss25  run   upscale  rendering  2/3 done, 1 active  27     2025-01-02 03:04  Upscale x3"
        );
    }

    #[test]
    fn cancel_names_what_still_renders() {
        let a = RunCancelResponse {
            id: "run.ss25".into(),
            cancelled: true,
            cancelled_job_ids: vec!["job_2".into(), "job_3".into()],
            still_rendering: vec!["job_1".into()],
            tokens_released: 18,
            run: run(1),
        };
        assert_eq!(
            cancel_text(&a),
            "Cancelled 2 queued frames of run run.ss25; 18 tokens released\n1 frame still rendering: job_1 (they finish and cost)\n"
        );
    }
}
