//! The platform gate (`02-route-groups.md` §4.10) and its admin side (§4.12 `invite`,
//! `invite-codes`, `invite-requests`), on the view [`Invitations`] (`studio.invitations()`).
//!
//! - An **invitation** is for one address (one per address, ever). Its token is random and kept
//!   only as a SHA-256; admins write invitations directly, anyone writes one by redeeming a code.
//!   Accepting needs a session whose email is the invitation's; it records the acceptance and
//!   credits the invitation's grant (from its code) into the person's home house in the same
//!   transaction, so exactly once. A replay changes nothing.
//! - A **code** is `LABEL-XXXXXX` ([`codes`]) with a use limit; a use is taken by one
//!   conditional UPDATE, so no number of concurrent redeemers passes the limit. Admins mint
//!   campaign codes; every person gets one code of their own on first reading
//!   `invites/mine`, whose numbers are the constants below.
//! - A **request** is a stranger asking to be let in, with intake answers; one per address.
//! - **Link preview** ([`preview`]) reads cards for a request's links, safely.
//!
//! Letters ([`letters`]) are posted to the mail outbox where they are written (an invitation
//! from a code or an admin, a request's receipt) and also handed back, so a caller in the same
//! process (the tests) can follow the link a letter carries.

pub(crate) mod codes;
mod html;
pub(crate) mod letters;
pub(crate) mod preview;
pub(crate) mod throwaway;

use chrono::Duration;
use serde_json::Value;

use crate::accounts::Email;
use crate::api::{
    AcceptInvitationRequest, AcceptInvitationResponse, AdminInviteRequest, AdminInviteResponse, IntakeAnswer,
    IntakeAnswers, InvitationLookup, InviteCode, InviteCodeList, InviteRequestBody, InviteRequestList,
    InviteRequestReceived, InviteRequestView, Invitee, InvitesMine, MintInviteCodeRequest, PreviewRequest,
    PreviewResponse, RedeemRequest, RedeemResponse, RevokeInviteCodeRequest,
};
use crate::caller::{Caller, PlatformAdmin};
use crate::error::{Error, Result};
use crate::ids::{CodeId, InvitationId, InviteRequestId, UserId, random_secret, sha256_hex};
use crate::storage::{
    AcceptOutcome, Bucket, InvitationRow, InviteCodeRow, InviteRequestRow, InviteRequestStatus, IssueOutcome,
    NewCredit, RedeemOutcome, StorageError,
};

pub use letters::Letter;

/// A person's own code may first invite this many addresses (`baseMaxUses`).
pub const BASE_MAX_USES: i64 = 5;
/// Each invitee who subscribes adds this many uses to their host's code.
pub const BONUS_USES_PER_SUBSCRIBER: i64 = 1;
/// A person's own code never grows past this many uses.
pub const MAX_OWN_CODE_USES: i64 = 25;
/// Tokens an invitation from a person's own code credits on acceptance (`guestBonusTokens`).
pub const GUEST_BONUS_TOKENS: i64 = 50;
/// Tokens a host's house earns per invitee who subscribes (`hostTokens`), paid once.
pub const HOST_TOKENS: i64 = 100;
/// Days an invitee's subscription must stand before the host is paid (`holdDays`).
pub const HOLD_DAYS: i64 = 14;
/// Days an invitation's granted tokens stay once credited (`days` of a redemption).
pub const GRANT_DAYS: i64 = 30;
/// 1k frames in a look (`looks` and `guestLooks`).
pub const FRAMES_PER_LOOK: i64 = 4;
/// What accepting an invitation opens (`toolkitsOpened`): the whole toolkit, the one the
/// platform has today.
pub const TOOLKITS_OPENED: &[&str] = &["studio"];
/// The largest limit, grant and lifetime of an admin's code.
pub const MAX_CODE_USES: i64 = 10_000;
/// The largest grant per invitation of an admin's code.
pub const MAX_CODE_GRANT: i64 = 10_000;
/// The longest an admin's code lives, in days.
pub const MAX_CODE_DAYS: i64 = 365;
/// Invitation tokens: this prefix and 64 hex characters.
const TOKEN_PREFIX: &str = "inv_";

/// An answer and the letter this call posted to the mail outbox, if any.
#[derive(Debug, Clone)]
pub struct WithLetter<T> {
    /// What the route answers.
    pub answer: T,
    /// The letter posted, if this call wrote one.
    pub letter: Option<Letter>,
}

