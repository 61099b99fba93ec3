//! `studio upload`: send image files, or whole directories of them, to the library (spec §2.2,
//! §4.4), one upload per file, carrying on past the files the server refuses.

use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::io::{ErrorKind, IsTerminal};
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use studio_client::UploadOptions;
use studio_client::api::{Asset, AssetKind, UploadResponse};

use super::{Context, count, not_found};

/// Upload images to the library. Directories are walked recursively, in sorted order; hidden
/// files and directories (names starting with `.`) inside them are skipped.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Image files (JPEG, PNG, WebP, GIF) and directories of them, walked recursively in sorted
    /// order; hidden entries (names starting with `.`) inside directories are skipped.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// File every upload in this collection (an id from `studio folders ls`) [default: the root].
    #[arg(long, value_name = "ID", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    folder: Option<String>,
    /// The wardrobe bucket of every upload [default: clothes, or what --classify reads].
    #[arg(long, value_enum)]
    kind: Option<Kind>,
    /// The brand's own code, given to every upload.
    #[arg(long, value_name = "SKU")]
    sku: Option<String>,
    /// Also read each image to file it into a kind and name it (1 token per image; a failed
    /// read keeps the upload and charges nothing).
    #[arg(long)]
    classify: bool,
    /// Print {"uploaded": [asset...], "failed": [{"path", "error", "message"}]} as JSON.
    #[arg(long)]
    json: bool,
}

/// The wardrobe buckets, as `--kind` takes them.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Kind {
    /// Garments.
    Clothes,
    /// Bags, belts, shoes, ...
    Accessory,
    /// Jewellery.
    Jewelry,
    /// A model (person) photograph.
    Model,
    /// A ground or scene.
    Background,
}

impl From<Kind> for AssetKind {
    fn from(kind: Kind) -> AssetKind {
        match kind {
            Kind::Clothes => AssetKind::Clothes,
            Kind::Accessory => AssetKind::Accessory,
            Kind::Jewelry => AssetKind::Jewelry,
            Kind::Model => AssetKind::Model,
            Kind::Background => AssetKind::Background,
        }
    }
}

/// One path that was not uploaded: `PATH: CODE: message` on stderr, an object in the JSON.
#[derive(Debug, Serialize)]
pub(crate) struct Failure {
    /// The path as found (the argument, or the argument joined with the entries under it).
    path: String,
    /// The server's code (`UNSUPPORTED_TYPE`, ...) or a local one (`NOT_FOUND`, `READ_FAILED`,
    /// `NOT_A_FILE`, `TRANSPORT`, `BAD_ANSWER`).
    error: String,
    /// What went wrong, in a sentence.
    message: String,
}

impl Failure {
    /// A failure found on this side.
    fn local(path: &Path, error: &str, message: impl Into<String>) -> Failure {
        Failure { path: path.display().to_string(), error: error.into(), message: message.into() }
    }

    /// A file or directory that could not be read.
    fn io(path: &Path, err: &std::io::Error) -> Failure {
        match err.kind() {
            ErrorKind::NotFound => Failure::local(path, "NOT_FOUND", "no such file or directory"),
            _ => Failure::local(path, "READ_FAILED", err.to_string()),
        }
    }

    /// An upload the client or the server refused.
    fn upload(path: &Path, err: &studio_client::Error) -> Failure {
        use studio_client::Error;
        let (error, message) = match err {
            Error::Api { code, message, .. } => (code.as_str(), message.clone()),
            Error::Transport(e) => ("TRANSPORT", crate::chain(e)),
            // Neither is met by an upload; named so the match stays exhaustive.
            Error::Timeout(m) | Error::Socket(m) => ("TRANSPORT", m.clone()),
            Error::Decode { .. } => ("BAD_ANSWER", err.to_string()),
            // The client names the path itself; say it once.
            Error::Config(m) => {
                ("READ_FAILED", m.strip_prefix(&format!("{}: ", path.display())).unwrap_or(m).to_string())
            }
        };
        Failure::local(path, error, message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path, self.error, self.message)
    }
}

/// What `--json` prints.
#[derive(Serialize)]
struct Report<'a> {
    /// The stored assets, in upload order.
    uploaded: &'a [Asset],
    /// The paths that were not uploaded.
    failed: &'a [Failure],
}

