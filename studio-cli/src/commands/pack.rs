//! `studio pack`: gather assets into one zip archive (spec §2.9, §3.3, §4.4), wait while the
//! server builds it in the background, download it and check every entry before saying so.

use std::fs;
use std::io::{BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, bail};
use clap::builder::NonEmptyStringValueParser;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use studio_client::api::{Pack, PackRequest, PackSize};

use super::{Context, count};

/// How often a queued pack is asked after.
const POLL_EVERY: Duration = Duration::from_secs(1);
/// How long a queued pack is waited for before giving up.
const WAIT_AT_MOST: Duration = Duration::from_secs(30 * 60);
/// Failed polls in a row (network blips) tolerated while waiting.
const POLL_RETRIES: u32 = 5;

/// Pack assets into a zip archive and download it: the ids given, or every asset of a
/// collection. Large packs are built in the background; the command waits for them. The
/// archive is checked (every entry's CRC, and the entry count) before it is kept.
#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("assets").required(true).args(["ids", "folder"]))]
pub(crate) struct Args {
    /// The assets to pack (ids from `studio assets ls`).
    #[arg(value_name = "ASSET_ID")]
    ids: Vec<String>,
    /// Pack every asset of this collection (an id from `studio folders ls`) instead.
    #[arg(long, value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    folder: Option<String>,
    /// Where to write the archive; a directory gets the pack's file name inside it [default:
    /// the pack's file name in the current directory].
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// The archive's name (its file name without `.zip`) [default: studio-pack-DATE-TIME].
    #[arg(long, value_name = "NAME", value_parser = NonEmptyStringValueParser::new())]
    name: Option<String>,
    /// Also add resized JPEG renditions, fitted inside WxH pixels (16 to 8192), in a folder NAME
    /// of the archive; repeatable, e.g. `--size web:1600x1600 --size thumb:400x400`.
    #[arg(long = "size", value_name = "NAME:WxH", value_parser = parse_size)]
    sizes: Vec<PackSize>,
    /// Print {"pack": {...}, "path", "verified": true, "entries": N} as JSON.
    #[arg(long)]
    json: bool,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Report<'a> {
    /// The pack as the server last described it.
    pack: &'a Pack,
    /// Where the archive was written.
    path: String,
    /// Always true: an archive that fails the check is an error, not a report.
    verified: bool,
    /// Entries in the archive.
    entries: usize,
}

/// Create the pack, wait for it when it is queued, download it and check it.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    let asset_ids = match &args.folder {
        Some(folder) => {
            let list = client.list_assets(Some(folder)).await?;
            if list.assets.is_empty() {
                bail!("nothing to pack: collection {folder} holds no assets");
            }
            list.assets.into_iter().map(|a| a.id).collect()
        }
        None => args.ids.clone(),
    };
    let request = PackRequest { asset_ids, name: args.name.clone(), sizes: args.sizes.clone() };
    let mut pack = client.create_pack(&request).await?;

    if waiting(&pack) {
        pack = wait(&client, pack, args.json).await?;
    }
    match pack.status.as_str() {
        "ready" => {}
        "failed" => return Err(refused(&pack, "PACK_FAILED", "the pack could not be built; pack again").into()),
        "expired" => return Err(refused(&pack, "PACK_EXPIRED", "this pack's link has lapsed; pack again").into()),
        other => bail!("pack {} is {other}, not ready", pack.pack_id),
    }

    let path = destination(args.output.as_deref(), &pack.filename);
    let bytes = download(&client, &pack, &path, args.json).await?;
    let entries = usize::try_from(pack.items).ok();
    let verified = verify(&path, entries, args.json);
    let entries = match verified {
        Ok(n) => n,
        Err(e) => {
            // A damaged archive is not kept under the name asked for.
            let _ = fs::remove_file(&path);
            return Err(
                e.context(format!("{}: the downloaded archive failed its check and was removed", path.display()))
            );
        }
    };

    if args.json {
        let report = Report { pack: &pack, path: path.display().to_string(), verified: true, entries };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("Packed {} ({}) into {}", count(entries, "item"), megabytes(bytes), path.display());
    }
    Ok(())
}

/// Whether the server is still building the pack.
fn waiting(pack: &Pack) -> bool {
    matches!(pack.status.as_str(), "queued" | "building")
}

