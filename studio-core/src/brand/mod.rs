//! Brand (§2.5, §2.6, §4.3): the view `studio.brand()`. The house's visual profile, read and
//! patched here; the clause develops carry (`clause`) and the colour and metadata policies they
//! and packs are written under (`colour`, `metadata`); the clamps a patch and a read's answer both go through (`clamp`);
//! the paid DNA read in `dna.rs`; marks in `marks.rs`. Every choice the spec leaves open is in
//! docs/brand.md.

use crate::ids::OrgId;
use std::collections::{BTreeMap, BTreeSet};

use crate::api::{
    BrandColour, BrandMetadata, BrandPatch, BrandProfile, BrandResponse, ColourOutput, MetadataOutput, SignatureKeyword,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::images::OutputSpace;
use crate::storage::{BrandFields, BrandFieldsPatch, BrandProfileRow};

mod dna;
mod marks;

pub use dna::{DNA_PRICE, DnaForm, MAX_DNA_IMAGES, MAX_DNA_SET_MB};

/// The option name a develop's job carries the clause under.
pub(crate) const CLAUSE_PARAM: &str = "brandClause";
/// The option name a develop's job carries the house's colour policy under (set only for
/// `keep`; the local provider reads it).
pub(crate) const COLOUR_PARAM: &str = crate::providers::local::COLOUR_OUTPUT;
/// The option name a develop's job carries the house's metadata policy under (set only when it
/// is not `rights`, the default; the runner reads it when it files the frame).
pub(crate) const METADATA_PARAM: &str = "metadataOutput";
/// Longest vision kept.
const MAX_VISION_CHARS: usize = 500;
/// Most mood words, and the longest.
const MAX_VIBE: usize = 8;
const MAX_VIBE_CHARS: usize = 32;
/// Most colours, and the longest colour name.
const MAX_PALETTE: usize = 8;
const MAX_COLOUR_NAME_CHARS: usize = 24;
/// Most signature details, and the longest category and phrase.
const MAX_KEYWORDS: usize = 10;
const MAX_CATEGORY_CHARS: usize = 24;
const MAX_PHRASE_CHARS: usize = 60;
/// The category of a signature detail given none.
const DEFAULT_CATEGORY: &str = "signature";
/// The clause never grows past a develop option's limit.
const MAX_CLAUSE_CHARS: usize = 2000;

crate::studio::view! {
    /// The brand's operations: `studio.brand()`.
    Brand over BrandStore
}

/// The profile's content, clamped: what a patch and a read's answer both become.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Profile {
    pub(crate) vision_en: String,
    pub(crate) vibe: Vec<String>,
    pub(crate) palette: Vec<String>,
    pub(crate) signature_keywords: Vec<SignatureKeyword>,
    pub(crate) inject_enabled: bool,
}

/// Whitespace runs become one space; trimmed; at most `max` characters.
fn squeeze(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.chars().take(max).collect::<String>().trim_end().to_string()
}

/// Squeezed, empties dropped, first spelling of each (ignoring case) kept, at most `most`.
fn words(items: &[String], max_chars: usize, most: usize) -> Vec<String> {
    let mut seen = BTreeSet::new();
    items
        .iter()
        .map(|s| squeeze(s, max_chars))
        .filter(|s| !s.is_empty() && seen.insert(s.to_lowercase()))
        .take(most)
        .collect()
}

/// A colour as kept: `#rgb` / `#rrggbb` become lower-case `#rrggbb`; a name of letters,
/// spaces and hyphens (at most 24 characters) becomes lower case; anything else is dropped.
fn colour(raw: &str) -> Option<String> {
    let raw = squeeze(raw, 64);
    if let Some(hex) = raw.strip_prefix('#') {
        if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let hex = hex.to_ascii_lowercase();
        return match hex.len() {
            6 => Some(format!("#{hex}")),
            3 => Some(format!("#{}", hex.chars().flat_map(|c| [c, c]).collect::<String>())),
            _ => None,
        };
    }
    let name = raw.to_lowercase();
    let fits = !name.is_empty()
        && name.chars().count() <= MAX_COLOUR_NAME_CHARS
        && name.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-');
    fits.then_some(name)
}

