//! `studio assets`: the house's library (spec §2.2, §4.4): list, show, download, move and delete
//! assets.

use std::path::PathBuf;

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{Asset, AssetBatchPatch, ProvenanceReport};

use super::{Context, count, not_found};

/// List, show, download, move and delete the house's assets.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `assets` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// List assets, newest first: id, name, kind, SKU, size and upload time.
    #[command(alias = "list")]
    Ls(Ls),
    /// Show one asset, and the develop that made it.
    Show(Show),
    /// Download one asset's file (any asset: an upload or a develop's frame).
    Get(Get),
    /// Move assets into a collection (--folder ID) or to the root (--root).
    #[command(alias = "move")]
    Mv(Mv),
    /// Delete assets (soft: hidden from every read, the bytes are kept).
    #[command(alias = "delete")]
    Rm(Rm),
}

/// `studio assets ls`.
#[derive(clap::Args)]
struct Ls {
    /// Only the assets of this collection (an id from `studio folders ls`).
    #[arg(long, value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    folder: Option<String>,
    /// Only the newest N (1 to 200); with --json the answer's nextCursor leads on.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=200))]
    limit: Option<u32>,
    /// With --limit: the page after this cursor (a nextCursor from --json).
    #[arg(long, value_name = "CURSOR", requires = "limit", value_parser = NonEmptyStringValueParser::new())]
    cursor: Option<String>,
    /// Print the server's {"assets": [...]} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio assets show`.
#[derive(clap::Args)]
struct Show {
    /// The asset's id.
    id: String,
    /// Print {"asset": {...}, "origin": {...} or null} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio assets get`.
#[derive(clap::Args)]
struct Get {
    /// The asset's id.
    #[arg(value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Write it to FILE (a directory gets NAME.jpg, .png, .webp or .gif inside it, NAME being
    /// the asset's name).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    output: PathBuf,
}

/// `studio assets mv`.
#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("to").required(true).args(["folder", "root"]))]
struct Mv {
    /// The assets' ids.
    #[arg(required = true, value_name = "ID")]
    ids: Vec<String>,
    /// Move them into this collection (an id from `studio folders ls`).
    #[arg(long, value_name = "ID", value_parser = NonEmptyStringValueParser::new())]
    folder: Option<String>,
    /// Move them to the root, out of any collection.
    #[arg(long)]
    root: bool,
    /// Print the server's {"updated": N} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio assets rm`.
#[derive(clap::Args)]
struct Rm {
    /// The assets' ids.
    #[arg(required = true, value_name = "ID")]
    ids: Vec<String>,
    /// Print the server's {"deleted": N} as JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `assets` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => ls(ctx, a).await,
        Command::Show(a) => show(ctx, a).await,
        Command::Get(a) => get(ctx, a).await,
        Command::Mv(a) => mv(ctx, a).await,
        Command::Rm(a) => rm(ctx, a).await,
    }
}

/// List the assets as a table or JSON.
async fn ls(ctx: &Context, args: Ls) -> Result<()> {
    let client = ctx.keyed_client()?;
    let list = match args.limit {
        Some(limit) => client.list_assets_page(args.folder.as_deref(), limit, args.cursor.as_deref()).await?,
        None => client.list_assets(args.folder.as_deref()).await?,
    };
    if args.json {
        println!("{}", serde_json::to_string(&list)?);
    } else if list.assets.is_empty() {
        println!("{}", if args.folder.is_some() { "No assets in this collection." } else { "No assets." });
    } else {
        print!("{}", table(&list.assets));
    }
    Ok(())
}

/// Show one asset and where it came from.
async fn show(ctx: &Context, args: Show) -> Result<()> {
    let detail = match ctx.keyed_client()?.asset_detail(&args.id).await {
        Ok(detail) => detail,
        Err(e) if e.status() == Some(404) => {
            return Err(not_found(format!("no asset {} in this house; see `studio assets ls`", args.id)).into());
        }
        Err(e) => return Err(e.into()),
    };
    let provenance = ctx.keyed_client()?.asset_provenance(&args.id).await?;
    if args.json {
        let mut both = serde_json::to_value(&detail)?;
        both["provenance"] = serde_json::to_value(&provenance)?;
        println!("{both}");
    } else {
        print!("{}", details(&detail.asset));
        match &detail.origin {
            None => println!("Origin:  uploaded"),
            Some(o) => {
                println!("Origin:  develop {} ({} at {}, {})", o.job_id, o.tool, o.quality, o.status);
                for i in &o.inputs {
                    let what = match (&i.asset_id, &i.name) {
                        (Some(id), Some(name)) => format!("{id} ({name:?})"),
                        (Some(id), None) => format!("{id} (deleted since)"),
                        _ => "a file sent with the submit".to_string(),
                    };
                    println!("  input {}: {what}", i.role);
                }
            }
        }
        match provenance.summary.validation {
            None => println!("Credentials: none"),
            Some(v) => {
                let signer = provenance.summary.signer.as_deref().unwrap_or("an unnamed signer");
                println!("Credentials: {} (signed by {signer})", v.as_str());
                print!("{}", provenance_lines(&provenance));
            }
        }
    }
    Ok(())
}

/// A manifest's actions, ingredients and findings, one per line, indented.
pub(crate) fn provenance_lines(report: &ProvenanceReport) -> String {
    let mut out = String::new();
    if let Some(when) = &report.signed_at {
        out.push_str(&format!("  signed at {when}\n"));
    }
    if let Some(house) = &report.house {
        out.push_str(&format!("  made for {house}\n"));
    }
    for a in &report.actions {
        let source = a.digital_source_type.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
        let agent = a.software_agent.as_deref().map(|s| format!(" by {s}")).unwrap_or_default();
        out.push_str(&format!("  action {}{source}{agent}\n", a.action));
    }
    for i in &report.ingredients {
        let title = i.title.as_deref().unwrap_or("untitled");
        let relationship = i.relationship.as_deref().unwrap_or("ingredient");
        let own = match i.validation {
            Some(v) => format!(", its own credentials {}", v.as_str()),
            None => String::new(),
        };
        out.push_str(&format!("  {relationship} {title}{own}\n"));
    }
    for f in &report.findings {
        let what = f.explanation.as_deref().unwrap_or("");
        out.push_str(&format!("  finding {}: {what}\n", f.code));
    }
    out
}

/// A file name from an asset's name: letters, digits, `-`, `_` and `.` kept, the rest `-`.
fn file_stem(name: &str, id: &str) -> String {
    let stem: String =
        name.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' }).collect();
    let stem = stem.trim_matches(|c| c == '-' || c == '.').to_string();
    if stem.is_empty() { id.to_string() } else { stem }
}

/// Download one asset to a file; says on stderr what was written.
async fn get(ctx: &Context, args: Get) -> Result<()> {
    let client = ctx.keyed_client()?;
    let asset = match client.asset_detail(&args.id).await {
        Ok(detail) => detail.asset,
        Err(e) if e.status() == Some(404) => {
            return Err(not_found(format!("no asset {} in this house; see `studio assets ls`", args.id)).into());
        }
        Err(e) => return Err(e.into()),
    };
    let stem = file_stem(&asset.name, &asset.id);
    let (path, written) = super::develop::save_asset(&client, &asset.id, &stem, &args.output).await?;
    eprintln!("Saved {:?} to {} ({written} bytes)", asset.name, path.display());
    Ok(())
}

/// Move the assets in one batch; the count is the server's.
async fn mv(ctx: &Context, args: Mv) -> Result<()> {
    let target = if args.root { None } else { args.folder.clone() };
    let patch = AssetBatchPatch { asset_ids: args.ids.clone(), folder_id: Some(target.clone()), ..Default::default() };
    let moved = ctx.keyed_client()?.patch_assets_batch(&patch).await?;
    if args.json {
        println!("{}", serde_json::to_string(&moved)?);
    } else {
        let place = match &target {
            Some(folder) => format!("collection {folder}"),
            None => "the root".into(),
        };
        println!("Moved {} to {place}", count(moved.updated, "asset"));
    }
    note_missed(&args.ids, moved.updated);
    Ok(())
}

/// Delete the assets; the count is the server's.
async fn rm(ctx: &Context, args: Rm) -> Result<()> {
    let deleted = ctx.keyed_client()?.delete_assets(&args.ids).await?;
    if args.json {
        println!("{}", serde_json::to_string(&deleted)?);
    } else {
        println!("Deleted {}", count(deleted.deleted, "asset"));
    }
    note_missed(&args.ids, deleted.deleted);
    Ok(())
}

/// Say on stderr how many of the distinct ids asked for the server did not act on.
fn note_missed(ids: &[String], acted_on: i64) {
    let mut asked = ids.to_vec();
    asked.sort();
    asked.dedup();
    let missed = i64::try_from(asked.len()).unwrap_or(i64::MAX).saturating_sub(acted_on);
    if missed > 0 {
        eprintln!(
            "note: {} named no asset of this house (unknown, another house's or already deleted)",
            count(missed, "id")
        );
    }
}

/// `WxH`, or `-` when the header could not be read.
fn dimensions(a: &Asset) -> String {
    match (a.width, a.height) {
        (Some(w), Some(h)) => format!("{w}x{h}"),
        _ => "-".into(),
    }
}

/// The listing as aligned columns.
fn table(assets: &[Asset]) -> String {
    let header = ["ID", "NAME", "KIND", "SKU", "SIZE", "CREATED (UTC)"].map(String::from);
    let rows: Vec<[String; 6]> = assets
        .iter()
        .map(|a| {
            [
                a.id.clone(),
                a.name.clone(),
                a.kind.as_str().into(),
                a.sku.clone().unwrap_or_else(|| "-".into()),
                dimensions(a),
                a.created_at.format("%Y-%m-%d %H:%M").to_string(),
            ]
        })
        .collect();
    let mut widths = [0; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row.iter().zip(widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        out += cells.join("  ").trim_end();
        out += "\n";
    }
    out
}

/// One asset, a field a line.
fn details(a: &Asset) -> String {
    let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let guessed = |g: bool| if g { " (guessed)" } else { "" };
    let mut out = format!("{}  \"{}\"\n", a.id, a.name);
    out += &format!("  kind        {}\n", a.kind.as_str());
    out += &format!("  sku         {}\n", or_dash(&a.sku));
    out += &format!("  collection  {}\n", a.folder_id.as_deref().unwrap_or("(root)"));
    out += &format!("  size        {}, {}\n", dimensions(a), count(a.bytes, "byte"));
    out += &format!("  type        {}\n", a.mime);
    out += &format!("  fit         {}{}\n", or_dash(&a.fit), guessed(a.fit.is_some() && a.fit_guessed));
    out += &format!("  wearer      {}{}\n", or_dash(&a.wearer), guessed(a.wearer.is_some() && a.wearer_guessed));
    out += &format!("  brand mark  {}{}\n", if a.carries_mark { "yes" } else { "no" }, guessed(a.mark_guessed));
    if let Some(group) = &a.group_id {
        out += &format!("  group       {group}\n");
    }
    if let Some(by) = &a.approved_by {
        let at = a.approved_at.map(|t| format!(" at {}", t.to_rfc3339())).unwrap_or_default();
        out += &format!("  approved    by {by}{at}\n");
    }
    if let Some(tool) = &a.tool {
        out += &format!("  made by     {tool}\n");
    }
    out += &format!("  sha256      {}\n", a.sha256);
    out += &format!("  created     {}\n", a.created_at.to_rfc3339());
    out += &format!("  file        {}\n", a.url);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use studio_client::api::AssetKind;

    fn asset(id: &str, name: &str, sku: Option<&str>) -> Asset {
        Asset {
            id: id.into(),
            name: name.into(),
            sku: sku.map(Into::into),
            kind: AssetKind::Jewelry,
            url: format!("/api/toolkit/assets/{id}/file"),
            folder_id: None,
            group_id: None,
            fit: None,
            wearer: None,
            fit_guessed: false,
            wearer_guessed: false,
            carries_mark: false,
            mark_guessed: false,
            mime: "image/png".into(),
            tool: None,
            bytes: 1234,
            width: Some(640),
            height: Some(480),
            sha256: "ab".repeat(32),
            approved_by: None,
            approved_at: None,
            created_at: "2025-01-02T03:04:05Z".parse().unwrap(),
            provenance: None,
        }
    }

    #[test]
    fn table_aligns_columns() {
        let text = table(&[asset("ast_1", "Ring", Some("R-1")), asset("ast_22", "Long necklace", None)]);
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines[0], "ID      NAME           KIND     SKU  SIZE     CREATED (UTC)");
        assert_eq!(lines[1], "ast_1   Ring           jewelry  R-1  640x480  2025-01-02 03:04");
        assert_eq!(lines[2], "ast_22  Long necklace  jewelry  -    640x480  2025-01-02 03:04");
    }

    #[test]
    fn details_name_the_root() {
        let text = details(&asset("ast_1", "Ring", None));
        assert!(text.starts_with("ast_1  \"Ring\"\n"), "{text}");
        assert!(text.contains("  collection  (root)\n"), "{text}");
        assert!(text.contains("  size        640x480, 1234 bytes\n"), "{text}");
    }
}
