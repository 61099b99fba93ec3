//! `studio develop`: submit one develop (spec §4.3), say its job id at once, and with `--wait`
//! follow it to its end and fetch the result.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use studio_client::api::{DevelopStatus, JobStatus, Quality, SubmitResponse};
use studio_client::{Client, DevelopSubmit, InputSource};

use super::{Context, Interrupted, Usage, count};

/// The input roles the server takes (spec §4.3); `garment` may repeat.
pub(crate) const ROLES: [&str; 5] = ["image", "garment", "model", "mask", "background"];
/// Form fields that are never tool options: given through their own flags.
const RESERVED: [&str; 7] = ["tool", "idempotencyKey", "brandId", "quality", "output", "folderId", "webhookUrl"];
/// The tools that cut a subject from its ground: their inputs are preflighted first, and a
/// photo the subject gate would refuse is named in a warning before anything is held.
const CUTOUT_TOOLS: [&str; 4] = ["packshot", "color-change", "harmonize", "lookbook"];
/// The roles whose subject those tools cut.
const CUT_ROLES: [&str; 3] = ["image", "model", "garment"];
/// The first pause between polls of a waited job; it doubles up to [`POLL_AT_MOST`].
const POLL_FIRST: Duration = Duration::from_millis(250);
/// The longest pause between polls.
const POLL_AT_MOST: Duration = Duration::from_secs(2);
/// How long `--wait` waits before giving up (the job goes on).
pub(crate) const WAIT_AT_MOST: Duration = Duration::from_secs(2 * 60 * 60);
/// Failed polls in a row (network blips) tolerated while waiting.
pub(crate) const POLL_RETRIES: u32 = 5;

/// Develop an image with a tool (see `studio prices`). Each input is a file, uploaded with the
/// submit, or else the id of an asset already in the library. Tokens are held at once and
/// settle when the frame lands; a failed frame costs nothing.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The tool: upscale, reframe, packshot, tryon, ... (`studio prices` lists this
    /// deployment's).
    #[arg(value_name = "TOOL")]
    tool: String,
    /// The image to develop: a file, or an asset id from `studio assets ls`.
    #[arg(long, value_name = "PATH|ASSET_ID")]
    image: Option<String>,
    /// An input by role (image, garment, model, mask, background): a file or an asset id;
    /// repeatable (garment may repeat), e.g. `--input model=m.jpg --input garment=ast_...`.
    #[arg(long = "input", value_name = "ROLE=PATH|ASSET_ID", value_parser = parse_input)]
    inputs: Vec<(String, String)>,
    /// The output size (long edge 1,024, 2,048 or 4,096 px); decides the price.
    #[arg(long, value_enum, value_name = "1k|2k|4k")]
    quality: Tier,
    /// A tool option, sent as is; repeatable, e.g. `--param runId=ss25-look-1`.
    #[arg(long = "param", value_name = "K=V", value_parser = parse_param)]
    params: Vec<(String, String)>,
    /// Wait for the job to end (done, failed or cancelled); Ctrl-C stops waiting, not the job.
    #[arg(long)]
    wait: bool,
    /// Once done, download the result to FILE (a directory gets JOB_ID.jpg or .png inside it);
    /// implies --wait.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// File the landed frame in this collection (a folder id from `studio folders ls`); an
    /// unknown folder is refused before anything is held.
    #[arg(long, value_name = "FOLDER_ID", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    folder: Option<String>,
    /// Also deliver this develop's changes to URL as signed webhooks (the house's default
    /// endpoint's secret signs them; see `studio webhooks`).
    #[arg(long, value_name = "URL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    webhook_url: Option<String>,
    /// Submitting again with the same key returns the same job and holds nothing more.
    #[arg(long, value_name = "KEY", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    idempotency_key: Option<String>,
    /// Print the server's {"jobId", "status", "tokensHeld", "replayed"} as JSON; with --wait,
    /// the job's final status {"jobId", "status", "resultAssetId", "error", ...} instead.
    #[arg(long)]
    json: bool,
}

