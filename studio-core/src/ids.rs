//! Opaque identifiers: a short type prefix and a time-ordered UUID, so ids sort by creation; and
//! the typed ids that cross layers ([`OrgId`], [`UserId`], ...), so a storage call cannot take a
//! person's id where a house's is due without the compiler noticing.
//!
//! A typed id is parsed once at the edge (an authenticated [`crate::Caller`], a path segment, a
//! stored row) and carried typed from there. It reads as `&str` wherever text is wanted (it
//! dereferences to `str`), so SQL binds, logs and wire types take it as they took the string;
//! the reverse needs an explicit `From`, which is the point. Parsing never fails: an id that
//! names nothing is found nowhere and answers 404, as before.

/// Declares typed ids: an owned string newtype, transparent on the wire and in both databases.
macro_rules! typed_ids {
    ($($(#[$m:meta])* $name:ident $(= $prefix:literal)?;)*) => {$(
        $(#[$m])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, sqlx::Type)]
        #[serde(transparent)]
        #[sqlx(transparent)]
        pub struct $name(String);

        $(
            impl $name {
                /// The prefix new ids of this kind carry.
                pub const PREFIX: &'static str = $prefix;

                /// A new id of this kind, time-ordered.
                #[allow(dead_code)]
                pub(crate) fn generate() -> Self {
                    Self(new_id($prefix))
                }
            }
        )?

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<&String> for $name {
            fn from(s: &String) -> Self {
                Self(s.clone())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self.0 == other.0
            }
        }

        impl PartialEq<$name> for &$name {
            fn eq(&self, other: &$name) -> bool {
                self.0 == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl From<$name> for serde_json::Value {
            fn from(id: $name) -> serde_json::Value {
                serde_json::Value::String(id.0)
            }
        }

        impl From<&$name> for std::sync::Arc<str> {
            fn from(id: &$name) -> std::sync::Arc<str> {
                std::sync::Arc::from(id.0.as_str())
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }
    )*};
}

typed_ids! {
    /// A house (organization): `org_…`.
    OrgId = "org";
    /// A person (user): `usr_…`.
    UserId = "usr";
    /// A develop's job: `job_…`.
    JobId = "job";
    /// A hold on a house's tokens: `hold_…`.
    HoldId = "hold";
    /// A folder of the library: `fld_…`.
    FolderId = "fld";
    /// A letter of the mail archive: a bare UUID (letters carry no prefix).
    LetterId;
    /// A webhook endpoint: `whk_…`.
    WebhookId = "whk";
    /// An assistant conversation: `chat_…`.
    ChatSessionId = "chat";
    /// An asset of the library: `ast_…`.
    AssetId = "ast";
    /// A group stamp shared by assets: `grp_…`.
    GroupId = "grp";
    /// A pack (a zip of assets): `pck_…`.
    PackId = "pck";
    /// A look of the lookbook: `look_…`.
    LookId = "look";
    /// A lookbook template.
    TemplateId;
    /// A pipeline run: `run_…`.
    RunId = "run";
    /// A pipeline preset: `ppr_…`.
    PresetId = "ppr";
    /// A trained model of the board: `mdl_…`.
    ModelId = "mdl";
    /// A model marketplace case: `case_…`.
    CaseId = "case";
    /// A model entitlement: `ent_…`.
    EntitlementId = "ent";
    /// An API key: `key_…`.
    KeyId = "key";
    /// A support ticket: `tkt_…`.
    TicketId = "tkt";
    /// A support screenshot: `shot_…`.
    ScreenshotId = "shot";
    /// A post of the house's feed: `post_…`.
    PostId = "post";
    /// A brand mark: `mark_…`.
    MarkId = "mark";
    /// An action the assistant proposed: `act_…`.
    ChatActionId = "act";
    /// An analyst's finding: `fnd_…`.
    FindingId = "fnd";
    /// A memory (a person's or the analyst's): `mem_…`.
    MemoryId = "mem";
    /// Onboarding intake answers: `int_…`.
    IntakeId = "int";
    /// Internal evidence (a frozen develop): `rev_…`.
    EvidenceId = "rev";
    /// A replay render: `rrn_…`.
    RenderId = "rrn";
    /// An internal experiment: `exp_…`.
    ExperimentId = "exp";
    /// An invite request: `ireq_…`.
    InviteRequestId = "ireq";
    /// An invitation code: `icode_…`.
    CodeId = "icode";
    /// An invitation (to the platform or to a seat): `inv_…`.
    InvitationId = "inv";
    /// A lane's kept result: `lres_…`.
    LaneResultId = "lres";
    /// A webhook delivery (one change to one endpoint): `msg_…`.
    DeliveryId = "msg";
    /// An admin tool of the tool catalogue.
    ToolId;
    /// An item of an admin tool: `itm_…`.
    ToolItemId = "itm";
    /// An entry of the ledger: `led_…`.
    EntryId = "led";
    /// An id a third party issued (the payment provider's checkout or payment, the mail
    /// provider's event): text we never mint, kept apart from ours.
    ProviderRef;
}

/// A new id such as `usr_0190c6…`.
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

/// A random secret of 32 bytes as lowercase hex (64 characters), from the OS-seeded CSPRNG.
pub(crate) fn random_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    hex::encode(bytes)
}

/// SHA-256 of a secret as lowercase hex: the only form in which keys and sessions are stored.
pub(crate) fn sha256_hex(secret: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(secret.as_bytes()))
}

/// The current time, to the microsecond: what both backends store exactly, so a value returned
/// by a write equals the one a later read returns.
pub(crate) fn now() -> chrono::DateTime<chrono::Utc> {
    use chrono::{DurationRound, TimeDelta};
    let t = chrono::Utc::now();
    t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t)
}
