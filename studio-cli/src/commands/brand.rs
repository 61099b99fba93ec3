//! `studio brand`: the house's brand profile and marks (spec §2.5, §2.6, §4.3). `show` prints
//! the profile, the clause develops carry and the colour and metadata policies; `set` changes
//! fields of it (`--colour-output keep|srgb` the space develops and packs are written in,
//! `--metadata-output rights|all|none` what they keep of their inputs' EXIF, IPTC and XMP); `dna` reads the profile
//! from 1 to 10 images (the first read is free, later ones cost 2 tokens); `marks ls|add|set|rm`
//! keeps the renditions of the house's logo.

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{
    BrandColourPatch, BrandMetadataPatch, BrandPatch, BrandProfile, ColourOutput, CreateMarkRequest, Mark, MarkList,
    MarkPatch, MetadataOutput, Riding, SignatureKeyword,
};

use super::develop::source;
use super::{Context, Usage, columns, print};

/// The house's brand profile, its DNA read and its marks.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `brand` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// The profile, the clause develops carry and the colour and metadata policies.
    Show(Json),
    /// Change fields of the profile; each given one replaces the stored one (then the server
    /// clamps the whole, docs/brand.md). `--vibe ''` empties a list.
    Set(Set),
    /// Read the profile from 1 to 10 images (files or asset ids): the first read is free, later
    /// ones cost 2 tokens; a failed read costs nothing.
    Dna(Dna),
    /// The renditions of the house's mark: list, register, change, unregister.
    Marks(Marks),
}

