//! What the assistant is told, and asking it. The core builds the context from the caller's
//! house only: the house's name, the brand clause, the price book, recent develops and recent
//! library assets (the part a session keeps for [`CONTEXT_TTL_SECS`], built ahead by context
//! warm), plus what is read fresh at every turn: the balance and the active memories the caller
//! may see (the house's and their own; never a corrected or retired one, and never another
//! person's). Nothing of another house can reach the reader: every read names the caller's
//! house.

use chrono::Duration;
use serde_json::{Value, json};

use crate::admin::AI_READER;
use crate::api::{ChatWarm, ChatWarmRequest, MemoryScope};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{ChatSessionId, now};
use crate::internal::quality::ReaderOutcome;
use crate::providers::ai::AiClient;
use crate::storage::ChatSessionRow;

use super::Chat;
use super::actions::{Proposal, proposals};

/// How long a kept context serves turns, in seconds.
pub(super) const CONTEXT_TTL_SECS: i64 = 60;
/// Recent develops and library assets the context names.
const RECENT_DEVELOPS: i64 = 10;
const RECENT_ASSETS: i64 = 30;
/// Longest reply kept.
const MAX_REPLY_CHARS: usize = 4_000;
/// The code of an answer the leak guard withheld, and of one that asked for a person: both
/// fail the charged work (so a priced turn is released, never charged for what is not shown)
/// and become an escalation; neither reaches a client.
pub(super) const WITHHELD: &str = "ANSWER_WITHHELD";
pub(super) const HANDOFF: &str = "HANDOFF_ASKED";

const SYSTEM: &str = "You are the studio assistant of a fashion house's image studio. You help one person of the \
    house with their library, develops (paid image jobs), packs (zip downloads) and looks. Use only the context \
    given; never invent ids, prices or facts. You never spend: to do something, propose an action and the person \
    decides. Never repeat keys, secrets, tokens or anyone's email address. Answer with one JSON object and nothing \
    else: {\"reply\": what you say, \"actions\": [proposed actions, possibly none], \"handoff\": true only when a \
    person from support must take over}. An action is {\"kind\": \"develop\", \"summary\": one line, \"request\": \
    {\"tool\": a tool of the price book, \"quality\": \"1k\"|\"2k\"|\"4k\", \"inputs\": {role: asset id}, \"params\": \
    {}}} or {\"kind\": \"pack\", \"summary\", \"request\": {\"assetIds\": [asset ids], \"name\": text}} or \
    {\"kind\": \"look\", \"summary\", \"request\": {\"name\": text, \"modelAssetId\": asset id, \"itemAssetIds\": \
    [{\"assetId\": asset id, \"role\": \"dress\"|\"bottom\"|\"top\"|\"outerwear\"|\"shoes\"|\"bag\"|\"accessory\"|\
    \"jewelry\"}], \"background\": {\"kind\": \"preset\", \"value\": \"white\"|\"bone\"|\"dove\"|\
    \"charcoal\"|\"black\"}, \"aesthetic\": \"editorial\"|\"minimal\"|\"classic\"|\"street\"|\"romantic\"|\
    \"noir\"}}. At most five actions.";

/// What the reader answered, checked.
pub(super) struct Answer {
    pub(super) reply: String,
    pub(super) actions: Vec<Proposal>,
}