/// The quality tiers, as `--quality` takes them.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Tier {
    /// 1,024 px on the long edge.
    #[value(name = "1k")]
    K1,
    /// 2,048 px on the long edge.
    #[value(name = "2k")]
    K2,
    /// 4,096 px on the long edge.
    #[value(name = "4k")]
    K4,
}

impl From<Tier> for Quality {
    fn from(tier: Tier) -> Quality {
        match tier {
            Tier::K1 => Quality::K1,
            Tier::K2 => Quality::K2,
            Tier::K4 => Quality::K4,
        }
    }
}

/// Submit; print the job at once; with `--wait` (or `-o`), follow it to its end.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    let submit = request(&args)?;
    for line in subject_warnings(&client, &args).await {
        eprintln!("{line}");
    }
    let submitted = client.submit_develop(&submit).await?;
    let wait = args.wait || args.output.is_some();
    // Said before anything else can go wrong, so the job is never lost.
    if !args.json || wait {
        eprintln!("{}", queued_line(&submitted));
    }
    if !wait {
        if args.json {
            println!("{}", serde_json::to_string(&submitted)?);
        } else {
            println!("{}", submitted.job_id);
        }
        return Ok(());
    }

    let spinner = spinner(args.json);
    let job_id = submitted.job_id.as_str();
    // The download is inside the select too: once Ctrl-C is handled here, the shell's default
    // (ending the process) no longer applies.
    let finished = async {
        let status = follow(&client, job_id, &spinner, args.json).await;
        spinner.finish_and_clear();
        let status = status?;
        let saved = match (&status.status, &args.output) {
            (JobStatus::Done, Some(output)) => Some(save(&client, &status, output).await?),
            _ => None,
        };
        anyhow::Ok((status, saved))
    };
    let (status, saved) = tokio::select! {
        finished = finished => finished?,
        _ = tokio::signal::ctrl_c() => {
            spinner.finish_and_clear();
            if let Some(output) = &args.output {
                let _ = fs::remove_file(part_path(output, job_id));
            }
            eprintln!("{}", left_running(job_id));
            return Err(Interrupted.into());
        }
    };
    if args.json {
        println!("{}", serde_json::to_string(&status)?);
    }
    match status.status {
        JobStatus::Done => {
            if !args.json {
                println!("{}", done_line(&status));
                if let Some((path, bytes)) = &saved {
                    println!(
                        "Saved {} ({}) to {}",
                        status.result_asset_id.as_deref().unwrap_or("the result"),
                        count(bytes, "byte"),
                        path.display()
                    );
                }
            }
            Ok(())
        }
        JobStatus::Failed => Err(ended(&status, "DEVELOP_FAILED", "failed").into()),
        _ => Err(ended(&status, "DEVELOP_CANCELLED", "was cancelled").into()),
    }
}

/// The submit the flags describe. A value naming an existing file is uploaded; one with no
/// such file is an asset id, unless it looks like a path (a `/` or a `.`): then it is an error.
fn request(args: &Args) -> Result<DevelopSubmit> {
    let mut submit = DevelopSubmit::new(args.tool.trim()).quality(args.quality.into());
    let inputs = args
        .image
        .iter()
        .map(|v| ("image", v.as_str()))
        .chain(args.inputs.iter().map(|(r, v)| (r.as_str(), v.as_str())));
    for (role, value) in inputs {
        submit = submit.input(role, source(value)?);
    }
    for (k, v) in &args.params {
        submit = submit.param(k, v);
    }
    if let Some(key) = &args.idempotency_key {
        submit = submit.idempotency_key(key);
    }
    if let Some(folder) = &args.folder {
        submit = submit.folder(folder.trim());
    }
    if let Some(url) = &args.webhook_url {
        submit = submit.webhook_url(url.trim());
    }
    Ok(submit)
}

