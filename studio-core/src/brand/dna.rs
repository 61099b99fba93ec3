//! The brand DNA read (`POST /api/toolkit/brand/dna`): 1 to 10 images of the house (32 MB
//! across the set) shown to the configured AI reader, whose JSON answer becomes the profile.
//!
//! Order: a viewer is 403 → the form (400 `NO_IMAGES`, `BAD_FORM`; 413 `IMAGE_TOO_LARGE`,
//! `SET_TOO_LARGE`) → no reader is 503 `AI_NOT_CONFIGURED` (nothing held) → the house's free
//! first read is claimed with one conditional write, else [`DNA_PRICE`] tokens are held through
//! the shared hold helpers (402 with `need` and `spendable`) → the reader is asked → its answer
//! is validated (502 `AI_BAD_OUTPUT`) and clamped → the profile is written and `dnaRuns` bumped
//! in one statement → the hold settles. Any failure releases the hold (or gives the free claim
//! back): a failed read charges nothing. The charged part runs in a task of its own so a
//! dropped request never strands a hold.

use crate::ids::{HoldId, OrgId};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

use super::{Brand, Profile, clamp, view};
use crate::api::{BrandDnaResponse, SignatureKeyword};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::internal::quality::ReaderOutcome;
use crate::providers::ai::{AiClient, AiError, AiImage};

/// Tokens a re-read costs (the house's first successful read is free).
pub const DNA_PRICE: i64 = 2;
/// Most images one read looks at.
pub const MAX_DNA_IMAGES: usize = 10;
/// Most megabytes across the set.
pub const MAX_DNA_SET_MB: u64 = 32;
/// A free-read claim older than this is taken to belong to a read that died.
const CLAIM_STALE_MINUTES: i64 = 10;
/// Longest `products` text passed on.
const MAX_PRODUCTS_CHARS: usize = 1000;
/// Images longer than this on their long edge, or larger than 4 MB, are sent scaled down.
const READ_EDGE: u32 = 1536;
const AS_IS_BYTES: usize = 4 * 1024 * 1024;

const SYSTEM: &str = "You are a fashion brand strategist. From photographs of one fashion house's work you \
    describe the house's visual identity so that an image generator can keep to it. Describe only what the \
    photographs show. Answer with one JSON object and nothing else.";

/// The form of a DNA read, as the route collected it (sizes already capped while streaming).
#[derive(Debug, Clone, Default)]
pub struct DnaForm {
    /// The images' bytes, in order.
    pub images: Vec<Bytes>,
    /// The raw `vibe` field: a JSON array of strings.
    pub vibe: Option<String>,
    /// The raw `products` field.
    pub products: Option<String>,
}

/// The answer's shape: every key present with its type, or the read is `AI_BAD_OUTPUT`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    vision_en: String,
    vibe: Vec<String>,
    palette: Vec<String>,
    signature_keywords: Vec<SignatureKeyword>,
}

fn prompt(vibe: &[String], products: &str) -> String {
    let mut text = String::from(
        "These photographs show one fashion house's work. Answer with a JSON object with exactly these keys: \
         \"visionEn\" (one or two sentences in English on what the house stands for visually, at most 500 \
         characters), \"vibe\" (an array of at most 8 short mood words), \"palette\" (an array of at most 8 \
         colours the house keeps returning to, each a hex colour like \"#1a1a1a\" or a plain colour name), \
         \"signatureKeywords\" (an array of at most 10 objects {\"category\": one word such as cut, fabric, \
         finish, detail, styling or light, \"phrase\": a short phrase}).",
    );
    if !vibe.is_empty() {
        text.push_str(&format!(" The house describes its own vibe as: {}.", vibe.join(", ")));
    }
    if !products.is_empty() {
        text.push_str(&format!(" The house makes: {products}."));
    }
    text
}

fn bad_output(detail: &str) -> Error {
    Error::new(
        ErrorKind::Upstream,
        "AI_BAD_OUTPUT",
        format!("The reader's answer was not a brand profile ({detail}); nothing was charged."),
    )
}

fn ai_failed(e: &AiError) -> Error {
    Error::new(ErrorKind::Upstream, "AI_FAILED", format!("The read failed and nothing was charged: {e}."))
}