impl Chat<'_> {
    /// `POST /api/toolkit/chat/context/warm`: build and keep the session's context, unless a
    /// fresh one is kept already (then nothing is rebuilt: cheap to call twice). 404 for a
    /// session not the caller's.
    pub async fn warm(&self, caller: &Caller, req: ChatWarmRequest) -> Result<ChatWarm> {
        let session = self.own(caller, &ChatSessionId::from(&req.session_id)).await?;
        let (kept, built_at, cached) = self.kept(caller, &session).await?;
        let memories = self.studio.accounts().active_memories(caller).await?.len() as i64;
        let count = |key: &str| kept.get(key).and_then(Value::as_array).map_or(0, |a| a.len() as i64);
        Ok(ChatWarm {
            session_id: session.id.to_string(),
            built_at,
            cached,
            fresh_until: built_at + Duration::seconds(CONTEXT_TTL_SECS),
            memories,
            recent_develops: count("recentDevelops"),
            assets: count("assets"),
        })
    }

    /// The whole context of a turn: the kept part (rebuilt when stale) and the live part.
    pub(super) async fn context_for(&self, caller: &Caller, session: &ChatSessionRow) -> Result<Value> {
        let (mut context, _, _) = self.kept(caller, session).await?;
        let balance = self.studio.billing().totals(&caller.org_id).await?;
        let (mut house, mut yours) = (Vec::new(), Vec::new());
        for m in self.studio.accounts().active_memories(caller).await? {
            let item = json!({ "kind": m.kind, "statement": m.statement });
            if m.scope == MemoryScope::Person { yours.push(item) } else { house.push(item) }
        }
        if let Value::Object(map) = &mut context {
            map.insert("role".into(), json!(caller.role));
            map.insert("balance".into(), json!({ "spendable": balance.spendable(), "held": balance.held }));
            map.insert("memories".into(), json!({ "house": house, "yours": yours }));
        }
        Ok(context)
    }

    /// The kept part of the context, its build time, and whether it was kept already.
    async fn kept(
        &self,
        caller: &Caller,
        session: &ChatSessionRow,
    ) -> Result<(Value, chrono::DateTime<chrono::Utc>, bool)> {
        let fresh = session.context_built_at.filter(|at| now() - *at < Duration::seconds(CONTEXT_TTL_SECS));
        if let (Some(at), Some(kept)) = (fresh, session.context.as_deref())
            && let Ok(value) = serde_json::from_str::<Value>(kept)
        {
            return Ok((value, at, true));
        }
        let at = now();
        let built = self.build(caller).await?;
        self.store.cache_chat_context(&session.id, &built.to_string(), at).await?;
        Ok((built, at, false))
    }

    /// Build the part of the context a session keeps, from the caller's house alone.
    async fn build(&self, caller: &Caller) -> Result<Value> {
        let studio = self.studio;
        let org = &caller.org_id;
        let house = studio.accounts().house_name(org).await?;
        let clause = studio.brand().clause_for(org).await?;
        let book = studio.billing().price_book(&studio.develops().runnable_tools());
        let prices: Vec<Value> = book
            .tools
            .iter()
            .map(|t| {
                let by: serde_json::Map<String, Value> =
                    t.prices.iter().map(|p| (p.resolution.clone(), p.tokens.into())).collect();
                json!({ "tool": t.tool, "tokens": by })
            })
            .collect();
        let develops: Vec<Value> = studio
            .develops()
            .recent_develops(org, RECENT_DEVELOPS)
            .await?
            .iter()
            .map(|j| {
                json!({ "id": j.id, "tool": j.tool, "quality": j.quality, "status": j.status,
                        "resultAssetId": j.result_asset_id, "createdAt": j.created_at })
            })
            .collect();
        let assets: Vec<Value> = studio
            .library()
            .recent_assets(org, RECENT_ASSETS)
            .await?
            .iter()
            .map(|a| json!({ "id": a.id, "name": a.name, "kind": a.kind, "sku": a.sku }))
            .collect();
        Ok(json!({
            "house": house,
            "brandClause": clause,
            "priceBook": prices,
            "utilityCharge": studio.config.prices.utility_charge,
            "recentDevelops": develops,
            "assets": assets,
        }))
    }

    /// Ask the reader for one answer: under the deployment's turn price when it has one (held,
    /// settled on an answer, released on a failure), else free.
    pub(super) async fn ask(
        &self,
        caller: &Caller,
        client: AiClient,
        context: Value,
        transcript: Vec<(String, String)>,
        message: String,
    ) -> Result<(Answer, i64)> {
        let mut prompt = format!("Context (JSON):\n{context}\n\nThe conversation so far:\n");
        for (role, text) in &transcript {
            prompt.push_str(&format!("{role}: {text}\n"));
        }
        prompt.push_str(&format!("\nThe person says: {message}"));
        let (studio, asker) = (self.studio.clone(), caller.clone());
        let work = async move {
            let started = std::time::Instant::now();
            let answer = client.read_json(SYSTEM, &prompt, &[]).await;
            let outcome = match &answer {
                Ok(Value::Object(_)) => ReaderOutcome::Answered,
                Ok(_) => ReaderOutcome::Unusable,
                Err(e) => ReaderOutcome::of(e),
            };
            studio.internal().record_reader_call(Some(&asker.org_id), "chat", outcome, started).await;
            match answer {
                Ok(Value::Object(map)) => checked(&studio, &asker, &map).await,
                Ok(_) => Err(crate::ai::vision::bad_output("not a JSON object")),
                Err(e) => Err(crate::ai::reads::ai_failed(&e)),
            }
        };
        let price = self.studio.config.chat.turn_price;
        if price > 0 {
            self.studio.ai().charged_at(caller, ("chat", AI_READER), price, None, work).await
        } else {
            Ok((work.await?, 0))
        }
    }
}

/// The reader's answer checked before anything is charged: a reply (unless it asks for a
/// person: [`HANDOFF`]), the proposals that read, and nothing the leak guard withholds
/// ([`WITHHELD`]) in the reply, a summary or a request.
async fn checked(
    studio: &crate::studio::Studio,
    caller: &Caller,
    map: &serde_json::Map<String, Value>,
) -> Result<Answer> {
    let flow = |code: &'static str, message: &str| Error::new(ErrorKind::Upstream, code, message.to_string());
    if map.get("handoff").and_then(Value::as_bool).unwrap_or(false) {
        return Err(flow(HANDOFF, "The assistant asked for a person."));
    }
    let reply = map.get("reply").and_then(Value::as_str).map(|r| crate::ai::vision::tidy(r, MAX_REPLY_CHARS));
    let reply =
        reply.filter(|r| !r.is_empty()).ok_or_else(|| crate::ai::vision::bad_output("reply is missing or empty"))?;
    let actions = proposals(studio, map.get("actions"));
    let said = std::iter::once(reply.clone())
        .chain(actions.iter().flat_map(|a| [a.summary.clone(), a.request.to_string()]))
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(found) = super::guard::leak(studio, caller, &said).await? {
        tracing::warn!(found, "the leak guard withheld an answer");
        return Err(flow(WITHHELD, "The answer was withheld."));
    }
    Ok(Answer { reply, actions })
}