/// For a tool that cuts a subject, a free preflight of the inputs it cuts (files as they are,
/// asset ids as stored): a `warning:` line for each the subject gate would refuse
/// (`no-clear-subject`), before the submit holds anything. A preflight that cannot run says
/// nothing: the submit decides.
async fn subject_warnings(client: &Client, args: &Args) -> Vec<String> {
    let tool = args.tool.trim();
    let has_mask = args.inputs.iter().any(|(r, _)| r == "mask");
    if !CUTOUT_TOOLS.contains(&tool) || (tool == "color-change" && has_mask) {
        return Vec::new();
    }
    let named: Vec<&str> = args
        .image
        .iter()
        .map(String::as_str)
        .chain(args.inputs.iter().filter(|(r, _)| CUT_ROLES.contains(&r.as_str())).map(|(_, v)| v.as_str()))
        .take(6)
        .collect();
    let mut check = studio_client::PreflightCheck::new();
    for value in &named {
        match source(value) {
            Ok(image) => check = check.image(image),
            Err(_) => return Vec::new(),
        }
    }
    if named.is_empty() {
        return Vec::new();
    }
    let Ok(answer) = client.preflight(&check).await else { return Vec::new() };
    answer
        .findings
        .iter()
        .filter(|f| f.code == "no-clear-subject")
        .flat_map(|f| f.images.iter().map(move |i| (i, &f.says)))
        .filter_map(|(i, says)| Some(format!("warning: {}: {says}", named.get((*i as usize).checked_sub(1)?)?)))
        .collect()
}

/// Where one input comes from: the file at `value`, or the library asset `value`.
pub(super) fn source(value: &str) -> Result<InputSource> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Usage("an input is empty: give a file or an asset id".into()).into());
    }
    match fs::metadata(value) {
        Ok(meta) if meta.is_file() && meta.len() > 0 && !looks_like_an_image(Path::new(value)) => Err(Usage(format!(
            "{value} is not an image: the studio develops JPEG, PNG, WebP or GIF files, and its first bytes are none \
             of these (convert it, or give an asset id from `studio assets ls`)"
        ))
        .into()),
        Ok(meta) if meta.is_file() => Ok(InputSource::Path(PathBuf::from(value))),
        Ok(_) => Err(Usage(format!("{value}: not a regular file")).into()),
        Err(_) if value.contains(['/', '\\', '.']) => {
            bail!("{value}: no such file (an asset id has no `/` or `.`; see `studio assets ls`)")
        }
        Err(_) => Ok(InputSource::Asset(value.to_string())),
    }
}

/// Whether the file at `path` starts as a JPEG, PNG, WebP or GIF does (what the server sniffs).
fn looks_like_an_image(path: &Path) -> bool {
    let mut head = [0u8; 12];
    let read = fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).unwrap_or(0);
    let head = &head[..read];
    head.starts_with(b"\xFF\xD8\xFF")
        || head.starts_with(b"\x89PNG")
        || head.starts_with(b"GIF8")
        || (head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP")
}

/// `--input ROLE=VALUE`.
fn parse_input(raw: &str) -> Result<(String, String), String> {
    let (role, value) = raw.split_once('=').ok_or_else(|| format!("expected ROLE=PATH|ASSET_ID, not `{raw}`"))?;
    let role = role.trim();
    if !ROLES.contains(&role) {
        return Err(format!("`{role}` is not an input role; roles are {}", ROLES.join(", ")));
    }
    if value.trim().is_empty() {
        return Err(format!("`{raw}` names no file or asset"));
    }
    Ok((role.to_string(), value.to_string()))
}

/// `--param K=V`: any option but the input roles and the fields with their own flags.
fn parse_param(raw: &str) -> Result<(String, String), String> {
    let (key, value) = raw.split_once('=').ok_or_else(|| format!("expected K=V, not `{raw}`"))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("`{raw}` has no option name"));
    }
    if ROLES.contains(&key) {
        return Err(format!("`{key}` is an input role: use --input {key}=PATH|ASSET_ID"));
    }
    if RESERVED.contains(&key) {
        return Err(format!("`{key}` is not a tool option (it has its own flag, or none)"));
    }
    Ok((key.to_string(), value.to_string()))
}

