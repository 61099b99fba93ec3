//! The actions an answer proposes, and applying one exactly once.
//!
//! A proposal is read from the reader's answer into the very request type its route takes
//! (`develop`: the agent endpoint's `StartDevelop`; `pack`: `PackRequest`; `look`:
//! `CreateLookRequest`) and priced from the price book; one that does not read, names a tool
//! this studio does not run, or is a look develop (priced by its look, not the book) is dropped,
//! never guessed at. Apply runs it through the same core call as the route, with the caller's
//! own roles (a viewer is 403, a shortfall 402 with `need` and `spendable`). Exactly once: an
//! apply first claims the action with a conditional write; concurrent applies wait for the
//! claimant's result and answer it with `replayed: true`; a refused apply hands the claim back
//! (the action stays proposed, nothing was created or charged). A develop carries the
//! idempotency key `chat-<actionId>`, so even an apply whose process died after queueing and
//! was taken over (a claim older than [`STALE_CLAIM_SECS`]) queues and holds nothing twice.

use std::time::{Duration as StdDuration, Instant};

use chrono::Duration;
use serde_json::{Value, json};

use crate::api::{ChatAction, ChatApplied, ChatApplyRequest, CreateLookRequest, PackRequest, Quality, StartDevelop};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{ChatActionId, ChatSessionId, now};
use crate::storage::{ChatActionRow, ChatSessionRow};
use crate::studio::Studio;

use super::{Chat, turn_row, turn_view};

/// Most actions one answer may propose.
const MAX_ACTIONS: usize = 5;
/// Longest summary kept.
const MAX_SUMMARY_CHARS: usize = 200;
/// A claim older than this is an apply that died; the next apply takes it over.
pub(super) const STALE_CLAIM_SECS: i64 = 120;
/// How long an apply waits for a concurrent apply of the same action to finish.
const WAIT_FOR_CLAIMANT: StdDuration = StdDuration::from_secs(20);

/// A checked proposal, ready to be stored.
pub(super) struct Proposal {
    pub(super) kind: String,
    pub(super) summary: String,
    pub(super) request: Value,
    pub(super) price: i64,
}

fn action_not_found() -> Error {
    Error::not_found("ACTION_NOT_FOUND", "That session proposed no action with that id.")
}

/// The proposals of an answer's `actions` that read and price, at most [`MAX_ACTIONS`].
pub(super) fn proposals(studio: &Studio, raw: Option<&Value>) -> Vec<Proposal> {
    let Some(Value::Array(items)) = raw else { return Vec::new() };
    items.iter().filter_map(|item| proposal(studio, item)).take(MAX_ACTIONS).collect()
}

fn proposal(studio: &Studio, item: &Value) -> Option<Proposal> {
    let kind = item.get("kind").and_then(Value::as_str)?.trim().to_ascii_lowercase();
    let request = item.get("request")?.clone();
    let summary =
        crate::ai::vision::tidy(item.get("summary").and_then(Value::as_str).unwrap_or_default(), MAX_SUMMARY_CHARS);
    let (request, price, fallback) = match kind.as_str() {
        "develop" => {
            let mut req: StartDevelop = serde_json::from_value(request).ok()?;
            req.tool = req.tool.trim().to_string();
            let quality: Quality = req.quality.trim().parse().ok()?;
            if req.tool == crate::lookbook::LOOK_TOOL || studio.config.providers.get(&req.tool).is_none() {
                return None;
            }
            req.idempotency_key = None;
            // A model's answer never chooses where a house's signed events go.
            req.webhook_url = None;
            req.params.remove(crate::webhooks::WEBHOOK_URL_FIELD);
            let price = studio.develops().frame_price(&req.tool, quality);
            let fallback = format!("Develop {} at {}", req.tool, quality.as_str());
            (serde_json::to_value(req).ok()?, price, fallback)
        }
        "pack" => {
            let req: PackRequest = serde_json::from_value(request).ok()?;
            let fallback = format!("Pack {} assets", req.asset_ids.len());
            (serde_json::to_value(req).ok()?, 0, fallback)
        }
        "look" => {
            let req: CreateLookRequest = serde_json::from_value(request).ok()?;
            let fallback = format!("Create the look {}", req.name.as_deref().unwrap_or("(unnamed)"));
            (serde_json::to_value(req).ok()?, 0, fallback)
        }
        _ => return None,
    };
    let summary = if summary.is_empty() { fallback } else { summary };
    Some(Proposal { kind, summary, request, price })
}

/// A stored action on the wire.
pub(crate) fn action_view(a: &ChatActionRow) -> Result<ChatAction> {
    let parse = |s: &str| serde_json::from_str::<Value>(s).map_err(Error::internal);
    Ok(ChatAction {
        id: a.id.to_string(),
        kind: a.kind.clone(),
        summary: a.summary.clone(),
        request: parse(&a.request)?,
        price: a.price,
        status: a.status.to_string(),
        result: a.result.as_deref().map(parse).transpose()?,
        applied_at: a.applied_at,
    })
}

