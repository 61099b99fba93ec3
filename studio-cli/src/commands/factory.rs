//! `studio factory`: from a pile of pieces to a batch of draft looks (spec §4.5). `plan`
//! proposes looks and prices their develops, writing nothing; `run` drafts the looks of a plan
//! (or of a looks file) as one batch, spending nothing. See docs/factory.md.

use std::collections::HashSet;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, anyhow};
use clap::builder::NonEmptyStringValueParser;
use serde_json::Value;
use studio_client::api::{
    Background, FactoryLookRequest, FactoryPlan, FactoryPlanRequest, FactoryRunRequest, FactoryRunResponse, GroupedBy,
    Quality,
};

use super::develop::Tier;
use super::{Context, Usage, columns, count};

/// Plan looks from pieces, then draft them.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `factory` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// Propose looks from pieces (a hand-made group, else a shared SKU, else the piece alone)
    /// with what developing them would cost; writes nothing and holds nothing.
    Plan(Plan),
    /// Draft the looks of a plan (`plan --json`) or of a looks file as one batch; spends nothing.
    Run(Run),
}

/// `studio factory plan`.
#[derive(clap::Args)]
struct Plan {
    /// The pieces' asset ids (see `studio assets ls`), at most 200.
    #[arg(required = true, value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    ids: Vec<String>,
    /// Price at this quality [default: the standing preset's].
    #[arg(long, value_enum, value_name = "1k|2k|4k")]
    quality: Option<Tier>,
    /// Print the server's {"preset", "looks", "truncated", "modelReady", "cost", "balance"} as
    /// JSON: what `studio factory run` reads.
    #[arg(long)]
    json: bool,
}

/// `studio factory run`.
#[derive(clap::Args)]
struct Run {
    /// A plan (`studio factory plan --json`), or looks JSON: an array of {name, itemAssetIds,
    /// background, variationKeys}, or {"looks": [...]}. `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// The model every look wears [default: the plan's standing preset's].
    #[arg(long, value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    model: Option<String>,
    /// One of the composer's presets [default: the plan's standing preset's].
    #[arg(long, value_name = "AESTHETIC", value_parser = NonEmptyStringValueParser::new())]
    aesthetic: Option<String>,
    /// The quality planned for the batch [default: the quality the plan priced, else the standing
    /// preset's].
    #[arg(long, value_enum, value_name = "1k|2k|4k")]
    quality: Option<Tier>,
    /// The brand the looks are for.
    #[arg(long, value_name = "BRAND_ID", value_parser = NonEmptyStringValueParser::new())]
    brand: Option<String>,
    /// Print the server's {"batchId", "quality", "looks": [{"id", "name", "variationKeys"}]} as
    /// JSON.
    #[arg(long)]
    json: bool,
}

/// Run one `factory` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Plan(a) => plan(ctx, a).await,
        Command::Run(a) => draft(ctx, a).await,
    }
}

async fn plan(ctx: &Context, args: Plan) -> Result<()> {
    let client = ctx.keyed_client()?;
    let req = FactoryPlanRequest { asset_ids: Some(args.ids.clone()), quality: args.quality.map(Quality::from) };
    let plan = client.factory_plan(&req).await?;
    if args.json {
        println!("{}", serde_json::to_string(&plan)?);
    } else {
        print!("{}", render_plan(&plan, &args.ids));
    }
    Ok(())
}

async fn draft(ctx: &Context, args: Run) -> Result<()> {
    let client = ctx.keyed_client()?;
    let input = parse_input(&read_input(args.file.as_deref())?)?;
    let req = FactoryRunRequest {
        looks: Some(input.looks),
        model_asset_id: args.model.or(input.model),
        aesthetic: args.aesthetic.or(input.aesthetic),
        quality: args.quality.map(Quality::from).or(input.quality),
        brand_id: args.brand,
    };
    if req.model_asset_id.is_none() {
        return Err(Usage("no model to wear the looks: give --model ASSET_ID (the input names none)".into()).into());
    }
    let drafted = client.factory_run(&req).await?;
    if args.json {
        println!("{}", serde_json::to_string(&drafted)?);
    } else {
        print!("{}", render_run(&drafted));
    }
    Ok(())
}

/// The file's text, or stdin's for none or `-` (refused on a terminal, where nothing is piped).
fn read_input(file: Option<&Path>) -> Result<String> {
    match file.filter(|f| *f != Path::new("-")) {
        Some(path) => std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display())),
        None => {
            let mut stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err(Usage(
                    "give a FILE, or pipe a plan in: `studio factory plan IDS... --json | studio factory run`".into(),
                )
                .into());
            }
            let mut text = String::new();
            stdin.read_to_string(&mut text).context("cannot read stdin")?;
            Ok(text)
        }
    }
}

/// What an input holds: the looks and, from a plan, the defaults it was made with.
#[derive(Debug, PartialEq)]
struct Input {
    looks: Vec<FactoryLookRequest>,
    model: Option<String>,
    aesthetic: Option<String>,
    quality: Option<Quality>,
}