/// `job job_… queued, 9 tokens held`, with a note on an idempotent replay.
fn queued_line(s: &SubmitResponse) -> String {
    let mut line = format!("job {} {}, {} held", s.job_id, s.status.as_str(), count(s.tokens_held, "token"));
    if s.replayed {
        line += " (the idempotency key was used before: same job, nothing new held)";
    }
    line
}

/// What to do after Ctrl-C.
fn left_running(job_id: &str) -> String {
    format!(
        "Stopped waiting; job {job_id} goes on (it is not cancelled).\n\
         hint: follow it with `studio jobs watch` or `studio jobs show {job_id}`; \
         stop it with `studio jobs cancel {job_id}`"
    )
}

/// `job job_… done: result ast_…, 9 tokens settled`.
pub(crate) fn done_line(s: &DevelopStatus) -> String {
    let result =
        s.result_asset_id.as_deref().map(|id| format!("result {id}")).unwrap_or_else(|| "no result asset".into());
    let settled = s.tokens_settled.unwrap_or(s.tokens_estimated);
    format!("job {} done: {result}, {} settled", s.job_id, count(settled, "token"))
}

/// A job that ended without a frame, reported like the server's refusals: `error: CODE: ...`,
/// exit 1.
pub(crate) fn ended(s: &DevelopStatus, code: &str, how: &str) -> studio_client::Error {
    let why = s.error.as_deref().map(|e| format!(": {e}")).unwrap_or_default();
    studio_client::Error::Api {
        status: 409,
        code: code.into(),
        message: format!("job {} {how}{why} (nothing was charged)", s.job_id),
        extra: serde_json::Map::new(),
    }
}

/// Poll the job until it ends, showing its state; transport blips are retried.
pub(crate) async fn follow(client: &Client, job_id: &str, spinner: &ProgressBar, json: bool) -> Result<DevelopStatus> {
    let deadline = tokio::time::Instant::now() + WAIT_AT_MOST;
    let mut every = POLL_FIRST;
    let mut failed_polls = 0;
    let mut seen: Option<JobStatus> = None;
    loop {
        match client.job(job_id).await {
            Ok(status) if status.status.is_terminal() => return Ok(status),
            Ok(status) => {
                failed_polls = 0;
                if seen != Some(status.status) {
                    spinner.set_message(format!("job {job_id} {}", status.status.as_str()));
                    if spinner.is_hidden() && !json && seen.is_some() {
                        eprintln!("job {job_id} {}", status.status.as_str());
                    }
                    seen = Some(status.status);
                }
                if tokio::time::Instant::now() >= deadline {
                    bail!(
                        "job {job_id} was still {} after {} minutes; stopped waiting (it goes on: `studio jobs show {job_id}`)",
                        status.status.as_str(),
                        WAIT_AT_MOST.as_secs() / 60
                    );
                }
            }
            Err(studio_client::Error::Transport(_)) if failed_polls < POLL_RETRIES => failed_polls += 1,
            Err(e) => return Err(e.into()),
        }
        tokio::time::sleep(every).await;
        every = (every * 2).min(POLL_AT_MOST);
    }
}

/// Download the result beside its destination (`FILE.part`), then move it into place; the
/// path written and its size. A directory gets `JOB_ID.EXT` inside it, the extension read
/// from the bytes.
async fn save(client: &Client, status: &DevelopStatus, output: &Path) -> Result<(PathBuf, u64)> {
    let asset = status
        .result_asset_id
        .as_deref()
        .ok_or_else(|| anyhow!("job {} is done but names no result asset", status.job_id))?;
    save_asset(client, asset, &status.job_id, output).await
}

/// Download asset `asset` to `output` through `OUTPUT.part` (or `STEM.part` inside a
/// directory), then move it into place: a directory gets `STEM.EXT`, the extension read from
/// the bytes. The path written and its size; nothing is left behind on failure.
pub(crate) async fn save_asset(client: &Client, asset: &str, stem: &str, output: &Path) -> Result<(PathBuf, u64)> {
    let into_dir = output.is_dir();
    let part = part_path(output, stem);
    let written = match client.download_asset(asset, &part).await {
        Ok(n) => n,
        Err(e) => {
            let _ = fs::remove_file(&part);
            return Err(e.into());
        }
    };
    let path = if into_dir { output.join(format!("{stem}.{}", extension(&part))) } else { output.to_path_buf() };
    if let Err(e) = fs::rename(&part, &path) {
        let _ = fs::remove_file(&part);
        return Err(anyhow!(e).context(format!("cannot write {}", path.display())));
    }
    Ok((path, written))
}

