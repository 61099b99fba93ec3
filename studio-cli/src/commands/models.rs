//! `studio models`: the casting board and its market (spec §4.7). `ls` and `show` read the
//! board, `own` keeps a model of the house's own frames, `set` adds identity sheets and merges
//! traits, `preview` saves an identity frame; `explore` lists the catalog's offerings, `take`
//! takes one, `buy` opens the checkout for a priced model, and `owned` shows what the house
//! holds and its open checkouts.
//!
//! Buying spends money, which only the owner's signed-in session may do (a key never spends
//! money): `buy`, and `take` of a priced offering, sign in for the one call like `studio billing`.
//! A checkout never grants the model: only the provider's signed payment does, so these print
//! the URL to pay and never say the model is bought.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::builder::NonEmptyStringValueParser;
use serde::Serialize;
use studio_client::Client;
use studio_client::api::{
    CastModelRequest, Entitlements, Model, ModelCheckout, ModelPatch, Offering, OfferingList, TakeResponse, TraitValue,
};

use super::billing::absolute;
use super::{Context, SignIn, Usage, columns, count, print};

/// Why `buy` and a priced `take` sign in.
const WHY_SESSION: &str = "a key never spends money; only the owner's session does";

/// The casting board and its market.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `models` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// The board: the house's own models and what it holds, then free, sale and exclusive.
    #[command(alias = "list")]
    Ls(Json),
    /// One model: tier, price, whether develops may cast it, identity frames and traits.
    Show(ModelId),
    /// Keep a model of the house's own frames (free): prints its id (`mdl_…`).
    Own(Own),
    /// Add identity sheets and merge traits into one of the house's own models (free).
    Set(Set),
    /// Open the checkout for a priced model: prints the URL to pay. Signs in for the call: only
    /// the owner buys, and only the payment grants the model.
    Buy(Buy),
    /// The catalog's offerings: free first, then by price.
    Explore(Json),
    /// Take an offering: a free one joins the board now; a priced one opens the checkout
    /// (signs in for the call) and prints the URL to pay.
    Take(Take),
    /// What the house holds from the catalog, and its checkouts still open.
    Owned(Json),
    /// Save one identity frame of a model (from 0: collage, sheets, originals).
    Preview(Preview),
}

/// Only `--json`.
#[derive(clap::Args)]
struct Json {
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
}

