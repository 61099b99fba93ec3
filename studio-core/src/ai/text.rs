//! The text tools (`02-route-groups.md` §4.2): inspiration-keywords, imagemodel-prompts,
//! prompt-builder and prompt-enhancer. JSON in, JSON out, through the AI reader under the lane
//! pipeline's charge (1 token; 402 `AI_NEEDS_BILLING` with `need` and `spendable`).
//!
//! Order: a viewer is 403 → the required field (400 `VIBE_REQUIRED`, `DESCRIPTION_REQUIRED`,
//! `SUBJECT_REQUIRED`, `PROMPT_REQUIRED`; `BAD_COUNT`; `TOO_LONG`) → no reader is 503
//! `AI_NOT_CONFIGURED` → hold → ask → the answer is checked against the tool's shape (502
//! `AI_BAD_OUTPUT`, released) → settle. The three prompt writers are told the house's brand
//! clause (the text develops carry, empty when the house turned it off) so prompts stay in the
//! house's look; the house's memories are never sent (docs/lanes.md says why).

use crate::ai::Ai;
use serde_json::Value;

use crate::api::{
    DEFAULT_PROMPT_SHOTS, InspirationRequest, InspirationResponse, KeywordCategory, MAX_PROMPT_SHOTS,
    PromptBuilderRequest, PromptBuilderResponse, PromptEnhancerRequest, PromptEnhancerResponse, ShotPrompt,
    ShotPromptsRequest, ShotPromptsResponse,
};
use crate::caller::Caller;
use crate::error::{Error, Result};

use super::vision::{bad_output, object, tidy};

/// Longest `vibe`, `direction`, `intent`.
const MAX_SHORT: usize = 500;
/// Longest `description`, `subject`.
const MAX_LONG: usize = 2_000;
/// Longest `prompt` in and `improved` out.
const MAX_PROMPT: usize = 4_000;
/// Most keyword groups and keywords per group kept.
const MAX_GROUPS: usize = 8;
const MAX_GROUP_KEYWORDS: usize = 12;
/// Most notes prompt-enhancer keeps.
const MAX_NOTES: usize = 8;

/// A required text field: trimmed, 400 `code` when blank, 400 `TOO_LONG` past `max`.
fn required(value: &str, code: &'static str, name: &str, max: usize) -> Result<String> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Error::invalid(code, format!("{name} is required.")));
    }
    optional(Some(value), name, max).map(Option::unwrap_or_default)
}

fn optional(value: Option<&str>, name: &str, max: usize) -> Result<Option<String>> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    if value.chars().count() > max {
        return Err(Error::invalid("TOO_LONG", format!("{name} is at most {max} characters.")).with("max", max));
    }
    Ok(Some(value.to_string()))
}

/// A list of strings, tidied, blanks and repeats dropped, at most `max`.
fn strings(value: Option<&Value>, name: &str, max: usize, chars: usize) -> Result<Vec<String>> {
    let Some(Value::Array(items)) = value else { return Err(bad_output(&format!("{name} is not a list"))) };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let text = item.as_str().ok_or_else(|| bad_output(&format!("{name} holds something that is not text")))?;
        let text = tidy(text, chars);
        if !text.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&text)) {
            out.push(text);
        }
    }
    out.truncate(max);
    Ok(out)
}

fn categories(answer: Value) -> Result<Vec<KeywordCategory>> {
    let answer = object(answer)?;
    let Some(Value::Array(groups)) = answer.get("categories") else {
        return Err(bad_output("categories is not a list"));
    };
    let mut out = Vec::new();
    for group in groups {
        let category =
            group.get("category").and_then(Value::as_str).ok_or_else(|| bad_output("a category has no name"))?;
        let keywords = strings(group.get("keywords"), "keywords", MAX_GROUP_KEYWORDS, 40)?;
        let category = tidy(category, 40);
        if !category.is_empty() && !keywords.is_empty() {
            out.push(KeywordCategory { category, keywords });
        }
    }
    out.truncate(MAX_GROUPS);
    if out.is_empty() {
        return Err(bad_output("no category with keywords"));
    }
    Ok(out)
}

