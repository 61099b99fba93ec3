//! People, houses, seats, sessions and organization keys: the rows and the `AccountStore` trait.

use crate::ids::{KeyId, OrgId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A person as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct UserRow {
    /// Id.
    pub id: UserId,
    /// Lowercased email.
    pub email: String,
    /// Display name.
    pub name: Option<String>,
    /// Argon2id PHC string, if the person has a password.
    pub password_hash: Option<String>,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
}

/// A house as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct OrgRow {
    /// Id.
    pub id: OrgId,
    /// Name.
    pub name: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// A seat: a person's role in a house.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct MembershipRow {
    /// The house.
    pub org_id: OrgId,
    /// The person.
    pub user_id: UserId,
    /// owner, admin, member or viewer (a CHECK constraint in both schemas).
    pub role: String,
    /// When the seat was given.
    pub created_at: DateTime<Utc>,
}

/// A browser session as stored: only the SHA-256 of the cookie value.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SessionRow {
    /// SHA-256 hex of the cookie value.
    pub token_hash: String,
    /// The person.
    pub user_id: UserId,
    /// The house the session acts for.
    pub org_id: OrgId,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// After this the session is refused.
    pub expires_at: DateTime<Utc>,
}

/// What a request with a session cookie needs, read in one query: the session's person and
/// house, their seat's role there and their email.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SessionSeat {
    /// The person.
    pub user_id: UserId,
    /// The house the session acts for.
    pub org_id: OrgId,
    /// The seat's role in that house.
    pub role: String,
    /// The person's email (for the admin allowlist).
    pub email: String,
    /// Marked platform admin by an operator (`studio-server admin add`).
    pub platform_admin: bool,
    /// The person has proven the address (only a verified address may be allowlisted).
    pub email_verified: bool,
}

/// Two counters of a house that triggers move in the same transaction as the writes they
/// watch: the key epoch (anything that changes what one of its keys may do) and the library
/// version (any write of one of its assets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct HouseStamp {
    /// Moves when a key of the house is revoked or changes role, owner, house or secret.
    pub key_epoch: i64,
    /// Moves when an asset of the house is written.
    pub library_version: i64,
}

/// An organization key as stored: only the SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct KeyRow {
    /// Id.
    pub id: KeyId,
    /// The owning house.
    pub org_id: OrgId,
    /// The person who minted it.
    pub created_by: UserId,
    /// Label.
    pub name: String,
    /// viewer or member (a CHECK constraint in both schemas).
    pub role: String,
    /// Shown prefix of the secret.
    pub prefix: String,
    /// SHA-256 hex of the secret.
    pub secret_hash: String,
    /// Last use, kept to the minute.
    pub last_used_at: Option<DateTime<Utc>>,
    /// Revocation time.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Mint time.
    pub created_at: DateTime<Utc>,
}

/// A new person with their personal house, owner seat and sign-up grant, written atomically.
#[derive(Debug, Clone)]
pub struct NewAccount {
    /// The person.
    pub user: UserRow,
    /// Their house.
    pub org: OrgRow,
    /// Sign-up grant (0 for none).
    pub grant_tokens: i64,
}

/// People, houses, seats, sessions and keys.
#[async_trait::async_trait]
pub trait AccountStore: Send + Sync {
    /// How many people have signed up (the first-run hint).
    async fn user_count(&self) -> Result<i64, StorageError>;
    /// Person, house, owner seat, balance row and sign-up grant in one transaction.
    /// `Conflict("email")` when the email is taken.
    async fn create_account(&self, account: NewAccount) -> Result<(), StorageError>;
    /// A person by lowercased email.
    async fn user_by_email(&self, email: &str) -> Result<Option<UserRow>, StorageError>;
    /// A person by id.
    async fn user_by_id(&self, id: &UserId) -> Result<Option<UserRow>, StorageError>;
    /// A house by id.
    async fn org_by_id(&self, id: &OrgId) -> Result<Option<OrgRow>, StorageError>;
    /// Give a person a seat (or change its role).
    async fn upsert_membership(&self, seat: MembershipRow) -> Result<(), StorageError>;
    /// A person's seat in a house.
    async fn membership(&self, org_id: &OrgId, user_id: &UserId) -> Result<Option<MembershipRow>, StorageError>;
    /// The house a person signs into: the oldest they own, else their oldest seat.
    async fn home_membership(&self, user_id: &UserId) -> Result<Option<MembershipRow>, StorageError>;
    /// Store a new session.
    async fn insert_session(&self, session: SessionRow) -> Result<(), StorageError>;
    /// A session by token hash, if not expired at `now`.
    async fn session_by_hash(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<SessionRow>, StorageError>;
    /// The live session's person, house, seat role and email; None when the session is unknown,
    /// expired, or the seat is gone.
    async fn session_seat(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<SessionSeat>, StorageError>;
    /// Forget a session (sign-out); harmless when absent.
    async fn delete_session(&self, token_hash: &str) -> Result<(), StorageError>;
    /// Store a newly minted key.
    async fn insert_key(&self, key: KeyRow) -> Result<(), StorageError>;
    /// Every key of a house, revoked included, newest first.
    async fn list_keys(&self, org_id: &OrgId) -> Result<Vec<KeyRow>, StorageError>;
    /// A key by secret hash (revoked or not).
    async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<KeyRow>, StorageError>;
    /// The house's key epoch and library version, read in one statement (each 0 before its
    /// first move): what a verified key kept in memory is checked against on every request.
    async fn house_stamp(&self, org_id: &OrgId) -> Result<HouseStamp, StorageError>;
    /// Revoke a key of this house (keeps the first revocation time). None when not this house's.
    async fn revoke_key(
        &self,
        org_id: &OrgId,
        key_id: &KeyId,
        now: DateTime<Utc>,
    ) -> Result<Option<KeyRow>, StorageError>;
    /// Record a use of a key, unless one at or after `stale_before` is already recorded.
    async fn touch_key(
        &self,
        key_id: &KeyId,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<(), StorageError>;
    /// Mark or unmark the person with this (lowercased) email as a platform admin; None when
    /// no person has that email.
    async fn set_platform_admin(&self, email: &str, admin: bool) -> Result<Option<UserRow>, StorageError>;
    /// Every platform admin, by email.
    async fn platform_admins(&self) -> Result<Vec<UserRow>, StorageError>;
}