crate::studio::view! {
    /// The platform gate's operations: `studio.invitations()`.
    Invitations over InvitationStore
}

impl crate::accounts::Accounts<'_> {
    /// The platform gate: invitations, codes, requests and link previews.
    pub fn invitations(&self) -> Invitations<'_> {
        crate::studio::invitations(self.studio)
    }
}

fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", random_secret())
}

/// A token as sent, checked for shape: 400 `TOKEN_REQUIRED` or `BAD_TOKEN`.
fn token_hash(token: Option<&str>) -> Result<String> {
    let token = token.map(str::trim).filter(|t| !t.is_empty());
    let token = token.ok_or_else(|| Error::invalid("TOKEN_REQUIRED", "Send the invitation's token."))?;
    let well_formed = token
        .strip_prefix(TOKEN_PREFIX)
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    if !well_formed {
        return Err(Error::invalid("BAD_TOKEN", "That is not an invitation token."));
    }
    Ok(sha256_hex(token))
}

fn invitation_not_found() -> Error {
    Error::not_found("INVITATION_NOT_FOUND", "No invitation has that token.")
}

fn code_not_found() -> Error {
    Error::not_found("CODE_NOT_FOUND", "No invite code is that one.")
}

/// An address from a body: 400 `EMAIL_REQUIRED` or `BAD_EMAIL`.
fn email(raw: Option<&str>) -> Result<Email> {
    let raw = raw.map(str::trim).filter(|e| !e.is_empty());
    Email::parse(raw.ok_or_else(|| Error::invalid("EMAIL_REQUIRED", "Send an email address."))?)
}

/// 400 `THROWAWAY_EMAIL` for a disposable domain.
fn not_throwaway(email: &Email) -> Result<()> {
    if throwaway::is_throwaway(email.as_str()) {
        return Err(Error::invalid("THROWAWAY_EMAIL", "Use an address you keep; throwaway mail domains are refused."));
    }
    Ok(())
}

/// Why a code refuses now: revoked, expired or spent (in that order); None when it would not.
fn refusal(code: &InviteCodeRow, now: chrono::DateTime<chrono::Utc>) -> Option<Error> {
    if code.revoked_at.is_some() {
        return Some(Error::invalid("CODE_REVOKED", "That invite code was withdrawn."));
    }
    if code.expires_at.is_some_and(|e| e <= now) {
        return Some(Error::invalid("CODE_EXPIRED", "That invite code has expired."));
    }
    if code.used_count >= code.max_uses {
        return Some(Error::invalid("CODE_SPENT", "That invite code has been used up."));
    }
    None
}

fn code_view(c: &InviteCodeRow) -> InviteCode {
    InviteCode {
        id: c.id.clone().into(),
        code: c.code.clone(),
        label: c.label.clone(),
        grant_tokens: c.grant_tokens,
        max_uses: c.max_uses,
        used_count: c.used_count,
        joined_count: c.joined_count,
        expires_at: c.expires_at,
        revoked_at: c.revoked_at,
        created_at: c.created_at,
    }
}

/// A trimmed, non-empty string of at most `max` characters; 400 `code` past it.
fn text(raw: Option<String>, max: usize, code: &'static str, what: &str) -> Result<Option<String>> {
    let Some(value) = raw.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) else { return Ok(None) };
    if value.chars().count() > max {
        return Err(Error::invalid(code, format!("{what} is at most {max} characters.")).with("max", max));
    }
    Ok(Some(value))
}

/// An http(s) URL of at most 2048 bytes; 400 `code` otherwise.
fn web_url(raw: &str, code: &'static str, what: &str) -> Result<String> {
    let raw = raw.trim();
    let ok = raw.len() <= preview::MAX_LINK_BYTES
        && reqwest::Url::parse(raw).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
    if !ok {
        return Err(Error::invalid(code, format!("{what} must be an http(s) URL.")));
    }
    Ok(raw.to_string())
}