/// Poll the pack every second until it is no longer queued or building, showing its status
/// and the server's estimate; an error after [`WAIT_AT_MOST`].
async fn wait(client: &studio_client::Client, mut pack: Pack, json: bool) -> Result<Pack> {
    let spinner = spinner(json);
    if spinner.is_hidden() && !json {
        eprintln!("Pack {} is {}; waiting ({}) ...", pack.pack_id, pack.status, status_estimate(&pack));
    }
    spinner.set_message(status_line(&pack));
    let deadline = tokio::time::Instant::now() + WAIT_AT_MOST;
    let mut failed_polls = 0;
    while waiting(&pack) {
        if tokio::time::Instant::now() >= deadline {
            spinner.finish_and_clear();
            bail!(
                "pack {} was still {} after {} minutes; stopped waiting (the server may still finish it)",
                pack.pack_id,
                pack.status,
                WAIT_AT_MOST.as_secs() / 60
            );
        }
        tokio::time::sleep(POLL_EVERY).await;
        match client.get_pack(&pack.pack_id).await {
            Ok(latest) => {
                pack = latest;
                failed_polls = 0;
            }
            Err(studio_client::Error::Transport(_)) if failed_polls < POLL_RETRIES => failed_polls += 1,
            Err(e) => {
                spinner.finish_and_clear();
                return Err(e.into());
            }
        }
        spinner.set_message(status_line(&pack));
    }
    spinner.finish_and_clear();
    Ok(pack)
}

/// `queued (the server estimates 12 s)`: what the spinner says beside the time waited.
fn status_line(pack: &Pack) -> String {
    format!("{} ({})", pack.status, status_estimate(pack))
}

/// `the server estimates 12 s`: the server's `seconds`, which it does not count down.
fn status_estimate(pack: &Pack) -> String {
    format!("the server estimates {}", seconds(pack.seconds))
}

/// The server's estimate, readable: `12 s`, `3 min 5 s`.
fn seconds(s: i64) -> String {
    let s = s.max(0);
    if s < 60 { format!("{s} s") } else { format!("{} min {} s", s / 60, s % 60) }
}

/// Download the archive beside its destination (`FILE.part`), then move it into place; the
/// bytes written.
async fn download(client: &studio_client::Client, pack: &Pack, path: &Path, json: bool) -> Result<u64> {
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let part = PathBuf::from(part);
    let bar = bytes_bar(json);
    let fetched = client
        .download_pack(&pack.pack_id, &part, |written, total| {
            if let Some(total) = total
                && bar.length() != Some(total)
            {
                bar.set_length(total);
            }
            bar.set_position(written);
        })
        .await;
    bar.finish_and_clear();
    let written = match fetched {
        Ok(written) => written,
        Err(e) => {
            let _ = fs::remove_file(&part);
            return Err(e.into());
        }
    };
    if let Err(e) = fs::rename(&part, path) {
        let _ = fs::remove_file(&part);
        return Err(anyhow!(e).context(format!("cannot write {}", path.display())));
    }
    Ok(written)
}

/// Open the archive, read every entry to its end (the reader checks each entry's CRC-32 as
/// it reaches the end) and compare the count with `expected`; the number of entries.
fn verify(path: &Path, expected: Option<usize>, json: bool) -> Result<usize> {
    let file = fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).context("not a readable zip archive")?;
    let entries = archive.len();
    let bar = entries_bar(entries as u64, json);
    for i in 0..entries {
        let mut entry = archive.by_index(i).with_context(|| format!("entry {i} cannot be read"))?;
        let name = entry.name().map(|n| n.into_owned()).unwrap_or_else(|_| format!("entry {i}"));
        bar.set_message(name.clone());
        std::io::copy(&mut entry, &mut std::io::sink()).with_context(|| format!("entry {name}"))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(expected) = expected
        && entries != expected
    {
        let held = if entries == 1 { "1 entry".to_string() } else { format!("{entries} entries") };
        bail!("the archive holds {held} but the pack has {}", count(expected, "item"));
    }
    Ok(entries)
}

/// Where the archive goes: `-o` (inside it when it names a directory), else the pack's file
/// name in the current directory. Only the last component of the server's name is used.
fn destination(output: Option<&Path>, filename: &str) -> PathBuf {
    let own = Path::new(filename)
        .file_name()
        .filter(|n| !n.is_empty())
        .map_or_else(|| PathBuf::from("studio-pack.zip"), PathBuf::from);
    match output {
        Some(dir) if dir.is_dir() => dir.join(own),
        Some(file) => file.to_path_buf(),
        None => own,
    }
}

/// A refusal reported like the server's own: `error: CODE: message`, exit 1.
fn refused(pack: &Pack, code: &str, fallback: &str) -> studio_client::Error {
    let reason = pack.error.clone().unwrap_or_else(|| fallback.to_string());
    studio_client::Error::Api {
        status: 409,
        code: code.into(),
        message: format!("pack {}: {reason}", pack.pack_id),
        extra: serde_json::Map::new(),
    }
}