/// Validate and clamp the reader's answer; the house's own vibe words lead the vibe.
fn profile_of(answer: Value, house_vibe: &[String], inject_enabled: bool) -> Result<Profile> {
    if !answer.is_object() {
        return Err(bad_output("not a JSON object"));
    }
    let a: Answer = serde_json::from_value(answer).map_err(|e| bad_output(&e.to_string()))?;
    let p = clamp(Profile {
        vision_en: a.vision_en,
        vibe: house_vibe.iter().cloned().chain(a.vibe).collect(),
        palette: a.palette,
        signature_keywords: a.signature_keywords,
        inject_enabled,
    });
    if p.vision_en.is_empty() && p.palette.is_empty() && p.signature_keywords.is_empty() {
        return Err(bad_output("it is empty"));
    }
    Ok(p)
}

/// Check the form: count, sizes, types, the `vibe` JSON.
fn check_form(form: &DnaForm) -> Result<(Vec<String>, String)> {
    if form.images.is_empty() {
        return Err(Error::invalid("NO_IMAGES", "Send 1 to 10 images in fields named image."));
    }
    if form.images.len() > MAX_DNA_IMAGES {
        return Err(Error::invalid("BAD_FORM", format!("At most {MAX_DNA_IMAGES} images per read."))
            .with("max", MAX_DNA_IMAGES));
    }
    let per_file = crate::images::MAX_IMAGE_MB * 1024 * 1024;
    for image in &form.images {
        if image.len() as u64 > per_file {
            return Err(crate::images::image_too_large());
        }
        if image.is_empty() {
            return Err(Error::invalid("BAD_FORM", "An image field is empty."));
        }
        let mime = infer::get(image).map(|t| t.mime_type()).unwrap_or("application/octet-stream");
        if !crate::library::assets::accepted_image(mime) {
            return Err(Error::invalid("BAD_FORM", format!("Images are JPEG, PNG, WebP or GIF; this is {mime}.")));
        }
    }
    if form.images.iter().map(|i| i.len() as u64).sum::<u64>() > MAX_DNA_SET_MB * 1024 * 1024 {
        return Err(set_too_large());
    }
    let vibe: Vec<String> = match form.vibe.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        None => Vec::new(),
        Some(raw) => serde_json::from_str(raw)
            .map_err(|_| Error::invalid("BAD_FORM", "vibe is a JSON array of strings, e.g. [\"quiet\", \"sharp\"]."))?,
    };
    let products: String = form.products.as_deref().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    Ok((vibe, products.chars().take(MAX_PRODUCTS_CHARS).collect()))
}

/// 413 `SET_TOO_LARGE` with `maxMb`.
pub(crate) fn set_too_large() -> Error {
    Error::new(
        ErrorKind::TooLarge,
        "SET_TOO_LARGE",
        format!("A read's images are at most {MAX_DNA_SET_MB} MB together."),
    )
    .with("maxMb", MAX_DNA_SET_MB)
}

impl Brand<'_> {
    /// `POST /api/toolkit/brand/dna`: read the house's visual identity from 1 to 10 images.
    /// The first successful read of a house is free; every later one costs [`DNA_PRICE`].
    pub async fn read_dna(&self, caller: &Caller, form: DnaForm) -> Result<BrandDnaResponse> {
        caller.require_spend_tokens()?;
        let (vibe, products) = check_form(&form)?;
        let config = self.studio.config.ai.as_ref().ok_or_else(|| {
            Error::new(
                ErrorKind::NotConfigured,
                "AI_NOT_CONFIGURED",
                "No AI reader is configured; nothing was charged.",
            )
        })?;
        let client = AiClient::new(config).map_err(|e| ai_failed(&e))?;
        let (studio, caller) = (self.studio.clone(), caller.clone());
        let read = Read { client, images: form.images, prompt: prompt(&vibe, &products), vibe };
        // Its own task: once a hold or the free claim exists, it is resolved even if the
        // request that asked is dropped.
        tokio::spawn(async move { studio.brand().brand_read(&caller, read).await }).await.map_err(Error::internal)?
    }
}

struct Read {
    client: AiClient,
    images: Vec<Bytes>,
    prompt: String,
    vibe: Vec<String>,
}