fn shots(answer: Value, count: usize) -> Result<Vec<ShotPrompt>> {
    let answer = object(answer)?;
    let Some(Value::Array(list)) = answer.get("shots") else { return Err(bad_output("shots is not a list")) };
    let mut out = Vec::new();
    for shot in list {
        let label = shot.get("label").and_then(Value::as_str).ok_or_else(|| bad_output("a shot has no label"))?;
        let prompt = shot.get("prompt").and_then(Value::as_str).ok_or_else(|| bad_output("a shot has no prompt"))?;
        let (label, prompt) = (tidy(label, 80), tidy(prompt, MAX_LONG));
        if !label.is_empty() && !prompt.is_empty() {
            out.push(ShotPrompt { label, prompt });
        }
    }
    if out.len() < count {
        return Err(bad_output(&format!("{} usable shots, not {count}", out.len())));
    }
    out.truncate(count);
    Ok(out)
}

fn built(answer: Value) -> Result<String> {
    let answer = object(answer)?;
    let prompt = answer.get("prompt").and_then(Value::as_str).map(|p| tidy(p, MAX_LONG)).unwrap_or_default();
    if prompt.is_empty() {
        return Err(bad_output("prompt is missing or empty"));
    }
    Ok(prompt)
}

fn enhanced(answer: Value) -> Result<(String, Vec<String>)> {
    let answer = object(answer)?;
    let improved = answer.get("improved").and_then(Value::as_str).map(|p| tidy(p, MAX_PROMPT)).unwrap_or_default();
    if improved.is_empty() {
        return Err(bad_output("improved is missing or empty"));
    }
    let notes = match answer.get("notes") {
        None | Some(Value::Null) => Vec::new(),
        notes => strings(notes, "notes", MAX_NOTES, 200)?,
    };
    Ok((improved, notes))
}

/// The house's look, as a line for the prompt writers; empty when it has none.
fn house_line(clause: &str) -> String {
    if clause.trim().is_empty() {
        String::new()
    } else {
        format!("\nThe house's look, to keep every prompt in: {}", clause.trim())
    }
}

