//! `studio looks`: the lookbook from the terminal (§4.4): list, create from selections, show,
//! develop the base frame, lock and unlock, and develop variations. `develop` and `variations`
//! print the job ids at once; `--wait` follows every frame to its end (a failed frame exits 1,
//! nothing charged for it).

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::Client;
use studio_client::api::{
    CreateLookRequest, DevelopLockRequest, DevelopStatus, JobStatus, Look, OutputPlan, OutputRequest, VariationsRequest,
};

use super::develop::{done_line, ended, follow};
use super::{Context, Usage, columns, count};

/// List, create, show, develop, lock and unlock looks, and develop their variations.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `looks` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// The house's looks, newest first (50).
    #[command(alias = "list")]
    Ls(Json),
    /// Create a draft look from selections (nothing develops, nothing is charged).
    New(New),
    /// A look with its develop-lock and variation frames.
    Show(Show),
    /// Develop a draft look's base frame (the whole cost is held first).
    Develop(Develop),
    /// Lock the look on one of its landed frames.
    Lock(Lock),
    /// Put a locked look back to draft (its base fields stay).
    Unlock(Show),
    /// Develop variation frames of a locked look: one frame per key, all held or none.
    Variations(Variations),
}

/// Only `--json`.
#[derive(clap::Args)]
struct Json {
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio looks new`.
#[derive(clap::Args)]
struct New {
    /// The look's name.
    #[arg(long, value_parser = NonEmptyStringValueParser::new())]
    name: String,
    /// The model's asset id.
    #[arg(long, value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    model: String,
    /// A piece: ROLE=ASSET_ID (top, bottom, dress, outerwear, shoes, bag, accessory, jewelry); repeat.
    #[arg(long = "item", value_name = "ROLE=ASSET_ID", required = true, value_parser = parse_item)]
    items: Vec<(String, String)>,
    /// A ground preset (white, bone, dove, charcoal, black) or asset:ASSET_ID.
    #[arg(long, value_name = "PRESET|asset:ASSET_ID", default_value = "white")]
    background: String,
    /// The composer's preset: editorial, minimal, classic, street, romantic or noir.
    #[arg(long, default_value = "minimal")]
    aesthetic: String,
    /// The brand the look is for.
    #[arg(long, value_name = "BRAND_ID")]
    brand: Option<String>,
    /// Print the created look as JSON.
    #[arg(long)]
    json: bool,
}

/// A look id and `--json`.
#[derive(clap::Args)]
struct Show {
    /// The look's id.
    #[arg(value_name = "LOOK_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// Quality, destination, key and waiting: what develop and variations share.
#[derive(clap::Args)]
struct Order {
    /// 1k, 2k or 4k (the standing preset's when absent).
    #[arg(long, value_parser = ["1k", "2k", "4k"])]
    quality: Option<String>,
    /// web-tile, story, square, banner, a4-print, a3-print or custom (with --width and --height).
    #[arg(long, value_name = "PLACE")]
    destination: Option<String>,
    /// Pixels wide (custom).
    #[arg(long)]
    width: Option<i64>,
    /// Pixels high (custom).
    #[arg(long)]
    height: Option<i64>,
    /// Replays answer the first request's jobs.
    #[arg(long, value_name = "KEY")]
    idempotency_key: Option<String>,
    /// File the frames in this collection when they land (an id from `studio folders ls`).
    #[arg(long, value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    folder: Option<String>,
    /// Follow every frame to its end.
    #[arg(long)]
    wait: bool,
    /// Print the server's answer (with --wait, each frame's final status) as JSON.
    #[arg(long)]
    json: bool,
}

impl Order {
    fn output(&self) -> Option<OutputRequest> {
        (self.destination.is_some() || self.width.is_some() || self.height.is_some()).then(|| OutputRequest {
            destination: self.destination.clone(),
            width: self.width,
            height: self.height,
        })
    }
}

/// `studio looks develop`.
#[derive(clap::Args)]
struct Develop {
    /// The look's id.
    #[arg(value_name = "LOOK_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    #[command(flatten)]
    order: Order,
    /// Once done, download the frame to FILE (a directory gets JOB_ID.jpg or .png inside it);
    /// implies --wait.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

/// `studio looks lock`.
#[derive(clap::Args)]
struct Lock {
    /// The look's id.
    #[arg(value_name = "LOOK_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// The landed frame to lock on (from `studio looks show`).
    #[arg(value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    asset: String,
    /// Print the look as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio looks variations`.
#[derive(clap::Args)]
struct Variations {
    /// The look's id.
    #[arg(value_name = "LOOK_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Variation keys: full-front, three-quarter, back, detail, walking, seated.
    #[arg(value_name = "KEY", required = true)]
    keys: Vec<String>,
    #[command(flatten)]
    order: Order,
}

fn parse_item(raw: &str) -> Result<(String, String), String> {
    let (role, id) = raw.split_once('=').ok_or_else(|| format!("expected ROLE=ASSET_ID, not `{raw}`"))?;
    if role.trim().is_empty() || id.trim().is_empty() {
        return Err(format!("expected ROLE=ASSET_ID, not `{raw}`"));
    }
    Ok((role.trim().to_string(), id.trim().to_string()))
}

fn background(raw: &str) -> serde_json::Value {
    match raw.strip_prefix("asset:") {
        Some(id) => serde_json::json!({"kind": "asset", "assetId": id}),
        None => serde_json::json!({"kind": "preset", "value": raw}),
    }
}

fn look_line(look: &Look) -> String {
    let status = serde_json::to_value(look.status).ok().and_then(|v| v.as_str().map(str::to_string));
    let base = look.look_base_asset_id.as_deref().map(|b| format!(", base {b}")).unwrap_or_default();
    format!("{} {} ({}{base})", look.id, look.name, status.unwrap_or_default())
}

fn plan_line(plan: &OutputPlan, frames: usize) -> String {
    let restoration = if plan.restoration_tokens > 0 {
        format!(", restoration pass {}", count(plan.restoration_tokens, "token"))
    } else {
        String::new()
    };
    format!(
        "{} {} × {} px: composed {} at {} × {} px (trim {} %){restoration}; {} per frame, {} held",
        plan.destination,
        plan.width,
        plan.height,
        plan.composed_aspect,
        plan.frame_width,
        plan.frame_height,
        plan.trim_percent,
        count(plan.tokens_per_frame, "token"),
        count(plan.tokens_per_frame * frames as i64, "token"),
    )
}

/// Follow each job to its end; a frame that failed or was cancelled makes the command fail.
async fn wait_all(client: &Client, ids: &[String], json: bool) -> Result<Vec<DevelopStatus>> {
    let spinner = indicatif::ProgressBar::hidden();
    let mut statuses: Vec<DevelopStatus> = Vec::with_capacity(ids.len());
    for id in ids {
        statuses.push(follow(client, id, &spinner, true).await?);
    }
    if json {
        println!("{}", serde_json::to_string(&statuses)?);
    }
    for s in &statuses {
        match s.status {
            JobStatus::Done if !json => println!("{}", done_line(s)),
            JobStatus::Done => {}
            JobStatus::Cancelled => return Err(ended(s, "JOB_CANCELLED", "was cancelled").into()),
            _ => return Err(ended(s, "JOB_FAILED", "failed").into()),
        }
    }
    Ok(statuses)
}

/// Run one `looks` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::Ls(a) => {
            let list = client.looks().await?;
            if a.json {
                println!("{}", serde_json::to_string(&list)?);
            } else if list.looks.is_empty() {
                println!("No looks.");
            } else {
                let rows: Vec<Vec<String>> = list
                    .looks
                    .iter()
                    .map(|l| {
                        let status = serde_json::to_value(l.status).ok().and_then(|v| v.as_str().map(str::to_string));
                        vec![
                            l.id.clone(),
                            status.unwrap_or_default(),
                            l.item_asset_ids.len().to_string(),
                            l.name.chars().take(60).collect(),
                        ]
                    })
                    .collect();
                print!("{}", columns(&["ID", "STATUS", "PIECES", "NAME"], &rows));
            }
        }
        Command::New(a) => {
            let items =
                a.items.iter().map(|(role, id)| serde_json::json!({"assetId": id, "role": role})).collect::<Vec<_>>();
            let req = CreateLookRequest {
                name: Some(a.name),
                model_asset_id: Some(a.model),
                item_asset_ids: Some(items),
                background: Some(background(&a.background)),
                aesthetic: Some(a.aesthetic),
                brand_id: a.brand,
            };
            let look = client.create_look(&req).await?.look;
            if a.json {
                println!("{}", serde_json::to_string(&look)?);
            } else {
                println!("{}", look.id);
            }
        }
        Command::Show(a) => {
            let detail = client.look(&a.id).await?;
            if a.json {
                println!("{}", serde_json::to_string(&detail)?);
                return Ok(());
            }
            println!("{}", look_line(&detail.look));
            for item in &detail.look.item_asset_ids {
                println!("  {:<10} {}", item.role, item.asset_id);
            }
            if let Some(lock) = &detail.lock_develop {
                let frame = lock.result_asset_id.as_deref().unwrap_or("-");
                println!("develop-lock {} {} frame {frame}", lock.id, lock.status);
            }
            let rows: Vec<Vec<String>> = detail
                .variations
                .iter()
                .map(|v| {
                    vec![
                        v.key.clone(),
                        v.job_id.clone(),
                        v.status.clone(),
                        v.asset_id.clone().unwrap_or_else(|| "-".into()),
                        if v.locked { "base".into() } else { String::new() },
                    ]
                })
                .collect();
            if !rows.is_empty() {
                print!("{}", columns(&["KEY", "JOB", "STATUS", "FRAME", ""], &rows));
            }
        }
        Command::Develop(a) => {
            let req = DevelopLockRequest {
                quality: a.order.quality.clone(),
                output: a.order.output(),
                idempotency_key: a.order.idempotency_key.clone(),
                folder_id: a.order.folder.clone(),
            };
            let r = client.develop_look(&a.id, &req).await?;
            eprintln!("{}", plan_line(&r.output, if r.replayed { 0 } else { 1 }));
            if a.order.wait || a.output.is_some() {
                eprintln!("job {} {}", r.job_id, r.status.as_str());
                let statuses = wait_all(&client, std::slice::from_ref(&r.job_id), a.order.json).await?;
                if let (Some(output), Some(done)) = (&a.output, statuses.first()) {
                    let frame = done
                        .result_asset_id
                        .as_deref()
                        .ok_or_else(|| anyhow::anyhow!("job {} is done but names no result asset", done.job_id))?;
                    let (path, written) = super::develop::save_asset(&client, frame, &done.job_id, output).await?;
                    eprintln!("Saved the frame to {} ({written} bytes)", path.display());
                }
                return Ok(());
            }
            if a.order.json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                println!("{}", r.job_id);
            }
        }
        Command::Lock(a) => {
            let look = client.lock_look(&a.id, &a.asset).await?.look;
            if a.json {
                println!("{}", serde_json::to_string(&look)?);
            } else {
                println!("{}", look_line(&look));
            }
        }
        Command::Unlock(a) => {
            let look = client.unlock_look(&a.id).await?.look;
            if a.json {
                println!("{}", serde_json::to_string(&look)?);
            } else {
                println!("{}", look_line(&look));
            }
        }
        Command::Variations(a) => {
            if a.keys.iter().any(|k| k.trim().is_empty()) {
                return Err(Usage("variation keys are not blank".into()).into());
            }
            let req = VariationsRequest {
                keys: Some(a.keys.clone()),
                quality: a.order.quality.clone(),
                output: a.order.output(),
                idempotency_key: a.order.idempotency_key.clone(),
                folder_id: a.order.folder.clone(),
            };
            let r = client.look_variations(&a.id, &req).await?;
            eprintln!("{}", plan_line(&r.output, if r.replayed { 0 } else { r.jobs.len() }));
            if a.order.wait {
                let ids: Vec<String> = r.jobs.iter().map(|j| j.job_id.clone()).collect();
                return wait_all(&client, &ids, a.order.json).await.map(|_| ());
            }
            if a.order.json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                for j in &r.jobs {
                    println!("{}\t{}", j.key, j.job_id);
                }
            }
        }
    }
    Ok(())
}