/// Intake answers trimmed and bounded: at most 20 answers of 200 characters per question, and a
/// `painText` of at most 2000 characters.
fn intake(raw: Option<IntakeAnswers>) -> Result<IntakeAnswers> {
    let raw = raw.unwrap_or_default();
    let list = |values: Vec<String>, question: &str| -> Result<Vec<String>> {
        let values: Vec<String> = values.into_iter().map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect();
        if values.len() > 20 || values.iter().any(|v| v.chars().count() > 200) {
            return Err(Error::invalid(
                "BAD_INTAKE",
                format!("{question}: at most 20 answers of at most 200 characters each."),
            ));
        }
        Ok(values)
    };
    Ok(IntakeAnswers {
        audience: list(raw.audience, "audience")?,
        volume: list(raw.volume, "volume")?,
        draws: list(raw.draws, "draws")?,
        ai_today: list(raw.ai_today, "aiToday")?,
        pain: list(raw.pain, "pain")?,
        cost: list(raw.cost, "cost")?,
        pain_text: text(raw.pain_text, 2000, "BAD_INTAKE", "painText")?,
    })
}

/// The intake as the admin list shows it: the questions answered, in the intake's order.
fn answers(intake: &IntakeAnswers) -> Vec<IntakeAnswer> {
    let mut out = Vec::new();
    for (question, values) in [
        ("audience", &intake.audience),
        ("volume", &intake.volume),
        ("draws", &intake.draws),
        ("aiToday", &intake.ai_today),
        ("pain", &intake.pain),
        ("cost", &intake.cost),
    ] {
        if !values.is_empty() {
            out.push(IntakeAnswer { question: question.to_string(), answers: values.clone() });
        }
    }
    if let Some(text) = &intake.pain_text {
        out.push(IntakeAnswer { question: "painText".to_string(), answers: vec![text.clone()] });
    }
    out
}

