//! `studio ai`: the AI utility lanes and text tools (`02-route-groups.md` §4.1, §4.2), 1 token
//! each (refunded on any failure). The image lanes: `remove-bg` (the cutout is saved in the
//! library and to `-o`), `segment` and `depth` (their short-lived result URL is downloaded to
//! `-o`), `detect`, `describe`, `build`, `character` and `face`. The text tools: `prompt build`,
//! `prompt enhance`, `prompt shots` and `prompt keywords`.
//!
//! `segment` and `face` name their image by URL: an asset id is sent as is, a local file is first
//! uploaded to the library (free) and its new asset id sent.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::builder::NonEmptyStringValueParser;
use studio_client::api::{
    AssetKind, DetectItemsResponse, FaceFeaturesRequest, InspirationRequest, PromptBuilderRequest,
    PromptEnhancerRequest, SegmentRequest, ShotPromptsRequest,
};
use studio_client::{Client, UploadOptions};

use super::develop::source;
use super::{Context, Usage, columns, print};

/// The AI utility lanes and text tools (1 token each; a failure costs nothing).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `ai` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// Cut the background away: the RGBA PNG cutout is saved in the library as a new asset
    /// (its id is printed) and written to -o. 1 token, charged only when it lands.
    RemoveBg(Saved),
    /// Cut one thing out of an image by --box, --point or --label (text needs fal): the RGBA
    /// PNG (full frame, transparent outside the object) is written to -o; it is not kept in the
    /// library. 1 token.
    Segment(Segment),
    /// The pieces seen in an image, one line each with its approximate box. 1 token.
    Detect(Image),
    /// What the piece is: a short English name and its library kind. 1 token.
    Describe(Image),
    /// The image's grayscale depth map (near is light), written to -o as PNG; not kept in the
    /// library. 1 token.
    Depth(Saved),
    /// The body of one full-length figure (height, build, presence, posture, hands); nothing
    /// unless the whole figure is seen head to feet. 1 token.
    Build(Image),
    /// The face's fields (age, skin, eyes, hair, extras); nothing when no face is seen. 1 token.
    Character(Image),
    /// Twenty facial-feature keywords, or none when no face is seen. IMAGE is an asset id, or a
    /// local file first uploaded to the library (uploads are free). 1 token.
    Face(Face),
    /// The text tools: write, improve and plan image prompts, find keywords for a mood.
    Prompt(Prompt),
}