impl Ai<'_> {
    /// `POST /api/toolkit/ai/inspiration-keywords`: keyword groups for a mood.
    pub async fn inspiration_keywords(&self, caller: &Caller, req: InspirationRequest) -> Result<InspirationResponse> {
        caller.require_spend_tokens()?;
        let vibe = required(&req.vibe, "VIBE_REQUIRED", "vibe", MAX_SHORT)?;
        let prompt = format!(
            "Give fashion-shoot inspiration keywords for this mood: {vibe:?}. Answer {{\"categories\": \
             [{{\"category\": a group such as palette, texture, light, styling, setting, props, \"keywords\": \
             [short English keywords]}}]}} with 3 to {MAX_GROUPS} groups of 4 to {MAX_GROUP_KEYWORDS} keywords."
        );
        let (categories, spent) = self
            .charged_ask(caller, "inspiration-keywords", Some("AI_NEEDS_BILLING"), prompt, None, categories)
            .await?;
        Ok(InspirationResponse { ok: true, categories, spent })
    }

    /// `POST /api/toolkit/ai/imagemodel-prompts`: `count` shot prompts for a description.
    pub async fn imagemodel_prompts(&self, caller: &Caller, req: ShotPromptsRequest) -> Result<ShotPromptsResponse> {
        caller.require_spend_tokens()?;
        let description = required(&req.description, "DESCRIPTION_REQUIRED", "description", MAX_LONG)?;
        let direction = optional(req.direction.as_deref(), "direction", MAX_SHORT)?;
        let count = match req.count {
            None => DEFAULT_PROMPT_SHOTS as usize,
            Some(n) if (1..=i64::from(MAX_PROMPT_SHOTS)).contains(&n) => n as usize,
            Some(_) => {
                return Err(Error::invalid("BAD_COUNT", format!("count is 1 to {MAX_PROMPT_SHOTS}."))
                    .with("max", MAX_PROMPT_SHOTS));
            }
        };
        let clause = self.studio.brand().clause_for(&caller.org_id).await?;
        let prompt = format!(
            "Write {count} distinct image-model prompts for a fashion shoot of: {description:?}.{}{} Answer \
             {{\"shots\": [{{\"label\": a short name for the shot, \"prompt\": the full prompt}}]}} with exactly \
             {count} shots.",
            direction.map(|d| format!(" Art direction: {d:?}.")).unwrap_or_default(),
            house_line(&clause),
        );
        let (shots, spent) = self
            .charged_ask(caller, "imagemodel-prompts", Some("AI_NEEDS_BILLING"), prompt, None, move |a| shots(a, count))
            .await?;
        Ok(ShotPromptsResponse { ok: true, shots, spent })
    }

    /// `POST /api/toolkit/ai/prompt-builder`: one image-model prompt for a subject.
    pub async fn prompt_builder(&self, caller: &Caller, req: PromptBuilderRequest) -> Result<PromptBuilderResponse> {
        caller.require_spend_tokens()?;
        let subject = required(&req.subject, "SUBJECT_REQUIRED", "subject", MAX_LONG)?;
        let vibe = optional(req.vibe.as_deref(), "vibe", MAX_SHORT)?;
        let clause = self.studio.brand().clause_for(&caller.org_id).await?;
        let prompt = format!(
            "Write one detailed image-model prompt for a fashion photograph of: {subject:?}.{}{} Answer \
             {{\"prompt\": the prompt}}.",
            vibe.map(|v| format!(" Mood: {v:?}.")).unwrap_or_default(),
            house_line(&clause),
        );
        let (prompt, spent) =
            self.charged_ask(caller, "prompt-builder", Some("AI_NEEDS_BILLING"), prompt, None, built).await?;
        Ok(PromptBuilderResponse { ok: true, prompt, spent })
    }

    /// `POST /api/toolkit/ai/prompt-enhancer`: a better prompt and what changed.
    pub async fn prompt_enhancer(&self, caller: &Caller, req: PromptEnhancerRequest) -> Result<PromptEnhancerResponse> {
        caller.require_spend_tokens()?;
        let original = required(&req.prompt, "PROMPT_REQUIRED", "prompt", MAX_PROMPT)?;
        let intent = optional(req.intent.as_deref(), "intent", MAX_SHORT)?;
        let clause = self.studio.brand().clause_for(&caller.org_id).await?;
        let prompt = format!(
            "Improve this image-model prompt for a fashion photograph, keeping its subject: {original:?}.{}{} \
             Answer {{\"improved\": the improved prompt, \"notes\": [short notes on what changed and why]}}.",
            intent.map(|i| format!(" It is for: {i:?}.")).unwrap_or_default(),
            house_line(&clause),
        );
        let ((improved, notes), spent) =
            self.charged_ask(caller, "prompt-enhancer", Some("AI_NEEDS_BILLING"), prompt, None, enhanced).await?;
        Ok(PromptEnhancerResponse { ok: true, improved, notes, spent })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn required_fields_have_their_codes() {
        assert_eq!(required("  ", "VIBE_REQUIRED", "vibe", 10).unwrap_err().code, "VIBE_REQUIRED");
        assert_eq!(required(&"x".repeat(11), "VIBE_REQUIRED", "vibe", 10).unwrap_err().code, "TOO_LONG");
        assert_eq!(required(" calm ", "VIBE_REQUIRED", "vibe", 10).unwrap(), "calm");
    }

    #[test]
    fn answers_are_checked_against_their_shapes() {
        let groups = categories(json!({"categories": [
            {"category": "light", "keywords": ["soft", "Soft", "", "golden hour"]},
            {"category": "empty", "keywords": []},
        ]}))
        .unwrap();
        assert_eq!(
            groups,
            vec![KeywordCategory { category: "light".into(), keywords: vec!["soft".into(), "golden hour".into()] }]
        );
        assert_eq!(categories(json!({"categories": []})).unwrap_err().code, "AI_BAD_OUTPUT");
        assert_eq!(categories(json!({"categories": [{"keywords": ["a"]}]})).unwrap_err().code, "AI_BAD_OUTPUT");

        let three = json!({"shots": [
            {"label": "a", "prompt": "p1"}, {"label": "b", "prompt": "p2"}, {"label": "c", "prompt": "p3"},
        ]});
        assert_eq!(shots(three.clone(), 2).unwrap().len(), 2);
        assert_eq!(shots(three, 4).unwrap_err().code, "AI_BAD_OUTPUT");

        assert_eq!(built(json!({"prompt": "  a  coat "})).unwrap(), "a coat");
        assert_eq!(built(json!({"text": "x"})).unwrap_err().code, "AI_BAD_OUTPUT");
        assert_eq!(
            enhanced(json!({"improved": "better", "notes": ["sharper light"]})).unwrap().1,
            vec!["sharper light".to_string()]
        );
        assert_eq!(enhanced(json!({"improved": "better", "notes": "one"})).unwrap_err().code, "AI_BAD_OUTPUT");
    }
}