impl Invitations<'_> {
    /// `{public_url}{path}`.
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.studio.config.public_url.trim_end_matches('/'))
    }

    fn accept_url(&self, token: &str) -> String {
        self.url(&format!("/invite?token={token}"))
    }

    /// 1k frames `tokens` develop at the live price.
    fn frames(&self, tokens: i64) -> i64 {
        tokens / self.studio.config.prices.develop.k1.max(1)
    }

    /// `tokens` in US dollars at the smallest active pack's rate, to the cent.
    fn usd(&self, tokens: i64) -> f64 {
        let pack = self.studio.config.billing.active_packs().min_by_key(|p| p.tokens);
        let cents = pack.map_or(0, |p| tokens * p.price_cents / p.tokens);
        cents as f64 / 100.0
    }

    /// Archive a letter and queue it for delivery.
    async fn post(&self, letter: &Letter, kind: &'static str) -> Result<()> {
        let letter = crate::mail::Letter {
            kind,
            to: letter.to.clone(),
            user_id: None,
            subject: letter.subject.clone(),
            html: letter.html.clone(),
            text: letter.text.clone(),
        };
        self.studio.mail().post_letter(letter).await?;
        Ok(())
    }

    /// The platform invitation to an address, if any.
    pub(crate) async fn invitation_for(&self, email: &str) -> Result<Option<InvitationRow>> {
        Ok(self.store.invitation_by_email(email).await?)
    }

    /// The person's own invite code, if one was minted (never mints one).
    pub(crate) async fn code_of(&self, user_id: &UserId) -> Result<Option<InviteCodeRow>> {
        Ok(self.store.own_code(user_id).await?)
    }

    /// Public: whom an invitation is for. 400 `TOKEN_REQUIRED` / `BAD_TOKEN`, 404
    /// `INVITATION_NOT_FOUND`, 410 `INVITATION_ACCEPTED`.
    pub async fn lookup(&self, token: Option<&str>) -> Result<InvitationLookup> {
        let hash = token_hash(token)?;
        let invitation = self.store.invitation_by_token(&hash).await?.ok_or_else(invitation_not_found)?;
        if invitation.accepted_at.is_some() {
            return Err(Error::gone("INVITATION_ACCEPTED", "This invitation was accepted already."));
        }
        Ok(InvitationLookup { email: invitation.email })
    }

    /// Accept an invitation with the invited person's own session: records the acceptance and
    /// credits its grant (if any) into their home house, once. A replay answers
    /// `alreadyAccepted: true` and changes nothing. 403 `EMAIL_MISMATCH` for anyone else.
    pub async fn accept(&self, caller: &Caller, req: AcceptInvitationRequest) -> Result<AcceptInvitationResponse> {
        caller.require_session()?;
        let hash = token_hash(req.token.as_deref())?;
        let studio = self.studio;
        let invitation = self.store.invitation_by_token(&hash).await?.ok_or_else(invitation_not_found)?;
        let user =
            studio.accounts().user(&caller.user_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))?;
        if user.email != invitation.email {
            return Err(Error::forbidden(
                "EMAIL_MISMATCH",
                "This invitation is for another address; sign in with the address it was sent to.",
            ));
        }
        if invitation.accepted_at.is_some() {
            return Ok(AcceptInvitationResponse { ok: true, already_accepted: true });
        }
        let now = crate::ids::now();
        let house = match studio.accounts().home_seat(&user.id).await? {
            Some(seat) => seat.org_id,
            None => caller.org_id.clone(),
        };
        let grant = (invitation.grant_tokens > 0).then(|| NewCredit {
            org_id: house,
            bucket: Bucket::Grant,
            amount: invitation.grant_tokens,
            user_id: Some(user.id.clone()),
            reason: format!("invitation {}", invitation.id),
            expires_at: Some(now + Duration::days(GRANT_DAYS)),
            now,
        });
        let outcome = self.store.accept_invitation(&invitation.id, &user.id, grant, now).await?;
        Ok(AcceptInvitationResponse { ok: true, already_accepted: outcome == AcceptOutcome::AlreadyAccepted })
    }

    /// Public: redeem a code for an address. Writes an invitation (never an account) and takes
    /// one use; an address that already has an invitation takes none. 400 `CODE_REQUIRED`,
    /// `BAD_CODE`, `EMAIL_REQUIRED`, `BAD_EMAIL`, `THROWAWAY_EMAIL`, `CODE_REVOKED`,
    /// `CODE_EXPIRED`, `CODE_SPENT`; 404 `CODE_NOT_FOUND`. The letter carries the token.
    pub async fn redeem(&self, req: RedeemRequest) -> Result<WithLetter<RedeemResponse>> {
        let raw = req.code.as_deref().map(str::trim).filter(|c| !c.is_empty());
        let raw = raw.ok_or_else(|| Error::invalid("CODE_REQUIRED", "Send the invite code."))?;
        let canonical = codes::parse(raw)
            .ok_or_else(|| Error::invalid("BAD_CODE", "That is not an invite code (LABEL-XXXXXX)."))?;
        let email = email(req.email.as_deref())?;
        not_throwaway(&email)?;
        let code = self.store.code_by_code(&canonical).await?.ok_or_else(code_not_found)?;
        let now = crate::ids::now();
        if let Some(refused) = refusal(&code, now).filter(|e| e.code != "CODE_SPENT") {
            return Err(refused);
        }
        let token = new_token();
        let invitation = InvitationRow {
            id: InvitationId::generate(),
            email: email.as_str().to_string(),
            token_hash: sha256_hex(&token),
            code_id: Some(code.id.clone()),
            invited_by: code.owner_user_id.clone().map(String::from),
            grant_tokens: code.grant_tokens,
            created_at: now,
            accepted_at: None,
            accepted_by: None,
            host_rewarded_at: None,
        };
        let answer = |grant_tokens: i64| RedeemResponse {
            status: "opened".to_string(),
            label: code.label.clone(),
            grant_tokens,
            frames: self.frames(grant_tokens),
            looks: self.frames(grant_tokens) / FRAMES_PER_LOOK,
            days: GRANT_DAYS,
        };
        match self.store.redeem_code(&code.id, invitation, now).await? {
            RedeemOutcome::Redeemed(written) => {
                let letter = letters::invitation(&written.email, &self.accept_url(&token), written.grant_tokens);
                self.post(&letter, "invitation").await?;
                Ok(WithLetter { answer: answer(written.grant_tokens), letter: Some(letter) })
            }
            RedeemOutcome::AlreadyInvited(existing) => {
                Ok(WithLetter { answer: answer(existing.grant_tokens), letter: None })
            }
            RedeemOutcome::Refused(current) => Err(refusal(&current, now)
                .unwrap_or_else(|| Error::invalid("CODE_SPENT", "That invite code has been used up."))),
            RedeemOutcome::NotFound => Err(code_not_found()),
        }
    }

    /// Public: ask to be let in. A second request from an address answers `already_requested`
    /// and changes nothing. 400 `EMAIL_REQUIRED`, `BAD_EMAIL`, `THROWAWAY_EMAIL`, `BAD_NAME`,
    /// `BAD_HOUSE`, `BAD_COLLECTION`, `BAD_INTAKE`, `BAD_LINK`, `TOO_MANY_LINKS`,
    /// `BAD_LOGO_URL`, `BAD_WEBSITE`.
    pub async fn request(&self, req: InviteRequestBody) -> Result<WithLetter<InviteRequestReceived>> {
        let email = email(req.email.as_deref())?;
        not_throwaway(&email)?;
        let name = text(req.name, 100, "BAD_NAME", "name")?;
        let house = text(req.house, 200, "BAD_HOUSE", "house")?;
        let collection = text(req.collection, 200, "BAD_COLLECTION", "collection")?;
        let intake = intake(req.intake)?;
        let mut links = Vec::new();
        for link in req.link.into_iter().chain(req.links.unwrap_or_default()) {
            if link.trim().is_empty() {
                continue;
            }
            let link = web_url(&link, "BAD_LINK", "Each link")?;
            if !links.contains(&link) {
                links.push(link);
            }
        }
        if links.len() > 10 {
            return Err(Error::invalid("TOO_MANY_LINKS", "Send at most 10 links.").with("max", 10));
        }
        let logo_url = match req.logo_url.filter(|u| !u.trim().is_empty()) {
            Some(u) => Some(web_url(&u, "BAD_LOGO_URL", "logoUrl")?),
            None => None,
        };
        let website = match req.website.filter(|u| !u.trim().is_empty()) {
            Some(u) => Some(web_url(&u, "BAD_WEBSITE", "website")?),
            None => None,
        };
        let row = InviteRequestRow {
            id: InviteRequestId::generate(),
            email: email.as_str().to_string(),
            name: name.clone(),
            house,
            collection,
            intake: serde_json::to_string(&intake).map_err(Error::internal)?,
            links: serde_json::to_string(&links).map_err(Error::internal)?,
            logo_url,
            website,
            created_at: crate::ids::now(),
            status: InviteRequestStatus::Pending,
        };
        if self.store.insert_request(row).await? {
            let letter = letters::request_received(email.as_str(), name.as_deref());
            self.post(&letter, "invite_request").await?;
            Ok(WithLetter { answer: InviteRequestReceived { status: "received".into() }, letter: Some(letter) })
        } else {
            Ok(WithLetter { answer: InviteRequestReceived { status: "already_requested".into() }, letter: None })
        }
    }

    /// Public: cards for one to six links, in order; a link that cannot be read safely is a
    /// card with `ok: false`. 400 `LINKS_REQUIRED`, `TOO_MANY_LINKS`, `BAD_LINKS`.
    pub async fn preview(&self, req: PreviewRequest) -> Result<PreviewResponse> {
        let links = match req.links {
            None | Some(Value::Null) => return Err(Error::invalid("LINKS_REQUIRED", "Send links: one to six URLs.")),
            Some(Value::Array(links)) => links,
            Some(_) => return Err(Error::invalid("BAD_LINKS", "links must be an array of strings.")),
        };
        if links.is_empty() {
            return Err(Error::invalid("LINKS_REQUIRED", "Send links: one to six URLs."));
        }
        if links.len() > preview::MAX_LINKS {
            return Err(Error::invalid("TOO_MANY_LINKS", "Send at most six links.").with("max", preview::MAX_LINKS));
        }
        let links: Option<Vec<String>> = links
            .into_iter()
            .map(|l| match l {
                Value::String(s) if s.len() <= preview::MAX_LINK_BYTES => Some(s),
                _ => None,
            })
            .collect();
        let links = links.ok_or_else(|| {
            Error::invalid("BAD_LINKS", "Every link must be a string of at most 2048 bytes.").with("max", 2048)
        })?;
        Ok(PreviewResponse { cards: preview::cards(&self.studio.config.link_preview, links).await })
    }

    /// The caller's own code (minted on first read) and what it gives; pays the caller's house
    /// for invitees whose subscription stood [`HOLD_DAYS`], and grows the code by
    /// [`BONUS_USES_PER_SUBSCRIBER`] per subscribed invitee. A session only.
    pub async fn mine(&self, caller: &Caller) -> Result<InvitesMine> {
        caller.require_session()?;
        let studio = self.studio;
        let mut code = self.own_code(caller).await?;
        let rows = self.store.invitees(&code.id).await?;
        let now = crate::ids::now();
        let subscribed = rows.iter().filter(|r| r.subscribed_at.is_some()).count() as i64;
        let allowed = (BASE_MAX_USES + subscribed * BONUS_USES_PER_SUBSCRIBER).min(MAX_OWN_CODE_USES);
        if allowed > code.max_uses {
            self.store.raise_max_uses(&code.id, allowed).await?;
            code.max_uses = allowed;
        }
        let due = rows.iter().filter(|r| {
            r.host_rewarded_at.is_none() && r.subscribed_at.is_some_and(|s| s + Duration::days(HOLD_DAYS) <= now)
        });
        let mut house = None;
        for invitee in due {
            if house.is_none() {
                house = Some(match studio.accounts().home_seat(&caller.user_id).await? {
                    Some(seat) => seat.org_id,
                    None => caller.org_id.clone(),
                });
            }
            let credit = NewCredit {
                org_id: house.clone().unwrap_or_default(),
                bucket: Bucket::Grant,
                amount: HOST_TOKENS,
                user_id: Some(caller.user_id.clone()),
                reason: format!("invitee {} subscribed", invitee.id),
                expires_at: None,
                now,
            };
            self.store.reward_host(&invitee.id, credit).await?;
        }
        let guest_tokens = studio.config.signup_grant_tokens.max(0) + code.grant_tokens;
        let invitees = rows
            .into_iter()
            .map(|r| Invitee {
                email: r.email,
                invited_at: r.created_at,
                signed_up: r.has_account == 1 || r.accepted_at.is_some(),
                subscribed: r.subscribed_at.is_some(),
                subscribed_at: r.subscribed_at,
            })
            .collect();
        Ok(InvitesMine {
            url: self.url(&format!("/invite?code={}", code.code)),
            code: code.code.clone(),
            max_uses: code.max_uses,
            base_max_uses: BASE_MAX_USES,
            used_count: code.used_count,
            invites_left: (code.max_uses - code.used_count).max(0),
            guest_looks: self.frames(guest_tokens) / FRAMES_PER_LOOK,
            guest_tokens,
            host_tokens: HOST_TOKENS,
            guest_value_usd: self.usd(guest_tokens),
            guest_arrival_usd: self.usd(code.grant_tokens),
            guest_bonus_tokens: code.grant_tokens,
            host_value_usd: self.usd(HOST_TOKENS),
            hold_days: HOLD_DAYS,
            invitees,
        })
    }

    /// The caller's own code, minted on first read. Two first reads at once mint one: the
    /// second insert meets the unique owner index and reads the first's code.
    async fn own_code(&self, caller: &Caller) -> Result<InviteCodeRow> {
        let studio = self.studio;
        for _ in 0..4 {
            if let Some(code) = self.store.own_code(&caller.user_id).await? {
                return Ok(code);
            }
            let user = studio
                .accounts()
                .user(&caller.user_id)
                .await?
                .ok_or_else(|| Error::unauthenticated("No valid session"))?;
            let label = codes::label_for(&user.email);
            let row = InviteCodeRow {
                id: CodeId::generate(),
                code: codes::draw(&label),
                label,
                owner_user_id: Some(user.id.clone()),
                created_by: Some(user.id.clone()),
                grant_tokens: GUEST_BONUS_TOKENS,
                max_uses: BASE_MAX_USES,
                used_count: 0,
                expires_at: None,
                revoked_at: None,
                created_at: crate::ids::now(),
                joined_count: 0,
            };
            match self.store.insert_code(row).await {
                Ok(()) | Err(StorageError::Conflict(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::internal("no own invite code after four attempts"))
    }

    /// Admin: invite an address. A new invitation, or a new token for the address's pending
    /// one (the old link stops working), or nothing once the address accepted. The token is
    /// shown here once. 400 `EMAIL_REQUIRED`, `BAD_EMAIL`.
    pub async fn admin_invite(
        &self,
        admin: &PlatformAdmin,
        req: AdminInviteRequest,
    ) -> Result<WithLetter<AdminInviteResponse>> {
        let email = email(req.email.as_deref())?;
        self.invite_address(email, Some(admin.user_id().to_string())).await
    }

    /// Invite an address (the admin's path, and the analyst's approval of a request): a new
    /// invitation, a new token for a pending one, or nothing once the address accepted.
    pub(crate) async fn invite_address(
        &self,
        email: Email,
        invited_by: Option<String>,
    ) -> Result<WithLetter<AdminInviteResponse>> {
        let token = new_token();
        let row = InvitationRow {
            id: InvitationId::generate(),
            email: email.as_str().to_string(),
            token_hash: sha256_hex(&token),
            code_id: None,
            invited_by,
            grant_tokens: 0,
            created_at: crate::ids::now(),
            accepted_at: None,
            accepted_by: None,
            host_rewarded_at: None,
        };
        let outcome = self.store.issue_invitation(row).await?;
        let toolkits_opened = TOOLKITS_OPENED.iter().map(|t| t.to_string()).collect();
        let email = email.as_str().to_string();
        if outcome == IssueOutcome::Accepted {
            let answer =
                AdminInviteResponse { email, token: None, url: None, status: "accepted".into(), toolkits_opened };
            return Ok(WithLetter { answer, letter: None });
        }
        let grant = self.store.invitation_by_email(&email).await?.map_or(0, |i| i.grant_tokens);
        let url = self.accept_url(&token);
        let letter = letters::invitation(&email, &url, grant);
        self.post(&letter, "invitation").await?;
        let status = if outcome == IssueOutcome::Created { "invited" } else { "reissued" };
        let answer =
            AdminInviteResponse { email, token: Some(token), url: Some(url), status: status.into(), toolkits_opened };
        Ok(WithLetter { answer, letter: Some(letter) })
    }

    /// Admin: every code admins minted, newest first.
    pub async fn admin_codes(&self, _admin: &PlatformAdmin) -> Result<InviteCodeList> {
        Ok(InviteCodeList { codes: self.store.admin_codes().await?.iter().map(code_view).collect() })
    }

    /// Admin: mint a campaign code. 400 `MAX_USES_REQUIRED`, `BAD_MAX_USES`, `BAD_LABEL`,
    /// `BAD_GRANT`, `BAD_EXPIRY` (each with `max` where one applies); 409 `CODE_COLLISION`
    /// when a live admin code has the label (or, once in a billion, the drawn code exists).
    pub async fn mint_code(&self, admin: &PlatformAdmin, req: MintInviteCodeRequest) -> Result<InviteCode> {
        let max_uses =
            req.max_uses.ok_or_else(|| Error::invalid("MAX_USES_REQUIRED", "Say how many addresses it may invite."))?;
        if !(1..=MAX_CODE_USES).contains(&max_uses) {
            return Err(
                Error::invalid("BAD_MAX_USES", format!("maxUses is 1 to {MAX_CODE_USES}.")).with("max", MAX_CODE_USES)
            );
        }
        let label = match req.label.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
            Some(raw) => {
                codes::label(raw).ok_or_else(|| Error::invalid("BAD_LABEL", "A label is 2 to 16 letters or digits."))?
            }
            None => "INVITE".to_string(),
        };
        let grant_tokens = req.grant_tokens.unwrap_or(0);
        if !(0..=MAX_CODE_GRANT).contains(&grant_tokens) {
            return Err(Error::invalid("BAD_GRANT", format!("grantTokens is 0 to {MAX_CODE_GRANT}."))
                .with("max", MAX_CODE_GRANT));
        }
        let now = crate::ids::now();
        let expires_at = match req.expires_in_days {
            None => None,
            Some(d) if (1..=MAX_CODE_DAYS).contains(&d) => Some(now + Duration::days(d)),
            Some(_) => {
                return Err(Error::invalid("BAD_EXPIRY", format!("expiresInDays is 1 to {MAX_CODE_DAYS}."))
                    .with("max", MAX_CODE_DAYS));
            }
        };
        let row = InviteCodeRow {
            id: CodeId::generate(),
            code: codes::draw(&label),
            label,
            owner_user_id: None,
            created_by: Some(UserId::from(admin.user_id().to_string())),
            grant_tokens,
            max_uses,
            used_count: 0,
            expires_at,
            revoked_at: None,
            created_at: now,
            joined_count: 0,
        };
        match self.store.insert_code(row.clone()).await {
            Ok(()) => Ok(code_view(&row)),
            Err(StorageError::Conflict(_)) => Err(Error::conflict(
                "CODE_COLLISION",
                format!("A live code already has the label {}; revoke it or pick another.", row.label),
            )),
            Err(e) => Err(e.into()),
        }
    }

    /// Admin: revoke a code, at once and for good (a second revoke keeps the first time).
    /// 400 `ID_REQUIRED`; 404 `CODE_NOT_FOUND`.
    pub async fn revoke_code(&self, _admin: &PlatformAdmin, req: RevokeInviteCodeRequest) -> Result<InviteCode> {
        let id = req.id.as_deref().map(str::trim).filter(|i| !i.is_empty());
        let id = id.ok_or_else(|| Error::invalid("ID_REQUIRED", "Name the code with id."))?;
        let revoked = self.store.revoke_code(&CodeId::from(id), crate::ids::now()).await?;
        revoked.as_ref().map(code_view).ok_or_else(code_not_found)
    }

    /// Admin: every request to be let in, newest first.
    pub async fn admin_requests(&self, _admin: &PlatformAdmin) -> Result<InviteRequestList> {
        let rows = self.store.invite_requests().await?;
        Ok(InviteRequestList { requests: rows.into_iter().map(request_view).collect() })
    }
}

/// A request as the admin and the analyst see it.
pub(crate) fn request_view(r: InviteRequestRow) -> InviteRequestView {
    let intake: IntakeAnswers = serde_json::from_str(&r.intake).unwrap_or_default();
    InviteRequestView {
        id: r.id.into(),
        name: r.name,
        house: r.house,
        email: r.email,
        collection: r.collection,
        status: r.status.to_string(),
        created_at: r.created_at,
        answers: answers(&intake),
        links: serde_json::from_str(&r.links).unwrap_or_default(),
        logo_url: r.logo_url,
        website: r.website,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_checked_for_shape_before_any_lookup() {
        let token = new_token();
        assert_eq!(token_hash(Some(&token)).expect("well formed"), sha256_hex(&token));
        assert_eq!(token_hash(Some(&format!(" {token} "))).expect("trimmed"), sha256_hex(&token));
        assert_eq!(token_hash(None).unwrap_err().code, "TOKEN_REQUIRED");
        assert_eq!(token_hash(Some("  ")).unwrap_err().code, "TOKEN_REQUIRED");
        for bad in ["inv_", "abc", &token[..token.len() - 1], &token.to_uppercase(), &format!("{token}0")] {
            assert_eq!(token_hash(Some(bad)).unwrap_err().code, "BAD_TOKEN", "{bad}");
        }
    }

    #[test]
    fn a_code_refuses_revoked_then_expired_then_spent() {
        let now = crate::ids::now();
        let code = InviteCodeRow {
            id: "c".into(),
            code: "VIP-ABCDEF".into(),
            label: "VIP".into(),
            owner_user_id: None,
            created_by: None,
            grant_tokens: 0,
            max_uses: 2,
            used_count: 2,
            expires_at: Some(now - Duration::days(1)),
            revoked_at: Some(now),
            created_at: now,
            joined_count: 0,
        };
        assert_eq!(refusal(&code, now).map(|e| e.code), Some("CODE_REVOKED"));
        let code = InviteCodeRow { revoked_at: None, ..code };
        assert_eq!(refusal(&code, now).map(|e| e.code), Some("CODE_EXPIRED"));
        let code = InviteCodeRow { expires_at: None, ..code };
        assert_eq!(refusal(&code, now).map(|e| e.code), Some("CODE_SPENT"));
        let code = InviteCodeRow { used_count: 1, ..code };
        assert!(refusal(&code, now).is_none());
    }

    #[test]
    fn intake_is_bounded_and_shown_in_order() {
        let given = IntakeAnswers {
            audience: vec![" women ".into(), "".into()],
            cost: vec!["< $500".into()],
            pain_text: Some(" slow shoots ".into()),
            ..IntakeAnswers::default()
        };
        let kept = intake(Some(given)).expect("fits");
        assert_eq!(kept.audience, ["women"]);
        let shown = answers(&kept);
        let questions: Vec<&str> = shown.iter().map(|a| a.question.as_str()).collect();
        assert_eq!(questions, ["audience", "cost", "painText"]);
        assert_eq!(shown[2].answers, ["slow shoots"]);
        let too_many = IntakeAnswers { pain: vec!["x".into(); 21], ..IntakeAnswers::default() };
        assert_eq!(intake(Some(too_many)).unwrap_err().code, "BAD_INTAKE");
    }
}