/// `--size NAME:WxH`.
fn parse_size(raw: &str) -> Result<PackSize, String> {
    let shape = || format!("expected NAME:WxH, e.g. web:1600x1600, not `{raw}`");
    let (name, box_) = raw.rsplit_once(':').ok_or_else(shape)?;
    let (w, h) = box_.split_once(['x', 'X']).ok_or_else(shape)?;
    let name = name.trim();
    if name.is_empty() {
        return Err(shape());
    }
    let px = |v: &str| v.trim().parse::<u32>().ok().filter(|n| (16..=8192).contains(n));
    match (px(w), px(h)) {
        (Some(width), Some(height)) => Ok(PackSize { name: name.to_string(), width, height }),
        _ => Err(format!("width and height must be whole pixels from 16 to 8192, not `{box_}`")),
    }
}

/// A size in megabytes (10^6 bytes), with the decimals small sizes need.
fn megabytes(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb >= 100.0 {
        format!("{mb:.0} MB")
    } else if mb >= 1.0 {
        format!("{mb:.1} MB")
    } else if mb >= 0.01 {
        format!("{mb:.2} MB")
    } else {
        "<0.01 MB".into()
    }
}

/// Whether bars are drawn: on a terminal, unless the output is JSON.
fn drawn(json: bool) -> bool {
    !json && std::io::stderr().is_terminal()
}

/// The spinner shown while the server builds the pack.
fn spinner(json: bool) -> ProgressBar {
    if !drawn(json) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} pack {wide_msg} waited {elapsed}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// The byte bar of the download (a spinner with a byte count until the length is known).
fn bytes_bar(json: bool) -> ProgressBar {
    if !drawn(json) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::no_length();
    let template = "downloading {bar:20} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}";
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// The bar of the check, one step per entry.
fn entries_bar(len: u64, json: bool) -> ProgressBar {
    if !drawn(json) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("checking {bar:20} {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn sizes_parse() {
        let web = parse_size("web:1600x1600").unwrap();
        assert_eq!(web, PackSize { name: "web".into(), width: 1600, height: 1600 });
        assert_eq!(
            parse_size("hi res:4000X3000").unwrap(),
            PackSize { name: "hi res".into(), width: 4000, height: 3000 }
        );
        for bad in ["web", "web:1600", ":100x100", "web:10x100", "web:100x9000", "web:axb", "web:100x"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn megabytes_keep_small_sizes_readable() {
        assert_eq!(megabytes(500), "<0.01 MB");
        assert_eq!(megabytes(45_000), "0.04 MB");
        assert_eq!(megabytes(2_345_678), "2.3 MB");
        assert_eq!(megabytes(512_000_000), "512 MB");
        assert_eq!(seconds(75), "1 min 15 s");
    }

    #[test]
    fn destination_defaults_to_the_pack_name_here() {
        let temp = tempfile::tempdir().unwrap();
        assert_eq!(destination(None, "SS25.zip"), PathBuf::from("SS25.zip"));
        assert_eq!(destination(None, "../../x.zip"), PathBuf::from("x.zip"));
        assert_eq!(destination(Some(temp.path()), "SS25.zip"), temp.path().join("SS25.zip"));
        let file = temp.path().join("out.zip");
        assert_eq!(destination(Some(&file), "SS25.zip"), file);
    }

    /// A store-mode archive of `entries`, as the server writes them.
    fn archive(path: &Path, entries: &[(&str, &[u8])]) {
        use zip::write::SimpleFileOptions;
        let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        let mut zip = zip::ZipWriter::new(fs::File::create(path).unwrap());
        for (name, data) in entries {
            zip.start_file(*name, options).unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap();
    }

    #[test]
    fn verify_counts_entries_and_catches_a_flipped_byte() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("a.zip");
        archive(&path, &[("a.png", b"first frame bytes"), ("web/a.jpg", b"second frame bytes")]);
        assert_eq!(verify(&path, Some(2), true).unwrap(), 2);
        assert_eq!(verify(&path, None, true).unwrap(), 2);
        let short = verify(&path, Some(3), true).unwrap_err();
        assert_eq!(short.to_string(), "the archive holds 2 entries but the pack has 3 items");

        let mut bytes = fs::read(&path).unwrap();
        let at = bytes.windows(6).position(|w| w == b"second").unwrap();
        bytes[at] = b'S';
        fs::write(&path, &bytes).unwrap();
        let err = verify(&path, Some(2), true).unwrap_err();
        assert_eq!(format!("{err:#}"), "entry web/a.jpg: Invalid checksum");

        fs::write(&path, b"not a zip").unwrap();
        assert!(verify(&path, Some(2), true).unwrap_err().to_string().contains("not a readable zip"));
    }
}