/// Only `--json`.
#[derive(clap::Args)]
struct Json {
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio brand set`.
#[derive(clap::Args)]
struct Set {
    /// The house's vision, in English.
    #[arg(long, value_name = "TEXT")]
    vision: Option<String>,
    /// Mood words, comma-separated or repeated.
    #[arg(long, value_name = "WORD", value_delimiter = ',')]
    vibe: Option<Vec<String>>,
    /// Colours (`#rrggbb` or a name), comma-separated or repeated.
    #[arg(long, value_name = "COLOUR", value_delimiter = ',')]
    palette: Option<Vec<String>>,
    /// A signature detail as CATEGORY=PHRASE (or a bare phrase); repeat for more. Replaces them all.
    #[arg(long = "keyword", value_name = "CATEGORY=PHRASE")]
    keywords: Option<Vec<String>>,
    /// Whether develops carry the clause.
    #[arg(long, value_name = "on|off", value_parser = parse_switch)]
    inject: Option<bool>,
    /// The colour space develops and packs' resized entries are written in: `keep` (an RGB
    /// input's own, its profile embedded) or `srgb` (the default).
    #[arg(long, value_name = "keep|srgb", value_parser = parse_colour_output)]
    colour_output: Option<ColourOutput>,
    /// What develops and packs' resized entries keep of their input's EXIF, IPTC and XMP:
    /// `rights` (creator, copyright, credit line, usage terms; the default), `all` or `none`.
    #[arg(long, value_name = "rights|all|none", value_parser = parse_metadata_output)]
    metadata_output: Option<MetadataOutput>,
    /// Print the server's {"ok", "profile"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio brand dna`.
#[derive(clap::Args)]
struct Dna {
    /// 1 to 10 images: files, or library asset ids.
    #[arg(value_name = "IMAGE", required = true, num_args = 1..=10)]
    images: Vec<String>,
    /// The house's own mood words, comma-separated or repeated.
    #[arg(long, value_name = "WORD", value_delimiter = ',')]
    vibe: Vec<String>,
    /// What the house makes.
    #[arg(long, value_name = "TEXT")]
    products: Option<String>,
    /// Print the server's {"ok", "profile", "charged"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio brand marks`.
#[derive(clap::Args)]
struct Marks {
    #[command(subcommand)]
    command: MarkCommand,
}

/// The `brand marks` subcommands.
#[derive(clap::Subcommand)]
enum MarkCommand {
    /// The house's marks, the collection's with --collection, and which set rides.
    #[command(alias = "list")]
    Ls {
        /// A collection (folder) id.
        #[arg(long, value_name = "FOLDER_ID", value_parser = NonEmptyStringValueParser::new())]
        collection: Option<String>,
        /// Print the server's {"house", "collection", "riding"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Register an uploaded image (`studio upload`) as a mark; prints its id.
    Add {
        /// The asset id.
        #[arg(value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
        asset: String,
        /// What it is made of or printed as (woven label, gold foil, ...).
        #[arg(long, value_name = "TEXT")]
        material: String,
        /// Where it sits on a frame.
        #[arg(long, value_name = "TEXT")]
        placement: Option<String>,
        /// A note.
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
        /// Lower rides first (default 0).
        #[arg(long = "sort", value_name = "N", allow_negative_numbers = true)]
        sort_order: Option<i64>,
        /// Register for this collection (folder) instead of the house.
        #[arg(long, value_name = "FOLDER_ID", value_parser = NonEmptyStringValueParser::new())]
        collection: Option<String>,
        /// Print the server's {"mark"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change a mark.
    Set {
        /// The mark's id (`mark_…`).
        #[arg(value_name = "MARK_ID", value_parser = NonEmptyStringValueParser::new())]
        id: String,
        /// New material (cannot be cleared).
        #[arg(long, value_name = "TEXT")]
        material: Option<String>,
        /// New placement.
        #[arg(long, value_name = "TEXT", conflicts_with = "clear_placement")]
        placement: Option<String>,
        /// Clear the placement.
        #[arg(long)]
        clear_placement: bool,
        /// New note.
        #[arg(long, value_name = "TEXT", conflicts_with = "clear_note")]
        note: Option<String>,
        /// Clear the note.
        #[arg(long)]
        clear_note: bool,
        /// New order (lower rides first).
        #[arg(long = "sort", value_name = "N", allow_negative_numbers = true)]
        sort_order: Option<i64>,
        /// Print the server's {"mark"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Unregister a mark; its image stays in the library.
    Rm {
        /// The mark's id.
        #[arg(value_name = "MARK_ID", value_parser = NonEmptyStringValueParser::new())]
        id: String,
        /// Print the server's {"ok", "id"} as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn parse_switch(raw: &str) -> Result<bool, String> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err("on or off".into()),
    }
}

fn parse_colour_output(raw: &str) -> Result<ColourOutput, String> {
    ColourOutput::parse(raw.trim().to_ascii_lowercase().as_str()).ok_or_else(|| "keep or srgb".into())
}

fn parse_metadata_output(raw: &str) -> Result<MetadataOutput, String> {
    MetadataOutput::parse(raw.trim().to_ascii_lowercase().as_str()).ok_or_else(|| "rights, all or none".into())
}

fn keyword(raw: &str) -> SignatureKeyword {
    match raw.split_once('=') {
        Some((category, phrase)) => SignatureKeyword { category: category.trim().into(), phrase: phrase.trim().into() },
        None => SignatureKeyword { category: String::new(), phrase: raw.trim().into() },
    }
}

/// The profile as lines of `field: value`.
fn profile_text(p: &BrandProfile) -> String {
    let keywords: Vec<String> = p.signature_keywords.iter().map(|k| format!("{}: {}", k.category, k.phrase)).collect();
    let or_none = |s: String| if s.is_empty() { "-".to_string() } else { s };
    format!(
        "vision:   {}\nvibe:     {}\npalette:  {}\nkeywords: {}\ninject:   {}\ncolour:   {}\nmetadata: {}\nreads:    {}\nclause:   {}\n",
        or_none(p.vision_en.clone()),
        or_none(p.vibe.join(", ")),
        or_none(p.palette.join(", ")),
        or_none(keywords.join("; ")),
        if p.inject_enabled { "on" } else { "off" },
        p.colour.output,
        p.metadata.output,
        p.dna_runs,
        or_none(p.clause.clone()),
    )
}

fn marks_table(marks: &[Mark]) -> String {
    let rows: Vec<Vec<String>> = marks
        .iter()
        .map(|m| {
            vec![
                m.id.clone(),
                m.sort_order.to_string(),
                m.material.clone(),
                m.placement.clone().unwrap_or_default(),
                m.filename.clone(),
                m.asset_id.clone(),
            ]
        })
        .collect();
    columns(&["ID", "SORT", "MATERIAL", "PLACEMENT", "FILE", "ASSET"], &rows)
}

fn list_text(list: &MarkList) -> String {
    let mut out = String::new();
    let riding = match list.riding {
        Riding::House => "house",
        Riding::Collection => "collection",
    };
    out.push_str(&format!("House marks ({}):\n", list.house.len()));
    if !list.house.is_empty() {
        out.push_str(&marks_table(&list.house));
    }
    if !list.collection.is_empty() {
        out.push_str(&format!("Collection marks ({}):\n", list.collection.len()));
        out.push_str(&marks_table(&list.collection));
    }
    out.push_str(&format!("Riding: {riding}\n"));
    out
}

/// Run `studio brand`.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::Show(Json { json }) => {
            let answer = client.brand_profile().await?;
            print(json, &answer, |a| profile_text(&a.profile))
        }
        Command::Set(s) => {
            let patch = BrandPatch {
                vision_en: s.vision,
                vibe: s.vibe,
                palette: s.palette,
                signature_keywords: s.keywords.map(|k| k.iter().map(|k| keyword(k)).collect()),
                inject_enabled: s.inject,
                colour: s.colour_output.map(BrandColourPatch::from),
                metadata: s.metadata_output.map(BrandMetadataPatch::from),
            };
            if patch == BrandPatch::default() {
                return Err(Usage(
                    "say what to change: --vision, --vibe, --palette, --keyword, --inject, --colour-output or --metadata-output"
                        .into(),
                )
                .into());
            }
            let answer = client.patch_brand(&patch).await?;
            print(s.json, &answer, |a| profile_text(&a.profile))
        }
        Command::Dna(d) => {
            let images = d.images.iter().map(|i| source(i)).collect::<Result<Vec<_>>>()?;
            let answer = client.brand_dna(&images, &d.vibe, d.products.as_deref()).await?;
            print(d.json, &answer, |a| format!("{}charged:  {} tokens\n", profile_text(&a.profile), a.charged))
        }
        Command::Marks(m) => marks(&client, m.command).await,
    }
}

async fn marks(client: &studio_client::Client, command: MarkCommand) -> Result<()> {
    match command {
        MarkCommand::Ls { collection, json } => {
            let list = client.brand_marks(collection.as_deref()).await?;
            print(json, &list, list_text)
        }
        MarkCommand::Add { asset, material, placement, note, sort_order, collection, json } => {
            let req = CreateMarkRequest {
                asset_id: Some(asset),
                material: Some(material),
                placement,
                note,
                sort_order,
                collection_id: collection,
            };
            let answer = client.create_mark(&req).await?;
            print(json, &answer, |a| format!("{}\n", a.mark.id))
        }
        MarkCommand::Set { id, material, placement, clear_placement, note, clear_note, sort_order, json } => {
            let patch = MarkPatch {
                material: material.map(Some),
                placement: if clear_placement { Some(None) } else { placement.map(Some) },
                note: if clear_note { Some(None) } else { note.map(Some) },
                sort_order,
            };
            if patch == MarkPatch::default() {
                return Err(Usage(
                    "say what to change: --material, --placement, --clear-placement, --note, --clear-note or --sort"
                        .into(),
                )
                .into());
            }
            let answer = client.update_mark(&id, &patch).await?;
            print(json, &answer, |a| marks_table(std::slice::from_ref(&a.mark)))
        }
        MarkCommand::Rm { id, json } => {
            let gone = client.delete_mark(&id).await?;
            print(json, &gone, |g| format!("Unregistered mark {} (its image stays in the library).\n", g.id))
        }
    }
}
