//! The platform gate: redeem codes, invitations by email and requests to be let in: the rows and
//! the `InvitationStore` trait.

use crate::ids::{CodeId, InvitationId, InviteRequestId, UserId};
use chrono::{DateTime, Utc};

use super::{BalanceRow, InviteRequestStatus, NewCredit, StorageError};

/// A redeem code as stored, with how many of its invitations were accepted.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct InviteCodeRow {
    /// Id.
    pub id: CodeId,
    /// `LABEL-XXXXXX`, uppercase (unique).
    pub code: String,
    /// The label part.
    pub label: String,
    /// The person whose own code this is; None for a code an admin minted.
    pub owner_user_id: Option<UserId>,
    /// Who minted it.
    pub created_by: Option<UserId>,
    /// Tokens each of its invitations credits on acceptance.
    pub grant_tokens: i64,
    /// How many addresses it may invite.
    pub max_uses: i64,
    /// Addresses it invited (never above `max_uses`: a CHECK constraint).
    pub used_count: i64,
    /// After this it is refused.
    pub expires_at: Option<DateTime<Utc>>,
    /// Revocation time; final.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Mint time.
    pub created_at: DateTime<Utc>,
    /// Its invitations that were accepted (read, not stored).
    pub joined_count: i64,
}

/// An invitation for one address, as stored: only the SHA-256 of its token.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct InvitationRow {
    /// Id.
    pub id: InvitationId,
    /// The lowercased address (unique: one invitation per address).
    pub email: String,
    /// SHA-256 hex of the token.
    pub token_hash: String,
    /// The code it was redeemed with, if any.
    pub code_id: Option<CodeId>,
    /// The admin who wrote it, if an admin did.
    pub invited_by: Option<String>,
    /// Tokens credited to the accepting person's house, once.
    pub grant_tokens: i64,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// When it was accepted.
    pub accepted_at: Option<DateTime<Utc>>,
    /// Who accepted it.
    pub accepted_by: Option<String>,
    /// When the code's owner was paid for this invitee, if ever.
    pub host_rewarded_at: Option<DateTime<Utc>>,
}

/// A request to be let in, as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct InviteRequestRow {
    /// Id.
    pub id: InviteRequestId,
    /// The lowercased address (unique).
    pub email: String,
    /// Name.
    pub name: Option<String>,
    /// House.
    pub house: Option<String>,
    /// Collection.
    pub collection: Option<String>,
    /// The intake answers, JSON.
    pub intake: String,
    /// The links, a JSON array of strings.
    pub links: String,
    /// Logo URL.
    pub logo_url: Option<String>,
    /// Website.
    pub website: Option<String>,
    /// When it was asked.
    pub created_at: DateTime<Utc>,
    /// `pending`, or `invited` once an invitation exists for the address (read, not stored).
    pub status: InviteRequestStatus,
}

/// One invitee of a code, with what is known of them.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct InviteeRow {
    /// The invitation's id.
    pub id: InvitationId,
    /// The address.
    pub email: String,
    /// When the invitation was written.
    pub created_at: DateTime<Utc>,
    /// When it was accepted.
    pub accepted_at: Option<DateTime<Utc>>,
    /// When the code's owner was paid for this invitee.
    pub host_rewarded_at: Option<DateTime<Utc>>,
    /// 1 when a person with the address exists.
    pub has_account: i64,
    /// The first paid subscription of a house the invitee owns.
    pub subscribed_at: Option<DateTime<Utc>>,
}

/// What writing an admin's invitation did.
#[derive(Debug, Clone, PartialEq)]
pub enum IssueOutcome {
    /// A new invitation.
    Created,
    /// A pending invitation for the address now has the new token (the old one is dead).
    Reissued,
    /// The address accepted an invitation before; nothing changed.
    Accepted,
}