impl Chat<'_> {
    /// `POST /api/toolkit/chat/apply`: run one proposed action, once (see the module). 400
    /// `SESSION_REQUIRED`, `ACTION_REQUIRED`; 404 `CHAT_SESSION_NOT_FOUND`, `ACTION_NOT_FOUND`;
    /// 409 `ACTION_IN_PROGRESS` (another apply still runs it after 20 s); and whatever the
    /// action's own route answers (403 for a viewer's develop, 402, 404 `ASSET_NOT_FOUND`, ...).
    pub async fn apply(&self, caller: &Caller, req: ChatApplyRequest) -> Result<ChatApplied> {
        // In a task of its own: a caller who hangs up never strands a claim mid-apply.
        let (studio, caller) = (self.studio.clone(), caller.clone());
        tokio::spawn(async move { studio.ai().chat().apply_once(&caller, req).await }).await.map_err(Error::internal)?
    }

    async fn apply_once(&self, caller: &Caller, req: ChatApplyRequest) -> Result<ChatApplied> {
        let (session_id, action_id) = (req.session_id.trim(), req.action_id.trim());
        if session_id.is_empty() {
            return Err(Error::invalid("SESSION_REQUIRED", "sessionId names the chat session."));
        }
        if action_id.is_empty() {
            return Err(Error::invalid("ACTION_REQUIRED", "actionId names the proposed action."));
        }
        let session = self.own(caller, &ChatSessionId::from(session_id)).await?;
        let action =
            self.store.chat_action(&session.id, &ChatActionId::from(action_id)).await?.ok_or_else(action_not_found)?;
        if action.status == crate::storage::ChatActionStatus::Applied {
            return self.applied(&session, &action.id, true).await;
        }
        if action.kind == "develop" {
            caller.require_spend_tokens()?;
        }
        let deadline = Instant::now() + WAIT_FOR_CLAIMANT;
        let claimed = loop {
            let at = now();
            if self.store.claim_chat_action(&action.id, at, at - Duration::seconds(STALE_CLAIM_SECS)).await? {
                break at;
            }
            let current = self.store.chat_action(&session.id, &action.id).await?.ok_or_else(action_not_found)?;
            if current.status == crate::storage::ChatActionStatus::Applied {
                return self.applied(&session, &action.id, true).await;
            }
            if Instant::now() > deadline {
                return Err(Error::conflict("ACTION_IN_PROGRESS", "Another apply of this action is still running."));
            }
            tokio::time::sleep(StdDuration::from_millis(50)).await;
        };
        let result = match self.run(caller, &action).await {
            Ok(result) => result,
            Err(e) => {
                self.store.unclaim_chat_action(&action.id, claimed).await?;
                return Err(e);
            }
        };
        let data = json!({ "actionId": action.id });
        let turn = turn_row(&session.id, "action", &format!("Applied: {}", action.summary), data, 0);
        let finished = self.store.finish_chat_action(&action.id, claimed, &result.to_string(), turn, now()).await?;
        if finished.is_some() {
            return self.applied(&session, &action.id, false).await;
        }
        // This apply held its claim past STALE_CLAIM_SECS and another took it over: the
        // action's result is the one that apply records.
        let current = self.store.chat_action(&session.id, &action.id).await?.ok_or_else(action_not_found)?;
        if current.status == crate::storage::ChatActionStatus::Applied {
            return self.applied(&session, &action.id, true).await;
        }
        Err(Error::conflict("ACTION_IN_PROGRESS", "Another apply of this action is still running."))
    }

    /// Run an action through its route's own core call.
    async fn run(&self, caller: &Caller, action: &ChatActionRow) -> Result<Value> {
        let request: Value = serde_json::from_str(&action.request).map_err(Error::internal)?;
        let stored = |e: serde_json::Error| Error::internal(format!("a stored action does not read: {e}"));
        let answer = match action.kind.as_str() {
            "develop" => {
                let mut req: StartDevelop = serde_json::from_value(request).map_err(stored)?;
                req.idempotency_key = Some(format!("chat-{}", action.id));
                serde_json::to_value(self.studio.develops().start_develop(caller, req).await?)
            }
            "pack" => {
                let req: PackRequest = serde_json::from_value(request).map_err(stored)?;
                serde_json::to_value(self.studio.library().create_pack(caller, req).await?)
            }
            "look" => {
                let req: CreateLookRequest = serde_json::from_value(request).map_err(stored)?;
                serde_json::to_value(self.studio.lookbook().create_look(caller, req).await?)
            }
            other => return Err(Error::internal(format!("a stored action of kind {other}"))),
        };
        answer.map_err(Error::internal)
    }

    /// The applied action and the turn that records it.
    async fn applied(&self, session: &ChatSessionRow, action_id: &ChatActionId, replayed: bool) -> Result<ChatApplied> {
        let action = self.store.chat_action(&session.id, action_id).await?.ok_or_else(action_not_found)?;
        let turns = self.store.chat_turns(&session.id, 0, i64::MAX).await?;
        let recorded = |data: &str| {
            serde_json::from_str::<Value>(data).ok().and_then(|d| d.get("actionId").cloned())
                == Some(Value::String(action.id.to_string()))
        };
        let turn = turns
            .iter()
            .find(|t| t.role == "action" && recorded(&t.data))
            .ok_or_else(|| Error::internal("an applied action has no turn"))?;
        Ok(ChatApplied { action: action_view(&action)?, turn: turn_view(turn, &[])?, replayed })
    }
}