impl Brand<'_> {
    async fn brand_read(&self, caller: &Caller, read: Read) -> Result<BrandDnaResponse> {
        let org = &caller.org_id;
        let now = crate::ids::now();
        let stale = now - chrono::Duration::minutes(CLAIM_STALE_MINUTES);
        let free = self.store.claim_free_brand_read(org, now, stale).await?;
        let hold = if free {
            None
        } else {
            match self.studio.billing().reserve_tokens(caller, DNA_PRICE, None, None).await {
                Ok(r) => Some(HoldId::from(r.hold.id)),
                Err(e) => return Err(e),
            }
        };
        let outcome = self.brand_ask(org, &read).await;
        let outcome = match outcome {
            Ok(p) => self.store.record_brand_read(org, &p.fields(), crate::ids::now()).await.map_err(Error::from),
            Err(e) => Err(e),
        };
        // The claim and the read changed the profile row this process may have cached.
        self.studio.submit_cache.forget_brand(org);
        match outcome {
            Ok(row) => {
                if let Some(hold) = &hold
                    && let Err(e) = self.studio.billing().settle_hold(org, hold).await
                {
                    tracing::error!(error = %e, hold = %hold, "a brand read's hold could not be settled");
                }
                let charged = if hold.is_some() { DNA_PRICE } else { 0 };
                Ok(BrandDnaResponse { ok: true, profile: view(Some(&row)), charged })
            }
            Err(e) => {
                if let Some(hold) = &hold
                    && let Err(release) = self.studio.billing().release_hold(org, hold).await
                {
                    tracing::error!(error = %release, hold = %hold, "a failed brand read's hold could not be released");
                }
                if free && let Err(release) = self.store.release_free_brand_read(org).await {
                    tracing::error!(error = %release, "a failed brand read's free claim could not be given back");
                }
                Err(e)
            }
        }
    }

    async fn brand_ask(&self, org: &OrgId, read: &Read) -> Result<Profile> {
        let mut images = Vec::with_capacity(read.images.len());
        for bytes in &read.images {
            images.push(scaled(bytes.clone()).await);
        }
        let started = std::time::Instant::now();
        let answer = read.client.read_json(SYSTEM, &read.prompt, &images).await;
        let outcome = match &answer {
            Ok(_) => ReaderOutcome::Answered,
            Err(e) => ReaderOutcome::of(e),
        };
        let answer = answer.map_err(|e| {
            tracing::warn!(error = %e, "a brand DNA read failed");
            ai_failed(&e)
        });
        let inject = self.store.brand_profile(org).await?.is_none_or(|r| r.inject_enabled);
        let profile = answer.and_then(|a| profile_of(a, &read.vibe, inject));
        let outcome = match (&profile, outcome) {
            (Err(_), ReaderOutcome::Answered) => ReaderOutcome::Unusable,
            (_, outcome) => outcome,
        };
        self.studio.internal().record_reader_call(Some(org), "brand-dna", outcome, started).await;
        profile
    }
}

/// An image for the reader: as sent when small, else a JPEG scaled to [`READ_EDGE`] on its
/// long edge (the bytes as sent should scaling fail).
async fn scaled(bytes: Bytes) -> AiImage {
    let mime = infer::get(&bytes).map(|t| t.mime_type().to_string()).unwrap_or_else(|| "image/jpeg".into());
    let edge = crate::images::header_dimensions(&bytes).ok().flatten().map(|(w, h)| w.max(h));
    let as_is = bytes.len() <= AS_IS_BYTES
        && edge.is_some_and(|e| e <= READ_EDGE)
        && matches!(mime.as_str(), "image/jpeg" | "image/png" | "image/webp");
    if as_is {
        return AiImage { mime, bytes };
    }
    let source = bytes.clone();
    match tokio::task::spawn_blocking(move || crate::images::rendition_jpeg(&source, READ_EDGE, READ_EDGE)).await {
        Ok(Ok(jpeg)) => AiImage { mime: "image/jpeg".into(), bytes: jpeg.into() },
        _ => AiImage { mime, bytes },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_validated_then_clamped() {
        let good = json!({"visionEn": "Quiet tailoring", "vibe": ["calm"], "palette": ["#FFF", "bad!"],
            "signatureKeywords": [{"category": "Cut", "phrase": "raw hems"}]});
        let p = profile_of(good, &["sharp".into()], true).expect("valid");
        assert_eq!((p.vibe.clone(), p.palette.clone()), (vec!["sharp".into(), "calm".into()], vec!["#ffffff".into()]));
        for bad in [
            json!([1, 2]),
            json!({"visionEn": 5, "vibe": [], "palette": [], "signatureKeywords": []}),
            json!({"visionEn": "x", "vibe": []}),
            json!({"visionEn": " ", "vibe": ["a"], "palette": ["nope!"], "signatureKeywords": []}),
        ] {
            let e = profile_of(bad, &[], true).expect_err("malformed");
            assert_eq!(e.code, "AI_BAD_OUTPUT");
        }
    }
}
