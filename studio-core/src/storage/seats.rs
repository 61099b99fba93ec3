//! Seats in a house: invitations to a seat, role changes, removal, ownership transfer, the
//! house a session acts for, and erasing a person. The rows and the `SeatStore` trait.
//!
//! Every write that touches an owner seat is guarded in its SQL (`role <> 'owner'`, or an
//! owner-to-admin swap in one transaction), so a house has exactly one owner whatever order
//! concurrent requests arrive in.

use crate::ids::{InvitationId, OrgId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// An invitation to a seat in a house.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SeatInvitationRow {
    /// Id (what the invitee accepts).
    pub id: InvitationId,
    /// The house.
    pub org_id: OrgId,
    /// Lowercased address invited.
    pub email: String,
    /// The seat offered.
    pub role: String,
    /// Who invited.
    pub invited_by: String,
    /// pending, accepted, superseded or withdrawn.
    pub status: crate::storage::SeatInvitationStatus,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// After this it cannot be accepted.
    pub expires_at: DateTime<Utc>,
    /// When it stopped being pending.
    pub resolved_at: Option<DateTime<Utc>>,
}

/// A seat with the person's address and name, for listings.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SeatRow {
    /// The house.
    pub org_id: OrgId,
    /// The house's name.
    pub org_name: String,
    /// The person.
    pub user_id: UserId,
    /// Their address.
    pub email: String,
    /// Their name.
    pub name: Option<String>,
    /// owner, admin, member or viewer.
    pub role: String,
    /// When the seat was given.
    pub created_at: DateTime<Utc>,
}

/// How accepting a seat invitation went.
#[derive(Debug, Clone, PartialEq)]
pub enum AcceptSeat {
    /// The person now has the seat; `previous_owner` is set when an owner seat moved ownership.
    Seated {
        /// The owner demoted to admin, when the seat offered was the owner's.
        previous_owner: Option<String>,
    },
    /// The invitation is not pending (accepted, superseded, withdrawn) or has expired.
    NotPending,
    /// An owner seat whose inviter is no longer the owner: the offer lapsed with their authority.
    OfferLapsed,
}

/// How erasing a person went.
#[derive(Debug, Clone, PartialEq)]
pub enum EraseOutcome {
    /// Erased; the houses whose seats were given up.
    Erased {
        /// Houses the person left.
        left: Vec<String>,
    },
    /// Refused: the person is the only owner of this house, which has other members.
    SoleOwner(String),
}

/// Seats, seat invitations, ownership and the house a session acts for.
#[async_trait::async_trait]
pub trait SeatStore: Send + Sync {
    /// Every seat of a house, owner first, then by seat age.
    async fn seats(&self, org_id: &OrgId) -> Result<Vec<SeatRow>, StorageError>;
    /// Every seat a person has, oldest first.
    async fn seats_of(&self, user_id: &UserId) -> Result<Vec<SeatRow>, StorageError>;
    /// The person whose sign-up created the house.
    async fn founder(&self, org_id: &OrgId) -> Result<Option<String>, StorageError>;
    /// Store an invitation, superseding the pending one for the same house and address, unless
    /// the house has made `weekly_limit` invitations since `since` (then false, nothing stored).
    async fn create_seat_invitation(
        &self,
        invitation: SeatInvitationRow,
        since: DateTime<Utc>,
        weekly_limit: i64,
    ) -> Result<bool, StorageError>;
    /// An invitation by id.
    async fn seat_invitation(&self, id: &InvitationId) -> Result<Option<SeatInvitationRow>, StorageError>;
    /// Pending, unexpired invitations of a house, newest first.
    async fn pending_seat_invitations(
        &self,
        org_id: &OrgId,
        now: DateTime<Utc>,
    ) -> Result<Vec<SeatInvitationRow>, StorageError>;
    /// Invitations ever sent to an address (the person's export).
    async fn seat_invitations_to(&self, email: &str) -> Result<Vec<SeatInvitationRow>, StorageError>;
    /// Accept a pending, unexpired invitation for `user_id` in one transaction: the seat is
    /// given (an owner seat demotes the current owner to admin), the invitation marked accepted.
    async fn accept_seat_invitation(
        &self,
        id: &InvitationId,
        user_id: &UserId,
        now: DateTime<Utc>,
    ) -> Result<AcceptSeat, StorageError>;
    /// Set a seat's role when its current role is one of `from` (never an owner seat, never to
    /// owner). The updated seat, or None when there is no such seat in an allowed role.
    async fn set_seat_role(
        &self,
        org_id: &OrgId,
        user_id: &UserId,
        role: &str,
        from: &[&str],
    ) -> Result<Option<SeatRow>, StorageError>;
    /// Remove a seat whose role is one of `from` (never an owner seat) and end the person's
    /// sessions acting for that house, in one transaction. The removed seat, or None.
    async fn remove_seat(
        &self,
        org_id: &OrgId,
        user_id: &UserId,
        from: &[&str],
    ) -> Result<Option<SeatRow>, StorageError>;
    /// Move ownership from `from_user` (must hold the owner seat) to `to_user` (must hold a
    /// seat), demoting the outgoing owner to admin in the same transaction. False when either
    /// condition fails (nothing changes).
    async fn transfer_ownership(
        &self,
        org_id: &OrgId,
        from_user: &UserId,
        to_user: &UserId,
    ) -> Result<bool, StorageError>;
    /// Point a session at another house the person has a seat in. False when they have none.
    async fn switch_session_house(&self, token_hash: &str, org_id: &OrgId) -> Result<bool, StorageError>;
    /// Erase a person: refused while they are the only owner of a house with other members;
    /// otherwise seats, sessions, personal memories, onboarding, intake, tool grants, email
    /// tokens, the letters archived for them, the seat and platform invitations and the invite
    /// request sent to their address go, their own invite code is revoked, the keys of a house
    /// left with nobody in it are revoked,
    /// the row keeps only its id (renamed to `tombstone_email`) so the house's records stay
    /// attributed, all in one transaction.
    async fn erase_user(
        &self,
        user_id: &UserId,
        tombstone_email: &str,
        now: DateTime<Utc>,
    ) -> Result<EraseOutcome, StorageError>;
}