/// Find the files, upload them one by one, then report. Exits 1 (through `main`) when any path
/// failed; a 401 or an unreachable server on the first call stops the run at once.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    let (files, mut failed) = collect(&args.paths);
    for failure in &failed {
        eprintln!("{failure}");
    }
    if files.is_empty() && failed.is_empty() {
        bail!("nothing to upload: no regular files under the paths given (hidden files are skipped)");
    }
    if let (Some(folder), false) = (&args.folder, files.is_empty()) {
        // One look before the first upload: a wrong id would refuse every file alike.
        let folders = client.list_folders().await?;
        if !folders.folders.iter().any(|f| f.id == *folder) {
            return Err(not_found(format!("no collection {folder} in this house; see `studio folders ls`")).into());
        }
    }
    let options = UploadOptions {
        folder_id: args.folder.clone(),
        name: None,
        kind: args.kind.map(Into::into),
        sku: args.sku.clone(),
        classify: args.classify,
    };
    let total = files.len() + failed.len();
    let bar = progress(files.len() as u64, args.json);
    let mut uploaded = Vec::new();
    for (i, path) in files.iter().enumerate() {
        bar.set_message(path.display().to_string());
        match client.upload_file(path, &options).await {
            Ok(answer) => {
                bar.suspend(|| done(path, &answer, args.json));
                uploaded.push(answer.asset);
            }
            Err(e) => {
                // A server may refuse (401) before it reads the body and hang up mid-upload, which
                // reaches us as a transport error: one cheap read says which refusal it was.
                let e = match (i, e.status()) {
                    (0, None) => match client.list_folders().await {
                        Err(probe) if stops_the_run(&probe) => probe,
                        _ => e,
                    },
                    _ => e,
                };
                if i == 0 && stops_the_run(&e) {
                    bar.finish_and_clear();
                    return Err(e.into());
                }
                let failure = Failure::upload(path, &e);
                bar.suspend(|| eprintln!("{failure}"));
                failed.push(failure);
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();

    if args.json {
        println!("{}", serde_json::to_string(&Report { uploaded: &uploaded, failed: &failed })?);
    } else {
        println!("Uploaded {} of {total}.", count(uploaded.len(), "file"));
    }
    if failed.is_empty() { Ok(()) } else { Err(anyhow!("{} of {total} not uploaded (see above)", failed.len())) }
}

/// Failures that would refuse every file alike: a key the server does not know (exit 3), or no
/// server to talk to.
fn stops_the_run(err: &studio_client::Error) -> bool {
    err.status() == Some(401) || err.code() == Some("UNAUTHORIZED") || matches!(err, studio_client::Error::Transport(_))
}

/// Say what was stored (stdout, unless `--json`) and any classification that did not run
/// (stderr).
fn done(path: &Path, answer: &UploadResponse, json: bool) {
    let asset = &answer.asset;
    let mut line = format!("{}  {}  \"{}\" ({})", path.display(), asset.id, asset.name, asset.kind.as_str());
    if let Some(read) = &answer.classify {
        if read.ok {
            line += &format!(", classified for {}", count(read.tokens, "token"));
        } else {
            let why = read.error.as_deref().unwrap_or("no reason given");
            eprintln!("warning: {}: uploaded, but not classified: {why}", path.display());
        }
    }
    if !json {
        println!("{line}");
    }
}

/// A bar on stderr when it is a terminal and the output is not JSON; otherwise a hidden one.
pub(crate) fn progress(len: u64, json: bool) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

/// The files to upload, each once, in argument order with each directory's files sorted; and
/// the paths that could not be read.
fn collect(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Failure>) {
    let mut files = Vec::new();
    let mut failed = Vec::new();
    let mut seen = HashSet::new();
    for path in paths {
        let mut found = Vec::new();
        match fs::metadata(path) {
            // Named on the command line: uploaded even when hidden.
            Ok(meta) if meta.is_file() => found.push(path.clone()),
            Ok(meta) if meta.is_dir() => walk(path, &mut found, &mut failed),
            Ok(_) => failed.push(Failure::local(path, "NOT_A_FILE", "not a regular file or a directory")),
            Err(e) => failed.push(Failure::io(path, &e)),
        }
        files.extend(found.into_iter().filter(|f| seen.insert(f.clone())));
    }
    (files, failed)
}

/// Add the regular files under `dir` to `found`, depth first, entries sorted by name. Hidden
/// entries are skipped; symbolic links are followed to files, never to directories (no loops).
fn walk(dir: &Path, found: &mut Vec<PathBuf>, failed: &mut Vec<Failure>) {
    let entries = match fs::read_dir(dir).and_then(|entries| entries.collect::<std::io::Result<Vec<_>>>()) {
        Ok(entries) => entries,
        Err(e) => return failed.push(Failure::io(dir, &e)),
    };
    let mut entries: Vec<_> =
        entries.into_iter().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, found, failed),
            Ok(t) if t.is_file() => found.push(path),
            Ok(t) if t.is_symlink() => {
                if fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                    found.push(path);
                }
            }
            Ok(_) => {}
            Err(e) => failed.push(Failure::io(&path, &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_and_skips_hidden() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        for name in ["b.png", "a.png", ".hidden.png", "sub/c.png", "sub/.x/d.png", ".git/e.png", "a/f.png"] {
            let path = dir.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, b"x").unwrap();
        }
        let explicit = dir.join(".hidden.png");
        let (files, failed) = collect(&[dir.clone(), explicit.clone(), dir.join("a.png"), dir.join("missing")]);
        let names: Vec<_> = files.iter().map(|p| p.strip_prefix(&dir).unwrap().display().to_string()).collect();
        assert_eq!(names, ["a/f.png", "a.png", "b.png", "sub/c.png", ".hidden.png"]);
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].error, "NOT_FOUND");
        assert!(failed[0].to_string().ends_with("missing: NOT_FOUND: no such file or directory"), "{}", failed[0]);
    }
}