/// A plan, `{"looks": [...]}` or a bare array of looks.
fn parse_input(text: &str) -> Result<Input> {
    let value: Value = serde_json::from_str(text).context("the input is not JSON")?;
    let (looks, whole) = match value {
        Value::Array(_) => (value, None),
        Value::Object(mut o) if o.contains_key("looks") => (o.remove("looks").unwrap_or_default(), Some(o)),
        _ => return Err(anyhow!("the input is neither a plan nor looks: expected an array or {{\"looks\": [...]}}")),
    };
    let looks: Vec<FactoryLookRequest> =
        serde_json::from_value(looks).context("the looks are not {name, itemAssetIds, background, variationKeys}")?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let preset = whole.as_ref().and_then(|o| o.get("preset"));
    let priced = whole.as_ref().and_then(|o| o.get("cost")).and_then(|c| c.get("quality"));
    let quality = text(priced.or_else(|| preset.and_then(|p| p.get("quality")))).and_then(|q| q.parse().ok());
    Ok(Input {
        looks,
        model: text(preset.and_then(|p| p.get("modelAssetId"))),
        aesthetic: text(preset.and_then(|p| p.get("aesthetic"))),
        quality,
    })
}

fn background(b: &Background) -> String {
    match b {
        Background::Preset { value } => value.clone(),
        Background::Asset { asset_id } => format!("asset {asset_id}"),
    }
}

/// The proposed looks as a table, then the frames, the cost, the model and what was left out.
fn render_plan(plan: &FactoryPlan, asked: &[String]) -> String {
    let mut out = String::new();
    if plan.looks.is_empty() {
        out += "No looks proposed.\n";
    } else {
        let rows: Vec<Vec<String>> = plan
            .looks
            .iter()
            .enumerate()
            .map(|(n, l)| {
                let by = match l.grouped_by {
                    GroupedBy::Group => "group",
                    GroupedBy::Sku => "sku",
                    GroupedBy::Piece => "piece",
                };
                let pieces: Vec<String> =
                    l.item_asset_ids.iter().map(|i| format!("{} ({})", i.asset_id, i.role)).collect();
                vec![(n + 1).to_string(), l.name.clone(), by.to_string(), pieces.join(", ")]
            })
            .collect();
        out += &columns(&["#", "NAME", "BY", "PIECES"], &rows);
    }
    let p = &plan.preset;
    out += &format!(
        "Each look: 1 develop-lock + {} ({}), {} on {}.\n",
        count(p.variation_keys.len(), "variation"),
        p.variation_keys.join(", "),
        p.aesthetic,
        background(&p.background)
    );
    let c = &plan.cost;
    let short = c.total - plan.balance;
    out += &format!(
        "Cost: {} × {} = {} × {} tokens ({}) = {} tokens; {} spendable now{}.\n",
        count(plan.looks.len(), "look"),
        count(c.frames_per_look, "frame"),
        count(c.frames, "frame"),
        c.per_frame,
        c.quality,
        c.total,
        plan.balance,
        if short > 0 { format!(" ({short} short)") } else { String::new() }
    );
    out += &match (&p.model_asset_id, plan.model_ready) {
        (Some(id), true) => format!("Model: {id} (the standing preset's).\n"),
        (Some(id), false) => {
            format!(
                "Model: the standing preset's {id} is gone from the library; give `studio factory run --model ASSET_ID`.\n"
            )
        }
        (None, _) => "Model: the standing preset names none; give `studio factory run --model ASSET_ID`.\n".into(),
    };
    if plan.truncated {
        let placed: HashSet<&str> =
            plan.looks.iter().flat_map(|l| &l.item_asset_ids).map(|i| i.asset_id.as_str()).collect();
        let left: HashSet<&str> = asked.iter().map(|a| a.trim()).filter(|a| !placed.contains(a)).collect();
        let left = if left.len() == 1 { "1 piece was".to_string() } else { format!("{} pieces were", left.len()) };
        out += &format!("Only the first {} are proposed; {left} left out: plan them again.\n", plan.looks.len());
    }
    out += "Nothing was written or held; `studio factory plan ... --json | studio factory run` drafts these looks.\n";
    out
}

/// The drafted looks as a table under the batch line.
fn render_run(r: &FactoryRunResponse) -> String {
    let mut out = format!(
        "Drafted {} in batch {} ({} planned); nothing was spent.\n",
        count(r.looks.len(), "look"),
        r.batch_id,
        r.quality
    );
    let rows: Vec<Vec<String>> =
        r.looks.iter().map(|l| vec![l.id.clone(), l.name.clone(), l.variation_keys.join(", ")]).collect();
    out += &columns(&["ID", "NAME", "VARIATIONS"], &rows);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_brings_its_defaults_and_a_bare_array_none() {
        let plan = json!({
            "preset": { "modelAssetId": "ast_m", "aesthetic": "noir", "quality": "2k" },
            "looks": [{ "name": "Look", "itemAssetIds": [{ "assetId": "ast_1", "role": "top" }],
                        "background": { "kind": "preset", "value": "white" }, "variationKeys": ["back"],
                        "groupedBy": "piece" }],
            "cost": { "quality": "4k" },
        });
        let input = parse_input(&plan.to_string()).unwrap();
        assert_eq!(input.looks.len(), 1);
        assert_eq!(input.looks[0].name.as_deref(), Some("Look"));
        assert_eq!(
            (input.model.as_deref(), input.aesthetic.as_deref(), input.quality),
            (Some("ast_m"), Some("noir"), Some(Quality::K4))
        );
        let bare = parse_input(&json!([{ "name": "Only" }]).to_string()).unwrap();
        assert_eq!((bare.looks.len(), bare.model, bare.quality), (1, None, None));
        assert!(parse_input("{\"preset\": {}}").is_err());
        assert!(parse_input("[{\"name\": 3}]").is_err());
    }
}