/// Where a download goes before it is moved into place: `FILE.part`, or `STEM.part` inside a
/// directory.
fn part_path(output: &Path, stem: &str) -> PathBuf {
    if output.is_dir() { output.join(format!("{stem}.part")) } else { with_suffix(output, ".part") }
}

/// `path` with `suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The extension the image at `path` calls for, from its first bytes.
fn extension(path: &Path) -> &'static str {
    let mut head = [0u8; 12];
    let read = fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).unwrap_or(0);
    let head = &head[..read];
    if head.starts_with(b"\x89PNG") {
        "png"
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        "webp"
    } else if head.starts_with(b"GIF8") {
        "gif"
    } else {
        "jpg"
    }
}

/// A spinner on stderr when it is a terminal and the output is not JSON; else a hidden one.
fn spinner(json: bool) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {wide_msg} waited {elapsed}  (Ctrl-C stops waiting)") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_and_params_parse() {
        assert_eq!(parse_input("garment=a.png").unwrap(), ("garment".into(), "a.png".into()));
        assert_eq!(parse_input("model=ast_1").unwrap(), ("model".into(), "ast_1".into()));
        for bad in ["garment", "hat=a.png", "model=", "=x"] {
            assert!(parse_input(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_param("runId=ss25").unwrap(), ("runId".into(), "ss25".into()));
        assert_eq!(parse_param("direction=a=b").unwrap(), ("direction".into(), "a=b".into()));
        for bad in ["runId", "=x", "image=a.png", "quality=4k", "tool=x", "output=x"] {
            assert!(parse_param(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn files_are_uploaded_and_other_values_are_asset_ids() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("coat.png");
        fs::write(&file, b"\x89PNG\r\n\x1a\n").unwrap();
        assert!(matches!(source(file.to_str().unwrap()).unwrap(), InputSource::Path(p) if p == file));
        let notes = temp.path().join("notes.jpg");
        fs::write(&notes, b"hello, this is text").unwrap();
        let refused = source(notes.to_str().unwrap()).unwrap_err();
        assert!(refused.is::<Usage>() && refused.to_string().contains("is not an image"), "{refused}");
        assert!(matches!(source("ast_0190abc").unwrap(), InputSource::Asset(id) if id == "ast_0190abc"));
        let missing = source(temp.path().join("gone.png").to_str().unwrap()).unwrap_err();
        assert!(missing.to_string().contains("no such file"), "{missing}");
        assert!(source("coat.png").is_err(), "a missing file is not an asset id");
        assert!(source(temp.path().to_str().unwrap()).unwrap_err().is::<Usage>());
    }

    #[test]
    fn the_extension_comes_from_the_bytes() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("x.part");
        for (bytes, ext) in [
            (&b"\x89PNG\r\n\x1a\n...."[..], "png"),
            (b"\xff\xd8\xff\xe0", "jpg"),
            (b"RIFF\0\0\0\0WEBPVP8 ", "webp"),
            (b"", "jpg"),
        ] {
            fs::write(&path, bytes).unwrap();
            assert_eq!(extension(&path), ext);
        }
        assert_eq!(with_suffix(Path::new("out/a.jpg"), ".part"), PathBuf::from("out/a.jpg.part"));
    }

    #[test]
    fn lines_say_the_job_and_tokens() {
        let s = SubmitResponse { job_id: "job_1".into(), status: JobStatus::Queued, tokens_held: 9, replayed: false };
        assert_eq!(queued_line(&s), "job job_1 queued, 9 tokens held");
        let again = SubmitResponse { tokens_held: 0, replayed: true, ..s };
        assert!(queued_line(&again).starts_with("job job_1 queued, 0 tokens held (the idempotency key"));
    }
}