/// An image lane that only reads.
#[derive(clap::Args)]
struct Image {
    /// The image: a file (12 MB at most) or a library asset id.
    #[arg(value_name = "FILE", value_parser = NonEmptyStringValueParser::new())]
    file: String,
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// An image lane whose PNG is saved.
#[derive(clap::Args)]
struct Saved {
    /// The image: a file (12 MB at most) or a library asset id.
    #[arg(value_name = "FILE", value_parser = NonEmptyStringValueParser::new())]
    file: String,
    /// Write the PNG here.
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    output: PathBuf,
    /// Print the server's answer as JSON (the PNG is still written to -o).
    #[arg(long)]
    json: bool,
}

/// `studio ai segment`.
#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("target").required(true).multiple(true).args(["bbox", "point", "label"]))]
struct Segment {
    /// The image: an asset id (`ast_…`) used as is, or a local file first uploaded to the
    /// library (uploads are free).
    #[arg(value_name = "FILE", value_parser = NonEmptyStringValueParser::new())]
    file: String,
    /// The box around the thing to cut, in pixels of the upright (EXIF-applied) frame.
    #[arg(long = "box", value_name = "x0,y0,x1,y1", value_parser = parse_box, allow_negative_numbers = true)]
    bbox: Option<Coords>,
    /// A point on the thing to cut, in pixels of the upright (EXIF-applied) frame.
    #[arg(long, value_name = "x,y", value_parser = parse_point)]
    point: Option<Coords>,
    /// What to cut, in words (needs fal on the server).
    #[arg(long, value_name = "TEXT", value_parser = NonEmptyStringValueParser::new())]
    label: Option<String>,
    /// Write the cutout PNG here.
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    output: PathBuf,
    /// Print the server's answer as JSON (the PNG is still written to -o).
    #[arg(long)]
    json: bool,
}

/// `studio ai face`.
#[derive(clap::Args)]
struct Face {
    /// The portrait: an asset id (`ast_…`) used as is, or a local file first uploaded to the
    /// library (uploads are free).
    #[arg(value_name = "IMAGE", value_parser = NonEmptyStringValueParser::new())]
    image: String,
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio ai prompt`.
#[derive(clap::Args)]
struct Prompt {
    #[command(subcommand)]
    command: PromptCommand,
}

/// The `ai prompt` subcommands (1 token each).
#[derive(clap::Subcommand)]
enum PromptCommand {
    /// Write one image prompt for a subject, optionally in a mood.
    Build {
        /// What the picture shows (at most 2,000 characters).
        #[arg(value_name = "SUBJECT", value_parser = NonEmptyStringValueParser::new())]
        subject: String,
        /// The mood.
        #[arg(long, value_name = "V")]
        vibe: Option<String>,
        /// Print the server's answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Improve a prompt, and say what was changed and why.
    Enhance {
        /// The prompt to improve (at most 4,000 characters).
        #[arg(value_name = "PROMPT", value_parser = NonEmptyStringValueParser::new())]
        prompt: String,
        /// What the prompt is for.
        #[arg(long, value_name = "I")]
        intent: Option<String>,
        /// Print the server's answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Plan a shoot: N shots (default 4, at most 12), each a label and an image-model prompt.
    Shots {
        /// What is being shot (at most 2,000 characters).
        #[arg(value_name = "DESCRIPTION", value_parser = NonEmptyStringValueParser::new())]
        description: String,
        /// The art direction.
        #[arg(long, value_name = "D")]
        direction: Option<String>,
        /// How many shots, 1 to 12 [default: 4].
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..=12))]
        count: Option<i64>,
        /// Print the server's answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Keywords for a mood, in groups (palette, texture, light, ...).
    Keywords {
        /// The mood (at most 500 characters).
        #[arg(value_name = "VIBE", value_parser = NonEmptyStringValueParser::new())]
        vibe: String,
        /// Print the server's answer as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The numbers of one `--box` or `--point` (a newtype: clap reads a bare `Vec` as repeated values).
#[derive(Debug, Clone, PartialEq)]
struct Coords(Vec<f64>);

/// `x0,y0,x1,y1` (or a `,`-separated list of `n` numbers in general).
fn numbers(raw: &str, n: usize, shape: &str) -> Result<Vec<f64>, String> {
    let values: Vec<f64> = raw
        .split(',')
        .map(|v| v.trim().parse::<f64>().map_err(|_| format!("expected {shape} (numbers), not `{raw}`")))
        .collect::<Result<_, _>>()?;
    if values.len() != n || values.iter().any(|v| !v.is_finite()) {
        return Err(format!("expected {shape}: {n} numbers, not `{raw}`"));
    }
    Ok(values)
}

fn parse_box(raw: &str) -> Result<Coords, String> {
    let b = numbers(raw, 4, "x0,y0,x1,y1")?;
    if b[2] <= b[0] || b[3] <= b[1] {
        return Err(format!("x1 must exceed x0 and y1 exceed y0, not `{raw}`"));
    }
    Ok(Coords(b))
}

fn parse_point(raw: &str) -> Result<Coords, String> {
    numbers(raw, 2, "x,y").map(Coords)
}

/// `1 token` / `N tokens`.
fn tokens(spent: i64) -> String {
    if spent == 1 { "1 token".into() } else { format!("{spent} tokens") }
}

/// Write `bytes` to `output`, saying which file on failure.
fn write(output: &Path, bytes: &[u8]) -> Result<()> {
    fs::write(output, bytes).with_context(|| format!("cannot write {}", output.display()))
}

/// The `imageUrl` of segment and face: a URL or an asset id as given; a local file is uploaded
/// to the library first (free) and its new asset id used.
async fn image_url(client: &Client, value: &str, kind: AssetKind) -> Result<String> {
    let value = value.trim();
    match fs::metadata(value) {
        Ok(meta) if meta.is_file() => {
            let options = UploadOptions { kind: Some(kind), ..UploadOptions::default() };
            let uploaded = client.upload_file(Path::new(value), &options).await?;
            eprintln!("note: uploaded {value} to the library as {} (uploads are free)", uploaded.asset.id);
            Ok(uploaded.asset.id)
        }
        Ok(_) => Err(Usage(format!("{value}: not a regular file")).into()),
        Err(_) if value.starts_with("http://") || value.starts_with("https://") => Ok(value.to_string()),
        Err(_) if value.starts_with("ast_") && !value.contains(['/', '\\']) => Ok(value.to_string()),
        Err(_) => Err(anyhow::anyhow!(
            "{value}: no such file (give a local image, or an asset id `ast_…` from `studio assets ls`)"
        )),
    }
}

/// The detected pieces as one line each: the label and its box.
fn detected_text(answer: &DetectItemsResponse) -> String {
    if answer.items.is_empty() {
        return format!("No pieces seen ({}).\n", tokens(answer.spent));
    }
    let rows: Vec<Vec<String>> = answer
        .items
        .iter()
        .map(|item| {
            let [ymin, xmin, ymax, xmax] = item.bbox;
            vec![item.label.clone(), format!("{ymin},{xmin},{ymax},{xmax}")]
        })
        .collect();
    columns(&["ITEM", "BOX (ymin,xmin,ymax,xmax of 1000, approximate)"], &rows)
}

/// Fields as `name: value` lines, `-` for an unseen one.
fn fields_text(fields: &[(&str, &str)]) -> String {
    let width = fields.iter().map(|(name, _)| name.len()).max().unwrap_or(0) + 1;
    fields
        .iter()
        .map(|(name, value)| {
            let value = if value.is_empty() { "-" } else { value };
            format!("{:<width$} {value}\n", format!("{name}:"), width = width)
        })
        .collect()
}

/// Run `studio ai`.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    match args.command {
        Command::RemoveBg(s) => {
            let answer = client.remove_background(&source(&s.file)?).await?;
            let written = client
                .download_asset(&answer.asset_id, &s.output)
                .await
                .with_context(|| format!("the cutout is asset {}, but saving it failed", answer.asset_id))?;
            print(s.json, &answer, |a| {
                format!(
                    "Saved the cutout to {} ({written} bytes); it is in the library as {} ({}).\n",
                    s.output.display(),
                    a.asset_id,
                    tokens(a.spent)
                )
            })
        }
        Command::Segment(s) => {
            let image_url = image_url(&client, &s.file, AssetKind::Clothes).await?;
            let req =
                SegmentRequest { image_url, label: s.label, bbox: s.bbox.map(|c| c.0), point: s.point.map(|c| c.0) };
            let answer = client.segment(&req).await?;
            let png = client.fetch_lane_result(&answer.url).await?;
            write(&s.output, &png)?;
            print(s.json, &answer, |a| {
                let [x0, y0, x1, y1] = a.bbox;
                format!(
                    "Saved the cutout to {} ({} bytes); the object spans x {x0}..{x1}, y {y0}..{y1} ({}).\n",
                    s.output.display(),
                    png.len(),
                    tokens(a.spent)
                )
            })
        }
        Command::Depth(s) => {
            let answer = client.depth(&source(&s.file)?).await?;
            let png = client.fetch_lane_result(&answer.url).await?;
            write(&s.output, &png)?;
            print(s.json, &answer, |a| {
                format!("Saved the depth map to {} ({} bytes; {}).\n", s.output.display(), png.len(), tokens(a.spent))
            })
        }
        Command::Detect(i) => {
            let answer = client.detect_items(&source(&i.file)?).await?;
            print(i.json, &answer, detected_text)
        }
        Command::Describe(i) => {
            let answer = client.describe_item(&source(&i.file)?).await?;
            print(i.json, &answer, |a| format!("{} ({})\n", a.name_en, a.kind))
        }
        Command::Build(i) => {
            let answer = client.extract_build(&source(&i.file)?).await?;
            print(i.json, &answer, |a| {
                if !a.figure_detected {
                    return "No whole figure seen (head to feet): nothing read.\n".into();
                }
                let f = &a.fields;
                fields_text(&[
                    ("height", &f.height),
                    ("build", &f.build),
                    ("presence", &f.presence),
                    ("posture", &f.posture),
                    ("hands", &f.hands),
                ])
            })
        }
        Command::Character(i) => {
            let answer = client.extract_character(&source(&i.file)?).await?;
            print(i.json, &answer, |a| {
                if !a.face_detected {
                    return "No face seen: nothing read.\n".into();
                }
                let f = &a.fields;
                fields_text(&[
                    ("age", &f.age),
                    ("skin", &f.skin),
                    ("eyes", &f.eyes),
                    ("hair", &f.hair),
                    ("extras", &f.extras),
                ])
            })
        }
        Command::Face(f) => {
            let image_url = image_url(&client, &f.image, AssetKind::Model).await?;
            let answer = client.face_features(&FaceFeaturesRequest { image_url }).await?;
            print(f.json, &answer, |a| {
                if a.face_detected {
                    format!("{}\n", a.keywords.join(", "))
                } else {
                    "No face seen: no keywords.\n".into()
                }
            })
        }
        Command::Prompt(p) => prompt(&client, p.command).await,
    }
}

async fn prompt(client: &Client, command: PromptCommand) -> Result<()> {
    match command {
        PromptCommand::Build { subject, vibe, json } => {
            let answer = client.prompt_builder(&PromptBuilderRequest { subject, vibe }).await?;
            print(json, &answer, |a| format!("{}\n", a.prompt))
        }
        PromptCommand::Enhance { prompt, intent, json } => {
            let answer = client.prompt_enhancer(&PromptEnhancerRequest { prompt, intent }).await?;
            print(json, &answer, |a| {
                let notes: String = a.notes.iter().map(|n| format!("  - {n}\n")).collect();
                if notes.is_empty() {
                    format!("{}\n", a.improved)
                } else {
                    format!("{}\n\nChanges:\n{notes}", a.improved)
                }
            })
        }
        PromptCommand::Shots { description, direction, count, json } => {
            let answer = client.imagemodel_prompts(&ShotPromptsRequest { description, direction, count }).await?;
            print(json, &answer, |a| {
                a.shots.iter().enumerate().map(|(i, s)| format!("{}. {}: {}\n", i + 1, s.label, s.prompt)).collect()
            })
        }
        PromptCommand::Keywords { vibe, json } => {
            let answer = client.inspiration_keywords(&InspirationRequest { vibe }).await?;
            print(json, &answer, |a| {
                a.categories.iter().map(|c| format!("{}: {}\n", c.category, c.keywords.join(", "))).collect()
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_and_points_parse() {
        assert_eq!(parse_box("1, 2,30,40.5").unwrap(), Coords(vec![1.0, 2.0, 30.0, 40.5]));
        assert!(parse_box("1,2,3").is_err());
        assert!(parse_box("10,2,3,40").is_err(), "x1 before x0");
        assert!(parse_box("a,b,c,d").is_err());
        assert_eq!(parse_point("5,6").unwrap(), Coords(vec![5.0, 6.0]));
        assert!(parse_point("5").is_err());
        assert!(parse_point("inf,1").is_err());
    }

    #[test]
    fn fields_align_and_show_unseen_as_a_dash() {
        assert_eq!(fields_text(&[("age", "30s"), ("extras", "")]), "age:    30s\nextras: -\n");
    }
}