/// Clamp a profile's content as a read's answer is clamped (docs/brand.md).
pub(crate) fn clamp(p: Profile) -> Profile {
    let mut seen = BTreeSet::new();
    let palette = p.palette.iter().filter_map(|c| colour(c)).filter(|c| seen.insert(c.clone())).take(MAX_PALETTE);
    let palette = palette.collect();
    let mut seen = BTreeSet::new();
    let signature_keywords = p
        .signature_keywords
        .iter()
        .filter_map(|k| {
            let phrase = squeeze(&k.phrase, MAX_PHRASE_CHARS);
            let category = squeeze(&k.category, MAX_CATEGORY_CHARS).to_lowercase();
            let category = if category.is_empty() { DEFAULT_CATEGORY.to_string() } else { category };
            (!phrase.is_empty()).then_some(SignatureKeyword { category, phrase })
        })
        .filter(|k| seen.insert((k.category.clone(), k.phrase.to_lowercase())))
        .take(MAX_KEYWORDS)
        .collect();
    Profile {
        vision_en: squeeze(&p.vision_en, MAX_VISION_CHARS),
        vibe: words(&p.vibe, MAX_VIBE_CHARS, MAX_VIBE),
        palette,
        signature_keywords,
        inject_enabled: p.inject_enabled,
    }
}

/// The clause generators get (docs/brand.md): the non-empty parts of
/// `Brand vision: {visionEn}.` `Vibe: {vibe, ...}.` `Palette: {palette, ...}.`
/// `Signature details: {category}: {phrase}; ....` joined by one space; empty when
/// `inject_enabled` is false or every part is empty.
pub(crate) fn clause(p: &Profile) -> String {
    if !p.inject_enabled {
        return String::new();
    }
    let mut parts = Vec::new();
    let vision = p.vision_en.trim_end_matches(['.', ' ']);
    if !vision.is_empty() {
        parts.push(format!("Brand vision: {vision}."));
    }
    if !p.vibe.is_empty() {
        parts.push(format!("Vibe: {}.", p.vibe.join(", ")));
    }
    if !p.palette.is_empty() {
        parts.push(format!("Palette: {}.", p.palette.join(", ")));
    }
    if !p.signature_keywords.is_empty() {
        let details: Vec<String> =
            p.signature_keywords.iter().map(|k| format!("{}: {}", k.category, k.phrase)).collect();
        parts.push(format!("Signature details: {}.", details.join("; ")));
    }
    parts.join(" ").chars().take(MAX_CLAUSE_CHARS).collect()
}

