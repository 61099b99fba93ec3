//! `studio jobs`: the house's develop jobs (spec §2.4, §2.5, §4.3, §6): list, show, watch the
//! live changes, cancel a queued one, develop one again.

use std::io::Write;

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{CancelReason, CancelResponse, DevelopStatus, Job, JobList, JobStatus, SocketMessage};

use super::{Context, columns, count};

/// A full page of `GET /api/toolkit/jobs?since=`: a shorter one is the last.
const PAGE: usize = 1000;

/// List, show, watch, cancel and duplicate develop jobs.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `jobs` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List the house's jobs in the order they last changed: id, tool, status, submit time,
    /// result or error.
    #[command(alias = "list")]
    Ls(Ls),
    /// Show one job: status, tokens held and settled, result or error.
    Show(Show),
    /// Follow job changes live, one line each, until Ctrl-C (reconnects and catches up by itself).
    Watch(Watch),
    /// Cancel a queued job and release its tokens (a rendering job finishes and costs).
    Cancel(Cancel),
    /// Develop a job again with the same inputs and options, holding its price afresh.
    Duplicate(Duplicate),
}

/// `studio jobs ls`.
#[derive(clap::Args)]
struct Ls {
    /// Only the jobs that changed after this cursor (an eventSeq; 0: every job).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
    since: i64,
    /// Print {"jobs": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio jobs show`.
#[derive(clap::Args)]
struct Show {
    /// The job's id.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's develop status as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio jobs watch`.
#[derive(clap::Args)]
struct Watch {
    /// Start after this cursor (an eventSeq); 0 first replays every job's latest state.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..))]
    since: i64,
    /// Print each change as one JSON job object per line.
    #[arg(long)]
    json: bool,
}

/// `studio jobs cancel`.
#[derive(clap::Args)]
struct Cancel {
    /// The job's id.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's {"id", "cancelled", "state", "tokensReleased", "reason"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio jobs duplicate`.
#[derive(clap::Args)]
struct Duplicate {
    /// The job to develop again.
    #[arg(value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Duplicating again with the same key returns the same new job and holds nothing more.
    #[arg(long, value_name = "KEY", value_parser = NonEmptyStringValueParser::new())]
    idempotency_key: Option<String>,
    /// Print the server's {"jobId", "status", "cost"} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `jobs` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => ls(ctx, a).await,
        Command::Show(a) => show(ctx, a).await,
        Command::Watch(a) => watch(ctx, a).await,
        Command::Cancel(a) => cancel(ctx, a).await,
        Command::Duplicate(a) => duplicate(ctx, a).await,
    }
}

/// Every job changed after the cursor, page after page, as a table or JSON.
async fn ls(ctx: &Context, args: Ls) -> Result<()> {
    let client = ctx.keyed_client()?;
    let mut jobs: Vec<Job> = Vec::new();
    let mut cursor = args.since;
    loop {
        let page = client.jobs_since(cursor).await?.jobs;
        let full = page.len() >= PAGE;
        let next = page.iter().map(|j| j.event_seq).max().unwrap_or(cursor);
        jobs.extend(page);
        // A page that does not move the cursor would be asked for again and again.
        if !full || next <= cursor {
            break;
        }
        cursor = next;
    }
    if args.json {
        println!("{}", serde_json::to_string(&JobList { jobs })?);
    } else if jobs.is_empty() {
        println!(
            "{}",
            if args.since > 0 { format!("No job changed after {}.", args.since) } else { "No jobs.".into() }
        );
    } else {
        print!("{}", table(&jobs));
    }
    Ok(())
}

/// One job's status.
async fn show(ctx: &Context, args: Show) -> Result<()> {
    let status = ctx.keyed_client()?.job(&args.id).await?;
    if args.json {
        println!("{}", serde_json::to_string(&status)?);
    } else {
        print!("{}", details(&status));
    }
    Ok(())
}

/// Print every job change from the cursor on until Ctrl-C; the stream reconnects and
/// backfills by itself, and fails only when the key is refused.
async fn watch(ctx: &Context, args: Watch) -> Result<()> {
    let client = ctx.keyed_client()?;
    let mut events = client.events(args.since);
    if !args.json {
        eprintln!("Watching the house's jobs after seq {} (Ctrl-C to stop) ...", args.since);
    }
    let mut reconnects = 0;
    let stopped = tokio::signal::ctrl_c();
    tokio::pin!(stopped);
    loop {
        let message = tokio::select! {
            message = events.next() => message?,
            _ = &mut stopped => break,
        };
        if events.reconnects() > reconnects {
            reconnects = events.reconnects();
            if !args.json {
                eprintln!("note: the event socket reconnected; missed changes are caught up");
            }
        }
        let SocketMessage::Job { job } = message else { continue };
        let line = if args.json { serde_json::to_string(&job)? } else { change_line(&job) };
        let mut out = std::io::stdout().lock();
        // A closed pipe (`| head`) ends the watch quietly.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    if !args.json {
        eprintln!("Stopped; resume with `studio jobs watch --since {}`", events.cursor());
    }
    events.close().await;
    Ok(())
}

/// Cancel; a job that is rendering or has ended is no error: the reason is printed.
async fn cancel(ctx: &Context, args: Cancel) -> Result<()> {
    let answer = ctx.keyed_client()?.cancel_job(&args.id).await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!("{}", cancel_line(&answer));
    }
    Ok(())
}

/// Queue the same develop again.
async fn duplicate(ctx: &Context, args: Duplicate) -> Result<()> {
    let answer = ctx.keyed_client()?.duplicate_job(&args.id, args.idempotency_key.as_deref()).await?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else {
        println!(
            "job {} {} (again from {}), {} held",
            answer.job_id,
            answer.status.as_str(),
            args.id,
            count(answer.cost, "token")
        );
    }
    Ok(())
}

/// What a cancel did, in a sentence.
fn cancel_line(a: &CancelResponse) -> String {
    if a.cancelled {
        return format!("Cancelled job {}; {} released", a.id, count(a.tokens_released, "token"));
    }
    match a.reason {
        Some(CancelReason::AlreadyRendering) => {
            format!("Not cancelled: job {} is already rendering (ALREADY_RENDERING); it finishes and still costs", a.id)
        }
        Some(CancelReason::AlreadySettled) => {
            format!("Not cancelled: job {} had already ended, {} (ALREADY_SETTLED)", a.id, a.state.as_str())
        }
        None => format!("Not cancelled: job {} is {}", a.id, a.state.as_str()),
    }
}

/// The result asset of a done job, the error of a failed one, else `-`.
fn outcome(status: JobStatus, result: Option<&str>, error: Option<&str>) -> String {
    match status {
        JobStatus::Done => result.unwrap_or("-").to_string(),
        JobStatus::Failed => error.unwrap_or("-").to_string(),
        _ => "-".into(),
    }
}

/// `   12  job_…  upscale  done  ast_…`: one change as `watch` prints it.
fn change_line(j: &Job) -> String {
    let tail = outcome(j.status, j.result_asset_id.as_deref(), j.error.as_deref());
    let tail = if tail == "-" { String::new() } else { format!("  {tail}") };
    format!("{:>6}  {}  {}  {}{tail}", j.event_seq, j.id, j.tool, j.status.as_str())
}

/// The listing as aligned columns.
fn table(jobs: &[Job]) -> String {
    let rows: Vec<Vec<String>> = jobs
        .iter()
        .map(|j| {
            vec![
                j.event_seq.to_string(),
                j.id.clone(),
                j.tool.clone(),
                j.status.as_str().into(),
                j.created_at.format("%Y-%m-%d %H:%M").to_string(),
                outcome(j.status, j.result_asset_id.as_deref(), j.error.as_deref()),
            ]
        })
        .collect();
    columns(&["SEQ", "ID", "TOOL", "STATUS", "SUBMITTED (UTC)", "RESULT / ERROR"], &rows)
}

/// One job, a field a line.
fn details(s: &DevelopStatus) -> String {
    let mut out = format!("{}  {}  {}\n", s.job_id, s.tool, s.status.as_str());
    out += &format!("  held        {}\n", count(s.tokens_estimated, "token"));
    match s.tokens_settled {
        Some(n) => out += &format!("  settled     {}\n", count(n, "token")),
        None => out += "  settled     - (not yet)\n",
    }
    if let Some(id) = &s.result_asset_id {
        out += &format!("  result      {id}\n");
    }
    if let Some(url) = &s.result_url {
        out += &format!("  file        {url}\n");
    }
    if let Some(error) = &s.error {
        out += &format!("  error       {error}\n");
    }
    out += &format!("  submitted   {}\n", s.created_at.to_rfc3339());
    if let Some(at) = s.finished_at {
        out += &format!("  finished    {}\n", at.to_rfc3339());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(seq: i64, status: JobStatus) -> Job {
        Job {
            id: format!("job_{seq}"),
            tool: "upscale".into(),
            status,
            result_url: None,
            result_asset_id: (status == JobStatus::Done).then(|| "ast_9".into()),
            error: (status == JobStatus::Failed).then(|| "the frame could not be read".into()),
            brand_id: None,
            created_at: "2025-01-02T03:04:05Z".parse().unwrap(),
            event_seq: seq,
        }
    }

    #[test]
    fn table_and_lines() {
        let text = table(&[job(7, JobStatus::Done), job(12, JobStatus::Failed), job(13, JobStatus::Queued)]);
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines[0], "SEQ  ID      TOOL     STATUS  SUBMITTED (UTC)   RESULT / ERROR");
        assert_eq!(lines[1], "7    job_7   upscale  done    2025-01-02 03:04  ast_9");
        assert_eq!(lines[2], "12   job_12  upscale  failed  2025-01-02 03:04  the frame could not be read");
        assert_eq!(lines[3], "13   job_13  upscale  queued  2025-01-02 03:04  -");
        assert_eq!(change_line(&job(7, JobStatus::Done)), "     7  job_7  upscale  done  ast_9");
        assert_eq!(change_line(&job(8, JobStatus::Running)), "     8  job_8  upscale  running");
    }

    #[test]
    fn cancel_says_why_nothing_changed() {
        let mut a = CancelResponse {
            id: "job_1".into(),
            cancelled: true,
            state: JobStatus::Cancelled,
            tokens_released: 13,
            reason: None,
        };
        assert_eq!(cancel_line(&a), "Cancelled job job_1; 13 tokens released");
        a = CancelResponse {
            cancelled: false,
            state: JobStatus::Done,
            tokens_released: 0,
            reason: Some(CancelReason::AlreadySettled),
            ..a
        };
        assert_eq!(cancel_line(&a), "Not cancelled: job job_1 had already ended, done (ALREADY_SETTLED)");
        a.reason = Some(CancelReason::AlreadyRendering);
        assert!(cancel_line(&a).contains("finishes and still costs"));
    }
}