/// A model id and `--json`.
#[derive(clap::Args)]
struct ModelId {
    /// The model's id (`mdl_…`), from `studio models ls`.
    #[arg(value_name = "MODEL_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// Print the server's {"model"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio models own`.
#[derive(clap::Args)]
struct Own {
    /// The model's name (1 to 200 characters).
    #[arg(long, value_name = "NAME", value_parser = NonEmptyStringValueParser::new())]
    name: String,
    /// The reference frames: 1 to 24 distinct assets of the library; the first is the one a
    /// develop casts (after the collage).
    #[arg(value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    assets: Vec<String>,
    /// More reference frames, after the positional ones.
    #[arg(long = "asset", value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    more: Vec<String>,
    /// An identity collage: an asset shown and cast first.
    #[arg(long, value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    collage: Option<String>,
    #[command(flatten)]
    traits: Traits,
    /// Print the server's {"model"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `--trait key=value`, repeatable.
#[derive(clap::Args)]
struct Traits {
    /// A trait as KEY=VALUE (`height=178 cm`); a blank value is kept. A key given more than
    /// once becomes a list (`--trait marks=freckles --trait marks="scar, left brow"`).
    #[arg(long = "trait", value_name = "KEY=VALUE", value_parser = parse_trait)]
    pairs: Vec<(String, String)>,
}

/// `studio models set`.
#[derive(clap::Args)]
struct Set {
    /// One of the house's own models (`mdl_…`).
    #[arg(value_name = "MODEL_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// An identity sheet to add (an asset of the library), after the collage and the sheets
    /// already there; repeat for more. A frame already in the identity is skipped.
    #[arg(long = "sheet", value_name = "ASSET_ID", value_parser = NonEmptyStringValueParser::new())]
    sheets: Vec<String>,
    #[command(flatten)]
    traits: Traits,
    /// Print the server's {"model"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio models buy`.
#[derive(clap::Args)]
struct Buy {
    /// The priced model (`mdl_…`), from `studio models ls` or `explore`.
    #[arg(value_name = "MODEL_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"ok", "url", "pending", "already", "model"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio models take`.
#[derive(clap::Args)]
struct Take {
    /// `KIND ID` (the kind is `model`, the only one on offer), or just `ID`.
    #[arg(value_name = "[KIND] ID", num_args = 1..=2, required = true, value_parser = NonEmptyStringValueParser::new())]
    what: Vec<String>,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"ok", "url", "pending"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio models preview`.
#[derive(clap::Args)]
struct Preview {
    /// The model (`mdl_…`).
    #[arg(value_name = "MODEL_ID", value_parser = NonEmptyStringValueParser::new())]
    id: String,
    /// The identity frame, from 0.
    #[arg(value_name = "N", default_value_t = 0)]
    n: usize,
    /// Where to save it: a file, or a directory (then `MODEL_ID-N.EXT` inside it).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    output: PathBuf,
    /// Print {"modelId", "frame", "path", "bytes"} as JSON.
    #[arg(long)]
    json: bool,
}

/// What `preview --json` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Saved {
    model_id: String,
    frame: usize,
    path: String,
    bytes: usize,
}

/// Run one `models` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Ls(a) => {
            let list = ctx.keyed_client()?.models().await?;
            print(a.json, &list, |l| render_board(&l.models))?;
        }
        Command::Show(a) => {
            let shown = ctx.keyed_client()?.model(&a.id).await?;
            print(a.json, &shown, |s| render_model(&s.model))?;
        }
        Command::Own(a) => {
            let asset_ids: Vec<String> = a.assets.into_iter().chain(a.more).collect();
            if asset_ids.is_empty() {
                return Err(Usage("name the reference frames: ASSET_ID... or --asset ASSET_ID".into()).into());
            }
            let req = CastModelRequest { name: a.name, asset_ids, traits: a.traits.map(), collage_asset_id: a.collage };
            let kept = ctx.keyed_client()?.own_model(&req).await?;
            if a.json {
                println!("{}", serde_json::to_string(&kept)?);
            } else {
                let m = &kept.model;
                println!("{}", m.id);
                eprintln!(
                    "Kept \"{}\" ({}); develops cast it by this id (`studio models show {}`).",
                    m.name,
                    count(m.identity_asset_ids.len(), "identity frame"),
                    m.id
                );
            }
        }
        Command::Set(a) => {
            if a.sheets.is_empty() && a.traits.pairs.is_empty() {
                return Err(Usage("nothing to change: give --sheet ASSET_ID and/or --trait KEY=VALUE".into()).into());
            }
            let patch =
                ModelPatch { sheet_asset_ids: (!a.sheets.is_empty()).then_some(a.sheets), traits: a.traits.map() };
            let patched = ctx.keyed_client()?.patch_model(&a.id, &patch).await?;
            print(a.json, &patched, |p| render_model(&p.model))?;
        }
        Command::Buy(a) => {
            let what = format!("buying model {}", a.id);
            let id = a.id.clone();
            let mut answer =
                super::with_session(ctx, a.sign_in, &what, WHY_SESSION, |c| async move { c.checkout_model(&id).await })
                    .await?;
            answer.url = absolute(ctx, &answer.url);
            if a.json {
                println!("{}", serde_json::to_string(&answer)?);
            } else if !answer.url.is_empty() {
                println!("{}", answer.url);
            }
            eprintln!("{}", checkout_note(&answer));
        }
        Command::Explore(a) => {
            let list = ctx.keyed_client()?.explore().await?;
            print(a.json, &list, render_offerings)?;
        }
        Command::Take(a) => take(ctx, a).await?,
        Command::Owned(a) => {
            let held = ctx.keyed_client()?.entitlements().await?;
            print(a.json, &held, render_entitlements)?;
        }
        Command::Preview(a) => preview(&ctx.keyed_client()?, a).await?,
    }
    Ok(())
}

impl Traits {
    /// The pairs as the wire's traits: a key once is a text, a key repeated a list; none is
    /// `None` (nothing to merge).
    fn map(&self) -> Option<BTreeMap<String, TraitValue>> {
        if self.pairs.is_empty() {
            return None;
        }
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (key, value) in &self.pairs {
            values.entry(key.clone()).or_default().push(value.clone());
        }
        let traits = values
            .into_iter()
            .map(|(k, mut v)| {
                let value = if v.len() == 1 { TraitValue::Text(v.remove(0)) } else { TraitValue::List(v) };
                (k, value)
            })
            .collect();
        Some(traits)
    }
}

/// `--trait key=value`: a key of 1 to 64 characters; the value may be blank.
fn parse_trait(raw: &str) -> Result<(String, String), String> {
    let (key, value) = raw.split_once('=').ok_or_else(|| format!("expected KEY=VALUE, not `{raw}`"))?;
    let key = key.trim();
    if key.is_empty() || key.chars().count() > 64 {
        return Err(format!("a trait's key is 1 to 64 characters, in `{raw}`"));
    }
    Ok((key.to_string(), value.trim().to_string()))
}

/// `take [KIND] ID`: a free offering with the key; a priced one in the owner's session.
async fn take(ctx: &Context, a: Take) -> Result<()> {
    let (kind, id) = match a.what.as_slice() {
        [id] => ("model".to_string(), id.clone()),
        [kind, id] => (kind.clone(), id.clone()),
        _ => return Err(Usage("give the offering as KIND ID, or just ID".into()).into()),
    };
    let client = ctx.keyed_client()?;
    // Priced offerings spend money: look the offering up first so a free take never asks for
    // a password. One the catalog does not list goes to the server, which says why.
    let offering = client.explore().await?.offerings.into_iter().find(|o| o.kind == kind && o.id == id);
    let priced = offering.as_ref().is_some_and(|o| o.price_cents > 0 && !o.owned);
    let mut answer = if priced {
        let what = format!("buying {kind} {id}");
        let (k, i) = (kind.clone(), id.clone());
        super::with_session(ctx, a.sign_in, &what, WHY_SESSION, |c| async move { c.take_offering(&k, &i).await })
            .await?
    } else {
        client.take_offering(&kind, &id).await?
    };
    answer.url = absolute(ctx, &answer.url);
    if a.json {
        println!("{}", serde_json::to_string(&answer)?);
    } else if !answer.url.is_empty() {
        println!("{}", answer.url);
    }
    eprintln!("{}", take_note(&answer, offering.as_ref(), &id));
    Ok(())
}

/// What a take did, for stderr.
fn take_note(answer: &TakeResponse, offering: Option<&Offering>, id: &str) -> String {
    let name = offering.map_or_else(|| id.to_string(), |o| format!("\"{}\" ({id})", o.name));
    if answer.pending || !answer.url.is_empty() {
        format!(
            "Open the URL above to pay for {name}. It joins the board when the payment provider confirms \
             the payment to the server (`studio models owned` shows it), not when the browser comes back."
        )
    } else {
        format!("{name} is on the house's board: develops may cast it (`studio models owned` lists it).")
    }
}

/// What a model checkout means, for stderr: never that the model is bought.
fn checkout_note(c: &ModelCheckout) -> String {
    let name = format!("\"{}\" ({})", c.model.name, c.model.id);
    if c.already || c.url.is_empty() {
        return format!("The house already holds {name}: nothing to pay.");
    }
    let open = if c.pending {
        format!("This house's checkout for {name} is already open: the URL above is the same one. ")
    } else {
        format!("Opened a checkout for {name} ({}). ", money(c.model.price_cents, &c.model.currency))
    };
    open + "Open the URL above to pay. The model is the house's only when the payment provider confirms the \
            payment to the server (`studio models owned` shows it), not when the browser comes back."
}

/// Save identity frame `n` of the model.
async fn preview(client: &Client, a: Preview) -> Result<()> {
    let bytes = client.model_preview(&a.id, a.n).await?;
    let path = if a.output.is_dir() {
        a.output.join(format!("{}-{}.{}", a.id, a.n, extension(&bytes)))
    } else {
        a.output.clone()
    };
    write_atomically(&path, &bytes)?;
    if a.json {
        let saved = Saved { model_id: a.id, frame: a.n, path: path.display().to_string(), bytes: bytes.len() };
        println!("{}", serde_json::to_string(&saved)?);
    } else {
        println!("{}", path.display());
        eprintln!("Saved frame {} of {} ({} bytes).", a.n, a.id, bytes.len());
    }
    Ok(())
}

/// Write `bytes` beside `path` (`FILE.part`), then move them into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let part = PathBuf::from(part);
    let written = std::fs::write(&part, bytes).and_then(|()| std::fs::rename(&part, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written.with_context(|| format!("cannot write {}", path.display()))
}

/// The extension an image's first bytes call for.
fn extension(head: &[u8]) -> &'static str {
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

/// `$12.00` for US dollars, else `12.00 EUR`; `-` for nothing.
fn money(cents: i64, currency: &str) -> String {
    if cents == 0 {
        return "-".into();
    }
    let amount = format!("{}.{:02}", cents / 100, (cents % 100).abs());
    if currency.eq_ignore_ascii_case("usd") {
        format!("${amount}")
    } else {
        format!("{amount} {}", currency.to_uppercase())
    }
}

/// Where the model stands for this house: `yours`, `held`, `free` (cast it without taking it)
/// or `to buy`.
fn standing(m: &Model) -> &'static str {
    if m.mine {
        "yours"
    } else if m.owned {
        "held"
    } else if m.usable {
        "free"
    } else {
        "to buy"
    }
}

/// The board as a table.
fn render_board(models: &[Model]) -> String {
    if models.is_empty() {
        return "No models: keep one of the house's frames with `studio models own --name NAME ASSET_ID...`, or \
                take one from `studio models explore`.\n"
            .into();
    }
    let rows: Vec<Vec<String>> = models
        .iter()
        .map(|m| {
            let frames = if m.mine { m.identity_asset_ids.len() } else { m.preview_urls.len() };
            vec![
                m.id.clone(),
                m.name.chars().take(40).collect(),
                m.tier.clone(),
                money(m.price_cents, &m.currency),
                standing(m).into(),
                frames.to_string(),
            ]
        })
        .collect();
    columns(&["ID", "NAME", "TIER", "PRICE", "STANDING", "FRAMES"], &rows)
}

/// One model in a few lines.
fn render_model(m: &Model) -> String {
    let cast = if m.usable { "develops may cast it" } else { "develops may not cast it until the house holds it" };
    let mut out = format!("{} \"{}\" ({})\n", m.id, m.name, m.tier);
    out += &format!("  standing  {}: {cast}\n", standing(m));
    if m.price_cents > 0 {
        let exclusive = if m.exclusive_yours { " (an exclusive face this house holds)" } else { "" };
        out += &format!("  price     {}{exclusive}\n", money(m.price_cents, &m.currency));
    }
    if !m.note.is_empty() {
        out += &format!("  note      {}\n", m.note);
    }
    if m.mine {
        let mut identity = Vec::new();
        if let Some(c) = &m.collage_asset_id {
            identity.push(format!("collage {c}"));
        }
        if !m.sheet_asset_ids.is_empty() {
            identity.push(format!("sheets {}", m.sheet_asset_ids.join(" ")));
        }
        identity.push(format!("originals {}", m.asset_ids.join(" ")));
        out += &format!("  identity  {}: {}\n", count(m.identity_asset_ids.len(), "frame"), identity.join("; "));
    } else {
        out += &format!("  identity  {}\n", count(m.preview_urls.len(), "frame"));
    }
    if m.traits.is_empty() {
        out += "  traits    none\n";
    } else {
        out += "  traits\n";
        for (key, value) in &m.traits {
            let value = match value {
                TraitValue::Text(t) => t.clone(),
                TraitValue::List(l) => l.join("; "),
            };
            out += &format!("    {key}: {value}\n");
        }
    }
    if !m.cover_url.is_empty() {
        out += &format!("  cover     {}\n", m.cover_url);
    }
    out += &format!("  created   {}\n", m.created_at.format("%Y-%m-%d %H:%M"));
    out
}

/// The catalog's offerings as a table.
fn render_offerings(list: &OfferingList) -> String {
    if list.offerings.is_empty() {
        return "The catalog offers nothing to this house now.\n".into();
    }
    let rows: Vec<Vec<String>> = list
        .offerings
        .iter()
        .map(|o| {
            let tier = if o.exclusive {
                "exclusive"
            } else if o.price_cents > 0 {
                "sale"
            } else {
                "free"
            };
            vec![
                o.kind.clone(),
                o.id.clone(),
                o.name.chars().take(40).collect(),
                tier.into(),
                money(o.price_cents, &o.currency),
                if o.owned { "held".into() } else { String::new() },
                o.note.chars().take(60).collect(),
            ]
        })
        .collect();
    let mut out = columns(&["KIND", "ID", "NAME", "TIER", "PRICE", "HELD", "NOTE"], &rows);
    out += "Take one with `studio models take ID` (a priced one prints the checkout URL; the owner signs in).\n";
    out
}

/// Holdings and open checkouts.
fn render_entitlements(e: &Entitlements) -> String {
    let mut out = String::new();
    if e.holdings.is_empty() {
        out += "Holdings: none\n";
    } else {
        let rows: Vec<Vec<String>> = e
            .holdings
            .iter()
            .map(|h| {
                let source = if h.exclusive { format!("{} (exclusive)", h.source) } else { h.source.clone() };
                vec![
                    h.offering_id.clone(),
                    h.name.chars().take(40).collect(),
                    source,
                    money(h.price_cents, &h.currency),
                    h.acquired_at.format("%Y-%m-%d %H:%M").to_string(),
                ]
            })
            .collect();
        out += &format!("Holdings ({}):\n", e.holdings.len());
        out += &columns(&["OFFERING", "NAME", "SOURCE", "PAID", "ACQUIRED"], &rows);
    }
    if e.open.is_empty() {
        out += "Open checkouts: none\n";
    } else {
        let rows: Vec<Vec<String>> = e
            .open
            .iter()
            .map(|o| {
                let url = if o.checkout_url.is_empty() { "(being created)".into() } else { o.checkout_url.clone() };
                vec![o.offering_id.clone(), o.expires_at.format("%Y-%m-%d %H:%M").to_string(), url]
            })
            .collect();
        out += &format!("Open checkouts ({}), granted only when paid:\n", e.open.len());
        out += &columns(&["OFFERING", "EXPIRES", "PAY AT"], &rows);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traits_are_key_value_and_a_repeated_key_is_a_list() {
        assert_eq!(parse_trait("height = 178 cm"), Ok(("height".into(), "178 cm".into())));
        assert_eq!(parse_trait("hands="), Ok(("hands".into(), String::new())));
        assert_eq!(parse_trait("note=a=b"), Ok(("note".into(), "a=b".into())));
        assert!(parse_trait("height").is_err() && parse_trait("=x").is_err());
        let pairs = vec![
            ("marks".to_string(), "freckles".to_string()),
            ("height".to_string(), "178 cm".to_string()),
            ("marks".to_string(), "scar".to_string()),
        ];
        let map = Traits { pairs }.map().unwrap();
        assert_eq!(map["height"], TraitValue::Text("178 cm".into()));
        assert_eq!(map["marks"], TraitValue::List(vec!["freckles".into(), "scar".into()]));
        assert_eq!(Traits { pairs: vec![] }.map(), None);
    }

    #[test]
    fn money_reads_as_a_price() {
        assert_eq!(money(0, "usd"), "-");
        assert_eq!(money(1250, "usd"), "$12.50");
        assert_eq!(money(900, "eur"), "9.00 EUR");
    }

    #[test]
    fn frames_get_the_extension_of_their_bytes() {
        assert_eq!(extension(b"\x89PNG\r\n\x1a\n"), "png");
        assert_eq!(extension(b"RIFF\0\0\0\0WEBPVP8 "), "webp");
        assert_eq!(extension(b"\xff\xd8\xff"), "jpg");
    }
}