fn parse_list<T: serde::de::DeserializeOwned>(text: &str) -> Vec<T> {
    serde_json::from_str(text).unwrap_or_default()
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

impl Profile {
    fn of(row: Option<&BrandProfileRow>) -> Profile {
        match row {
            None => Profile { inject_enabled: true, ..Profile::default() },
            Some(r) => Profile {
                vision_en: r.vision_en.clone(),
                vibe: parse_list(&r.vibe),
                palette: parse_list(&r.palette),
                signature_keywords: parse_list(&r.signature_keywords),
                inject_enabled: r.inject_enabled,
            },
        }
    }

    fn fields(&self) -> BrandFields {
        BrandFields {
            vision_en: self.vision_en.clone(),
            vibe: json(&self.vibe),
            palette: json(&self.palette),
            signature_keywords: json(&self.signature_keywords),
            inject_enabled: self.inject_enabled,
        }
    }
}

/// The house's colour policy as stored (`srgb` without a row, or for anything unknown).
fn colour_policy(row: Option<&BrandProfileRow>) -> ColourOutput {
    row.and_then(|r| ColourOutput::parse(&r.colour_output)).unwrap_or_default()
}

/// The house's metadata policy as stored (`rights` without a row, or for anything unknown).
fn metadata_policy(row: Option<&BrandProfileRow>) -> MetadataOutput {
    row.and_then(|r| MetadataOutput::parse(&r.metadata_output)).unwrap_or_default()
}

/// The metadata policy a job's options name (`rights` when they name none).
pub(crate) fn job_metadata(params: &BTreeMap<String, String>) -> MetadataOutput {
    params.get(METADATA_PARAM).and_then(|v| MetadataOutput::parse(v)).unwrap_or_default()
}

/// 400 `BAD_METADATA_OUTPUT`: a patch's `metadata.output` is not `rights`, `all` or `none`.
fn bad_metadata_output() -> Error {
    Error::invalid("BAD_METADATA_OUTPUT", "metadata.output must be \"rights\", \"all\" or \"none\".")
}

/// What a house adds to each new develop's options: its clause and its two policies.
struct Carried {
    clause: String,
    colour: ColourOutput,
    metadata: MetadataOutput,
}

impl Carried {
    fn of(row: Option<&BrandProfileRow>) -> Self {
        Carried { clause: clause(&Profile::of(row)), colour: colour_policy(row), metadata: metadata_policy(row) }
    }
}

/// The space outputs are written in under a policy.
pub(crate) fn output_space(policy: ColourOutput) -> OutputSpace {
    OutputSpace::from_policy(policy.as_str())
}

/// 400 `BAD_COLOUR_OUTPUT`: a patch's `colour.output` is neither `srgb` nor `keep`.
fn bad_colour_output() -> Error {
    Error::invalid("BAD_COLOUR_OUTPUT", "colour.output must be \"srgb\" or \"keep\".")
}

/// The wire profile of a stored row (or the empty defaults).
fn view(row: Option<&BrandProfileRow>) -> BrandProfile {
    let p = Profile::of(row);
    BrandProfile {
        colour: BrandColour { output: colour_policy(row) },
        metadata: BrandMetadata { output: metadata_policy(row) },
        clause: clause(&p),
        dna_runs: row.map_or(0, |r| r.dna_runs),
        vision_en: p.vision_en,
        vibe: p.vibe,
        palette: p.palette,
        signature_keywords: p.signature_keywords,
        inject_enabled: p.inject_enabled,
    }
}

impl Brand<'_> {
    /// `GET /api/toolkit/brand`: any role; a house without a profile gets the empty defaults.
    pub async fn profile(&self, caller: &Caller) -> Result<BrandResponse> {
        let row = self.store.brand_profile(&caller.org_id).await?;
        Ok(BrandResponse { ok: true, profile: view(row.as_ref()) })
    }

    /// Who may change the profile: every role but viewer (403). A frontend asks it before it
    /// reads the body, so a viewer is refused whatever it sends.
    pub fn may_patch(caller: &Caller) -> Result<()> {
        if caller.role == crate::api::SeatRole::Viewer {
            return Err(Error::forbidden("FORBIDDEN", "A viewer may read the brand profile but not change it."));
        }
        Ok(())
    }

    /// `PATCH /api/toolkit/brand`: given fields replace the stored ones, then the whole is
    /// clamped; `dnaRuns` is never touched. 403 for a viewer; 400 `BAD_COLOUR_OUTPUT` (nothing
    /// written) when `colour.output` is neither `srgb` nor `keep`.
    pub async fn patch(&self, caller: &Caller, patch: BrandPatch) -> Result<BrandResponse> {
        Self::may_patch(caller)?;
        let colour_output = match &patch.colour {
            None => None,
            Some(c) => Some(ColourOutput::parse(&c.output).ok_or_else(bad_colour_output)?.as_str().to_string()),
        };
        let metadata_output = match &patch.metadata {
            None => None,
            Some(m) => Some(MetadataOutput::parse(&m.output).ok_or_else(bad_metadata_output)?.as_str().to_string()),
        };
        // Each clamp reads only its own field, so the fields sent are clamped alone and written
        // alone, in one statement: a concurrent patch of other fields (or a DNA read) stands.
        let sent = clamp(Profile {
            vision_en: patch.vision_en.clone().unwrap_or_default(),
            vibe: patch.vibe.clone().unwrap_or_default(),
            palette: patch.palette.clone().unwrap_or_default(),
            signature_keywords: patch.signature_keywords.clone().unwrap_or_default(),
            inject_enabled: patch.inject_enabled.unwrap_or(true),
        })
        .fields();
        let fields = BrandFieldsPatch {
            vision_en: patch.vision_en.map(|_| sent.vision_en),
            vibe: patch.vibe.map(|_| sent.vibe),
            palette: patch.palette.map(|_| sent.palette),
            signature_keywords: patch.signature_keywords.map(|_| sent.signature_keywords),
            inject_enabled: patch.inject_enabled,
            colour_output,
            metadata_output,
        };
        let row = self.store.save_brand_profile(&caller.org_id, &fields, crate::ids::now()).await?;
        self.studio.submit_cache.forget_brand(&caller.org_id);
        Ok(BrandResponse { ok: true, profile: view(Some(&row)) })
    }

    /// The house's stored brand profile, if it has one.
    pub(crate) async fn profile_row(&self, org_id: &OrgId) -> Result<Option<BrandProfileRow>> {
        Ok(self.store.brand_profile(org_id).await?)
    }

    /// The clause a develop of the house carries now (empty: none).
    pub(crate) async fn clause_for(&self, org_id: &OrgId) -> Result<String> {
        let row = self.store.brand_profile(org_id).await?;
        Ok(clause(&Profile::of(row.as_ref())))
    }

    /// The space the house's outputs are written in now (its `colour.output`).
    pub(crate) async fn output_space_for(&self, org_id: &OrgId) -> Result<OutputSpace> {
        let row = self.store.brand_profile(org_id).await?;
        Ok(output_space(colour_policy(row.as_ref())))
    }

    /// What the house's outputs keep of their inputs' metadata now (its `metadata.output`).
    pub(crate) async fn metadata_for(&self, org_id: &OrgId) -> Result<MetadataOutput> {
        let row = self.store.brand_profile(org_id).await?;
        Ok(metadata_policy(row.as_ref()))
    }

    /// What the brand adds to new jobs before they are held and queued: the clause and the
    /// colour policy ([`Brand::carry_clause`]) and, when asked, the riding marks
    /// ([`Brand::carry_marks`]).
    pub(crate) async fn carry(&self, jobs: &mut [crate::storage::JobRow]) -> Result<()> {
        self.carry_clause(jobs).await?;
        self.carry_marks(jobs).await
    }

    /// Set each new job's `brandClause` option to its house's clause as it stands now, or
    /// remove it when the clause is empty, and its `colourOutput` option to `keep` when the
    /// house keeps its inputs' colour space, or remove it under `srgb` (a caller's own
    /// `brandClause` or `colourOutput` never survives, and a duplicate carries today's clause
    /// and policy, not its source's).
    pub(crate) async fn carry_clause(&self, jobs: &mut [crate::storage::JobRow]) -> Result<()> {
        let mut houses: BTreeMap<OrgId, Carried> = BTreeMap::new();
        for job in jobs.iter_mut() {
            if !houses.contains_key(&job.org_id) {
                let row = self.store.brand_profile(&job.org_id).await?;
                houses.insert(job.org_id.clone(), Carried::of(row.as_ref()));
            }
            set_options(job, &houses[&job.org_id])?;
        }
        Ok(())
    }

    /// [`Brand::carry`] for jobs of one house, their clause made from its profile as the caller
    /// read it (a develop submit's cached read, confirmed when its tokens are held).
    pub(crate) async fn carry_profile(
        &self,
        jobs: &mut [crate::storage::JobRow],
        profile: Option<&crate::storage::BrandProfileRow>,
    ) -> Result<()> {
        let carried = Carried::of(profile);
        for job in jobs.iter_mut() {
            set_options(job, &carried)?;
        }
        self.carry_marks(jobs).await
    }
}

