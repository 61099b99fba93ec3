//! The person's own record: the account page (§4.8), the avatar, the billing contact, `/api/me`
//! (read, export, erase), onboarding steps and intake answers (§4.15).

use crate::accounts::Accounts;
use crate::ids::{IntakeId, OrgId, UserId};
use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};

use crate::accounts::Email;
use crate::api::{
    AccountPatch, AccountView, AvatarView, BillingContact, BillingEmailRequest, BillingEmailView, Erased,
    IntakeAnswers, IntakeRecorded, Invoice, MeView, MyHouse, OnboardingStep, OnboardingView, Profile, SeatRole,
    TokenUsage, WorkflowUsage,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{new_id, now};
use crate::storage::{EraseOutcome, PlanRow, ProfileRow};

/// The largest avatar accepted, in bytes.
pub const MAX_AVATAR_BYTES: usize = 512 * 1024;
/// The invoices the account page lists.
const INVOICES_SHOWN: i64 = 50;

/// The onboarding steps, in order: (key, what it asks).
pub const ONBOARDING_STEPS: [(&str, &str); 5] = [
    ("profile", "Tell us your name and add a picture"),
    ("intake", "Tell us about your house"),
    ("first_upload", "Upload a first image to the library"),
    ("first_develop", "Develop a first frame"),
    ("invite_team", "Invite someone to a seat"),
];

/// Longest display name of a person.
const MAX_PERSON_NAME_CHARS: usize = 200;

/// The window of the account page: 7, 30 or 90 days; anything else is 30.
pub fn account_days(raw: Option<&str>) -> i64 {
    match raw.map(str::trim) {
        Some("7") => 7,
        Some("90") => 90,
        _ => 30,
    }
}

impl Accounts<'_> {
    pub(crate) fn avatar_url(&self, p: &ProfileRow) -> Option<String> {
        p.avatar_key
            .as_ref()
            .map(|_| format!("{}/api/account/avatar/{}?v={}", self.studio.config.public_url, p.id, p.avatar_version))
    }

    fn profile_view(&self, p: &ProfileRow) -> Profile {
        Profile {
            id: p.id.to_string(),
            name: p.name.clone(),
            email: p.email.clone(),
            email_verified: p.email_verified_at.is_some(),
            image: self.avatar_url(p),
            joined_at: p.created_at,
        }
    }

    async fn my_profile(&self, caller: &Caller) -> Result<ProfileRow> {
        self.store.profile(&caller.user_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))
    }

    /// The account page: profile, plan, tokens over `days`, invoices and the billing contact.
    pub async fn account(&self, caller: &Caller, days: i64) -> Result<AccountView> {
        let profile = self.my_profile(caller).await?;
        let balance = self.studio.billing().balance(caller).await?;
        let since = now() - Duration::days(days);
        let mut by_workflow: Vec<WorkflowUsage> = self
            .store
            .workflow_usage(&caller.org_id, since)
            .await?
            .into_iter()
            .map(|w| WorkflowUsage { workflow: w.workflow, tokens: w.tokens, runs: w.runs, last_at: w.last_at })
            .collect();
        // What the ledger settled beyond finished jobs: charged AI reads.
        let jobs: i64 = by_workflow.iter().map(|w| w.tokens).sum();
        let reads = self.store.settled_since(&caller.org_id, since).await? - jobs;
        if reads > 0 {
            by_workflow.push(WorkflowUsage { workflow: "reads".into(), tokens: reads, runs: 0, last_at: None });
            by_workflow.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.workflow.cmp(&b.workflow)));
        }
        let invoices = self
            .store
            .invoices(&caller.org_id, INVOICES_SHOWN)
            .await?
            .into_iter()
            .map(|c| Invoice {
                id: c.reference,
                at: c.paid_at.unwrap_or(c.created_at),
                kind: c.kind,
                item: c.item,
                tokens: c.tokens,
                amount_usd: c.amount_cents as f64 / 100.0,
                reference: c.payment_id,
            })
            .collect();
        let card_on_file = self.studio.billing().account_of(&caller.org_id).await?.is_some_and(|a| a.has_card);
        let email = match self.store.billing_email(&caller.org_id).await? {
            Some(e) => Some(e),
            None => self.house_owner_email(&caller.org_id).await?,
        };
        Ok(AccountView {
            profile: self.profile_view(&profile),
            plan: self.studio.billing().plan_view(&caller.org_id).await?,
            tokens: TokenUsage {
                balance: balance.balance,
                grant: balance.grant,
                topup: balance.topup,
                held: balance.held,
                days,
                by_workflow,
            },
            invoices,
            billing: BillingContact {
                card_on_file,
                email,
                can_manage: caller.is_session() && caller.role == SeatRole::Owner,
            },
        })
    }

    /// Change the person's own display name (1 to 200 characters, trimmed; 400 `BAD_NAME`
    /// otherwise) and answer the account page over the default window. A session only (403
    /// `SESSION_REQUIRED` for a key: a key acts for the house, not for a person's profile).
    pub async fn rename_person(&self, caller: &Caller, req: AccountPatch) -> Result<AccountView> {
        caller.require_session()?;
        let name = req.name.as_deref().map(str::trim).unwrap_or_default();
        if name.is_empty() || name.chars().count() > MAX_PERSON_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(Error::invalid(
                "BAD_NAME",
                format!("A name is 1 to {MAX_PERSON_NAME_CHARS} characters, with no control characters."),
            ));
        }
        self.my_profile(caller).await?;
        self.store.set_user_name(&caller.user_id, name).await?;
        self.account(caller, account_days(None)).await
    }

    pub(crate) async fn house_owner_email(&self, org_id: &OrgId) -> Result<Option<String>> {
        Ok(self.store.seats(org_id).await?.into_iter().find(|s| s.role == "owner").map(|s| s.email))
    }

    /// The house's display name (empty when the house is gone): what a kept frame's content
    /// credentials name it by.
    pub(crate) async fn house_name(&self, org_id: &OrgId) -> Result<String> {
        Ok(self.store.org_by_id(org_id).await?.map(|o| o.name).unwrap_or_default())
    }

    /// The house's name and its owner's address, for a letter about the house (None when the
    /// house or its owner is gone).
    pub(crate) async fn house_and_owner(&self, org_id: &OrgId) -> Result<Option<(String, String)>> {
        let Some(org) = self.store.org_by_id(org_id).await? else { return Ok(None) };
        Ok(self.house_owner_email(org_id).await?.map(|email| (org.name, email)))
    }

    /// Set where the house's receipts go (the owner's session).
    /// When the house has a customer at the payment provider, the provider is told first (502
    /// `BILLING_EMAIL_FAILED` when it refuses, and nothing changes here).
    pub async fn set_billing_email(&self, caller: &Caller, req: BillingEmailRequest) -> Result<BillingEmailView> {
        caller.require_spend_money()?;
        let email = Email::parse(&req.email)?;
        let customer = self.studio.billing().account_of(&caller.org_id).await?.and_then(|a| a.customer_id);
        if let (Some(customer), Some(provider)) = (customer, self.studio.config.payments.as_ref())
            && let Err(e) = provider.set_customer_email(&customer, email.as_str()).await
        {
            tracing::warn!(error = %e, "the billing email was refused at the provider");
            return Err(Error::new(
                ErrorKind::Upstream,
                "BILLING_EMAIL_FAILED",
                "The payment provider did not take the new billing email; nothing changed.",
            ));
        }
        self.store.set_billing_email(&caller.org_id, email.as_str()).await?;
        Ok(BillingEmailView { email: email.as_str().to_string() })
    }

    /// Replace the caller's avatar: WebP, PNG or JPEG, at most 512 KB, already square. The
    /// person's own session only: a key belongs to the house, not to the person who minted it.
    pub async fn set_avatar(&self, caller: &Caller, bytes: Bytes) -> Result<AvatarView> {
        caller.require_session()?;
        if bytes.len() > MAX_AVATAR_BYTES {
            return Err(Error::new(ErrorKind::TooLarge, "AVATAR_TOO_LARGE", "An avatar is at most 512 KB.")
                .with("maxBytes", MAX_AVATAR_BYTES));
        }
        if bytes.is_empty() {
            return Err(Error::invalid("EMPTY_FILE", "The file is empty."));
        }
        let mime = infer::get(&bytes).map(|t| t.mime_type()).unwrap_or("application/octet-stream");
        if !matches!(mime, "image/webp" | "image/png" | "image/jpeg") {
            return Err(Error::invalid("BAD_AVATAR_TYPE", format!("An avatar is WebP, PNG or JPEG; this is {mime}.")));
        }
        let (w, h) = crate::images::header_dimensions(&bytes)?
            .ok_or_else(|| Error::invalid("BAD_IMAGE", "The picture's size could not be read."))?;
        if w != h {
            return Err(Error::invalid("NOT_SQUARE", format!("An avatar must be square; this is {w}×{h}."))
                .with("width", w)
                .with("height", h));
        }
        let key = format!("avatars/{}/{}", caller.user_id, new_id("av"));
        self.studio.blobs.put_bytes(&key, bytes, MAX_AVATAR_BYTES as u64, |_| true).await.map_err(Error::internal)?;
        if let Some(old) = self.store.set_avatar(&caller.user_id, Some(&key)).await? {
            self.forget_blob(&old).await;
        }
        let profile = self.my_profile(caller).await?;
        Ok(AvatarView { image: self.avatar_url(&profile) })
    }

    /// Remove the caller's avatar and its bytes.
    pub async fn delete_avatar(&self, caller: &Caller) -> Result<AvatarView> {
        caller.require_session()?;
        if let Some(old) = self.store.set_avatar(&caller.user_id, None).await? {
            self.forget_blob(&old).await;
        }
        Ok(AvatarView { image: None })
    }

    async fn forget_blob(&self, key: &str) {
        if let Err(e) = self.studio.blobs.delete(key).await {
            tracing::warn!(error = %e, key, "an old avatar's bytes could not be removed");
        }
    }

    /// A person's avatar bytes and type, for someone who shares a house with them. 401 for a
    /// stranger, 404 when there is no picture.
    pub async fn avatar(&self, caller: &Caller, user_id: &UserId) -> Result<(Bytes, String)> {
        caller.require_session()?;
        if caller.user_id != user_id && !self.store.share_house(&caller.user_id, user_id).await? {
            return Err(Error::unauthenticated("Avatars are shown to people who share a house."));
        }
        let none = || Error::not_found("NO_AVATAR", "That person has no picture.");
        let key = self.store.profile(user_id).await?.and_then(|p| p.avatar_key).ok_or_else(none)?;
        let bytes = self.studio.blobs.get_bytes(&key).await.map_err(|_| none())?;
        let mime = infer::get(&bytes).map(|t| t.mime_type()).unwrap_or("application/octet-stream").to_string();
        Ok((bytes, mime))
    }

    /// The person, their houses and roles. With a key, only the key's own house is listed: a
    /// key belongs to one house and does not reveal where else its minter sits.
    pub async fn me(&self, caller: &Caller) -> Result<MeView> {
        let profile = self.my_profile(caller).await?;
        let mut houses = Vec::new();
        for seat in self.store.seats_of(&caller.user_id).await? {
            if !caller.is_session() && seat.org_id != caller.org_id {
                continue;
            }
            let founder = self.store.founder(&seat.org_id).await?.as_deref() == Some(caller.user_id.as_str());
            houses.push(MyHouse {
                active: seat.org_id == caller.org_id,
                organization_id: seat.org_id.to_string(),
                name: seat.org_name,
                role: seat.role.parse().map_err(Error::internal)?,
                founder,
            });
        }
        Ok(MeView { profile: self.profile_view(&profile), houses, admin: caller.admin })
    }

    /// Everything stored about the person (not the houses' libraries), as one JSON document.
    pub async fn export_me(&self, caller: &Caller) -> Result<serde_json::Value> {
        caller.require_session()?;
        let me = self.me(caller).await?;
        let memories = self
            .store
            .personal_memories(&caller.user_id)
            .await?
            .iter()
            .map(super::memory::memory_view)
            .collect::<Result<Vec<_>>>()?;
        let invitations: Vec<serde_json::Value> = self
            .store
            .seat_invitations_to(&me.profile.email)
            .await?
            .into_iter()
            .map(|i| {
                serde_json::json!({
                    "id": i.id, "organizationId": i.org_id, "role": i.role, "status": i.status.as_str(),
                    "createdAt": i.created_at, "expiresAt": i.expires_at,
                })
            })
            .collect();
        let intake: Vec<serde_json::Value> = self
            .store
            .intakes(&caller.user_id)
            .await?
            .into_iter()
            .map(|(id, org, answers, at)| {
                let answers: serde_json::Value = serde_json::from_str(&answers).unwrap_or(serde_json::Value::Null);
                serde_json::json!({ "id": id, "organizationId": org, "answers": answers, "recordedAt": at })
            })
            .collect();
        let platform_invitation = self.invitations().invitation_for(&me.profile.email).await?.map(|i| {
            serde_json::json!({
                "id": i.id, "createdAt": i.created_at, "acceptedAt": i.accepted_at, "grantTokens": i.grant_tokens,
            })
        });
        let own_code = self.invitations().code_of(&caller.user_id).await?.map(|c| {
            serde_json::json!({
                "code": c.code, "label": c.label, "maxUses": c.max_uses, "usedCount": c.used_count,
                "createdAt": c.created_at, "revokedAt": c.revoked_at,
            })
        });
        let onboarding = self.onboarding(caller).await?;
        let grants: Vec<serde_json::Value> = self
            .store
            .tool_grants(&caller.user_id, &me.profile.email)
            .await?
            .into_iter()
            .map(|g| serde_json::json!({ "toolkitId": g.toolkit_id, "toolId": g.tool_id, "grantedAt": g.created_at }))
            .collect();
        Ok(serde_json::json!({
            "exportedAt": now(),
            "profile": me.profile,
            "houses": me.houses,
            "personalMemories": memories,
            "seatInvitations": invitations,
            "intake": intake,
            "onboarding": onboarding,
            "toolAccess": grants,
            "platformInvitation": platform_invitation,
            "inviteCode": own_code,
        }))
    }

    /// Erase the person (their own session only). Refused with 409 `SOLE_OWNER` while they are
    /// the only owner of a house with other members; work stays with the houses.
    pub async fn erase_me(&self, caller: &Caller) -> Result<Erased> {
        caller.require_session()?;
        let profile = self.my_profile(caller).await?;
        for seat in self.store.seats_of(&caller.user_id).await? {
            let renewing = seat.role == "owner"
                && self.studio.billing().plan_view(&seat.org_id).await?.is_some_and(|plan| plan.status != "canceled");
            if renewing {
                return Err(Error::conflict(
                    "PLAN_ACTIVE",
                    "A house you own pays for a plan that renews: cancel it first, so nothing is charged once you are gone.",
                )
                .with("organizationId", seat.org_id));
            }
        }
        let tombstone = format!("erased+{}@invalid", caller.user_id);
        match self.store.erase_user(&caller.user_id, &tombstone, now()).await? {
            EraseOutcome::SoleOwner(org_id) => Err(Error::conflict(
                "SOLE_OWNER",
                "You are the only owner of a house with other members; transfer it first.",
            )
            .with("organizationId", org_id)),
            EraseOutcome::Erased { left } => {
                if let Some(key) = profile.avatar_key {
                    self.forget_blob(&key).await;
                }
                Ok(Erased { erased: true, houses_left: left })
            }
        }
    }

    /// The onboarding steps with the caller's progress.
    pub async fn onboarding(&self, caller: &Caller) -> Result<OnboardingView> {
        let done = self.store.onboarding_steps(&caller.user_id).await?;
        let steps: Vec<OnboardingStep> = ONBOARDING_STEPS
            .iter()
            .map(|(key, title)| OnboardingStep {
                key: key.to_string(),
                title: title.to_string(),
                completed_at: done.iter().find(|(s, _)| s == key).map(|(_, at)| *at),
            })
            .collect();
        let complete = steps.iter().all(|s| s.completed_at.is_some());
        Ok(OnboardingView { steps, complete })
    }

    /// Mark a step completed (idempotent); 404 `UNKNOWN_STEP` lists the steps.
    pub async fn complete_onboarding_step(&self, caller: &Caller, step: &str) -> Result<OnboardingView> {
        if !ONBOARDING_STEPS.iter().any(|(k, _)| *k == step) {
            let keys: Vec<&str> = ONBOARDING_STEPS.iter().map(|(k, _)| *k).collect();
            return Err(
                Error::not_found("UNKNOWN_STEP", format!("No onboarding step is called {step:?}.")).with("steps", keys)
            );
        }
        self.store.complete_onboarding_step(&caller.user_id, step, now()).await?;
        self.onboarding(caller).await
    }

    /// Record intake answers; completes the `intake` onboarding step.
    pub async fn record_intake(&self, caller: &Caller, answers: IntakeAnswers) -> Result<IntakeRecorded> {
        let lists =
            [&answers.audience, &answers.volume, &answers.draws, &answers.ai_today, &answers.pain, &answers.cost];
        let too_long = lists.iter().any(|l| l.len() > 20 || l.iter().any(|v| v.chars().count() > 200))
            || answers.pain_text.as_ref().is_some_and(|t| t.chars().count() > 4000);
        if too_long {
            return Err(Error::invalid(
                "BAD_INTAKE",
                "Intake lists hold at most 20 answers of 200 characters; painText at most 4,000.",
            ));
        }
        let empty =
            lists.iter().all(|l| l.is_empty()) && answers.pain_text.as_deref().is_none_or(|t| t.trim().is_empty());
        if empty {
            return Err(Error::invalid("EMPTY_INTAKE", "Answer at least one question."));
        }
        let id = new_id("int");
        let at = now();
        let json = serde_json::to_string(&answers).map_err(Error::internal)?;
        self.store.record_intake(&IntakeId::from(&id), &caller.user_id, &caller.org_id, &json, at).await?;
        self.store.complete_onboarding_step(&caller.user_id, "intake", at).await?;
        Ok(IntakeRecorded { id, recorded_at: at })
    }

    /// How many people completed each onboarding step, by step key.
    pub(crate) async fn onboarding_counts(&self) -> Result<Vec<(String, i64)>> {
        Ok(self.store.onboarding_counts().await?)
    }

    /// The house's latest paid subscription, whether or not its period has run out.
    pub(crate) async fn plan_row(&self, org_id: &OrgId) -> Result<Option<PlanRow>> {
        Ok(self.store.current_plan(org_id).await?)
    }

    /// Mark the house's plan `reference` canceled (keeps the first time); false when not its.
    pub(crate) async fn mark_plan_canceled(&self, org_id: &OrgId, reference: &str, at: DateTime<Utc>) -> Result<bool> {
        Ok(self.store.cancel_plan(org_id, reference, at).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::account_days;

    #[test]
    fn the_account_window_falls_back_to_30() {
        assert_eq!(account_days(Some("7")), 7);
        assert_eq!(account_days(Some("90")), 90);
        for other in [None, Some("30"), Some("14"), Some(""), Some("abc"), Some("-7")] {
            assert_eq!(account_days(other), 30);
        }
    }
}