/// What redeeming a code for an address did.
#[derive(Debug, Clone, PartialEq)]
pub enum RedeemOutcome {
    /// One use was taken and this invitation written.
    Redeemed(InvitationRow),
    /// The address already has an invitation: no use was taken.
    AlreadyInvited(InvitationRow),
    /// The code refused (spent, expired or revoked, as the row shows); nothing was written.
    Refused(InviteCodeRow),
    /// No such code.
    NotFound,
}

/// What accepting an invitation did.
#[derive(Debug, Clone, PartialEq)]
pub enum AcceptOutcome {
    /// This call accepted it (and credited its grant, if any: the totals after, if so).
    Accepted(Option<BalanceRow>),
    /// It had been accepted before; nothing changed.
    AlreadyAccepted,
}

/// Redeem codes, invitations and requests.
#[async_trait::async_trait]
pub trait InvitationStore: Send + Sync {
    /// Store a new code. `Conflict("invite code")` when its code, its owner's code or (for an
    /// admin code) its live label exists.
    async fn insert_code(&self, code: InviteCodeRow) -> Result<(), StorageError>;
    /// A code by its `LABEL-XXXXXX` (uppercase).
    async fn code_by_code(&self, code: &str) -> Result<Option<InviteCodeRow>, StorageError>;
    /// A person's own code.
    async fn own_code(&self, user_id: &UserId) -> Result<Option<InviteCodeRow>, StorageError>;
    /// Every admin-minted code, newest first.
    async fn admin_codes(&self) -> Result<Vec<InviteCodeRow>, StorageError>;
    /// Revoke a code (keeps the first revocation time); None when unknown.
    async fn revoke_code(&self, id: &CodeId, now: DateTime<Utc>) -> Result<Option<InviteCodeRow>, StorageError>;
    /// Raise a code's `max_uses` to `max_uses` (never lowers it).
    async fn raise_max_uses(&self, id: &CodeId, max_uses: i64) -> Result<(), StorageError>;
    /// Take one use of code `code_id` and write `invitation`, in one transaction. The use is
    /// taken by one conditional UPDATE (not revoked, not expired at `now`, `used_count <
    /// max_uses`), so concurrent redeemers never pass the limit; an address that already has
    /// an invitation takes no use.
    async fn redeem_code(
        &self,
        code_id: &CodeId,
        invitation: InvitationRow,
        now: DateTime<Utc>,
    ) -> Result<RedeemOutcome, StorageError>;
    /// Write an admin's invitation: a new one, or a new token for the pending one of the
    /// address; nothing once the address accepted.
    async fn issue_invitation(&self, invitation: InvitationRow) -> Result<IssueOutcome, StorageError>;
    /// An invitation by token hash.
    async fn invitation_by_token(&self, token_hash: &str) -> Result<Option<InvitationRow>, StorageError>;
    /// An invitation by address.
    async fn invitation_by_email(&self, email: &str) -> Result<Option<InvitationRow>, StorageError>;
    /// Accept invitation `id` for `user_id`, once: the acceptance and, when the invitation
    /// carries tokens, the credit (`grant`, whose amount is the invitation's) in one transaction.
    async fn accept_invitation(
        &self,
        id: &InvitationId,
        user_id: &UserId,
        grant: Option<NewCredit>,
        now: DateTime<Utc>,
    ) -> Result<AcceptOutcome, StorageError>;
    /// The invitees of a code, oldest first.
    async fn invitees(&self, code_id: &CodeId) -> Result<Vec<InviteeRow>, StorageError>;
    /// Pay a code's owner for invitation `id`, once: mark it and append `credit` in one
    /// transaction. False when it was paid before.
    async fn reward_host(&self, id: &InvitationId, credit: NewCredit) -> Result<bool, StorageError>;
    /// Store a request; false (nothing written) when the address asked before.
    async fn insert_request(&self, request: InviteRequestRow) -> Result<bool, StorageError>;
    /// Every request, newest first.
    async fn invite_requests(&self) -> Result<Vec<InviteRequestRow>, StorageError>;
}