/// Set a job's `brandClause`, `colourOutput` and `metadataOutput` options ([`apply_options`]).
fn set_options(job: &mut crate::storage::JobRow, carried: &Carried) -> Result<()> {
    let mut params = job.params_map();
    if apply_options(&mut params, carried) {
        job.params = serde_json::to_string(&params).map_err(Error::internal)?;
    }
    Ok(())
}

/// Set the `brandClause` option, or remove it when the clause is empty; set the `colourOutput`
/// option to `keep` under that policy, or remove it under `srgb` (the default); set the
/// `metadataOutput` option under `all` or `none`, or remove it under `rights` (the default).
/// True when the options are to be rewritten: one of them is or was there.
fn apply_options(params: &mut BTreeMap<String, String>, carried: &Carried) -> bool {
    let had = [CLAUSE_PARAM, COLOUR_PARAM, METADATA_PARAM].iter().any(|k| params.contains_key(*k));
    let mut set = |key: &str, value: Option<&str>| match value {
        Some(v) => {
            params.insert(key.to_string(), v.to_string());
            true
        }
        None => {
            params.remove(key);
            false
        }
    };
    let clause = set(CLAUSE_PARAM, Some(carried.clause.as_str()).filter(|c| !c.is_empty()));
    let colour = set(COLOUR_PARAM, (carried.colour == ColourOutput::Keep).then_some(carried.colour.as_str()));
    let metadata =
        set(METADATA_PARAM, (carried.metadata != MetadataOutput::Rights).then_some(carried.metadata.as_str()));
    had || clause || colour || metadata
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kw(category: &str, phrase: &str) -> SignatureKeyword {
        SignatureKeyword { category: category.into(), phrase: phrase.into() }
    }

    #[test]
    fn clamps_trim_dedupe_and_bound() {
        let p = clamp(Profile {
            vision_en: format!("  quiet   {}", "x".repeat(600)),
            vibe: (0..12).map(|i| format!(" calm {i} ")).chain(["CALM 0".to_string(), " ".to_string()]).collect(),
            palette: ["#ABC", "#a0b1c2", "Ivory ", "ivory", "#12", "red!", "#A0B1C2", "navy blue"]
                .map(String::from)
                .to_vec(),
            signature_keywords: vec![
                kw("Cut", " raw  hems "),
                kw("cut", "raw hems"),
                kw("", "gold buttons"),
                kw("x", " "),
            ],
            inject_enabled: true,
        });
        assert_eq!(p.vision_en.chars().count(), MAX_VISION_CHARS);
        assert!(p.vision_en.starts_with("quiet x"));
        assert_eq!(p.vibe.len(), MAX_VIBE);
        assert_eq!(p.vibe[0], "calm 0");
        assert_eq!(p.palette, vec!["#aabbcc", "#a0b1c2", "ivory", "navy blue"]);
        assert_eq!(p.signature_keywords, vec![kw("cut", "raw hems"), kw("signature", "gold buttons")]);
    }

    #[test]
    fn jobs_carry_the_policies_only_when_they_are_not_the_default() {
        let carried = |clause: &str, colour, metadata| Carried { clause: clause.into(), colour, metadata };
        let mut params: BTreeMap<String, String> = [
            ("colourOutput".to_string(), "keep".to_string()),
            ("metadataOutput".to_string(), "all".to_string()),
            ("scale".to_string(), "2".to_string()),
        ]
        .into();
        let defaults = carried("", ColourOutput::Srgb, MetadataOutput::Rights);
        assert!(apply_options(&mut params, &defaults), "a caller's own are dropped");
        assert_eq!(params, [("scale".to_string(), "2".to_string())].into());
        assert!(!apply_options(&mut params, &defaults), "nothing to rewrite");
        assert!(apply_options(&mut params, &carried("Brand vision: Quiet.", ColourOutput::Keep, MetadataOutput::None)));
        assert_eq!(params.get("colourOutput").map(String::as_str), Some("keep"));
        assert_eq!(params.get("metadataOutput").map(String::as_str), Some("none"));
        assert_eq!(job_metadata(&params), MetadataOutput::None);
        assert_eq!(params.get(CLAUSE_PARAM).map(String::as_str), Some("Brand vision: Quiet."));
    }

    #[test]
    fn the_clause_follows_the_template_and_the_switch() {
        let mut p = Profile {
            vision_en: "Quiet tailoring.".into(),
            vibe: vec!["calm".into(), "austere".into()],
            palette: vec!["#000000".into(), "ivory".into()],
            signature_keywords: vec![kw("cut", "raw hems"), kw("finish", "matte")],
            inject_enabled: true,
        };
        assert_eq!(
            clause(&p),
            "Brand vision: Quiet tailoring. Vibe: calm, austere. Palette: #000000, ivory. \
             Signature details: cut: raw hems; finish: matte."
        );
        p.inject_enabled = false;
        assert_eq!(clause(&p), "");
        assert_eq!(clause(&Profile { inject_enabled: true, ..Profile::default() }), "");
    }
}
