//! Who is asking: the house, the person, the effective role and the credential used.
//! Every authorization rule of the spec is a method here, so frontends cannot disagree.

use crate::api::SeatRole;
use crate::error::{Error, Result};
use crate::ids::{OrgId, UserId};

/// The credential a request came with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// A browser session.
    Session,
    /// An organization key.
    Key {
        /// The key's id.
        key_id: String,
    },
}

/// An authenticated caller. Built only by [`crate::Studio::authenticate_key`] and
/// [`crate::Studio::authenticate_session`].
#[derive(Debug, Clone)]
pub struct Caller {
    /// The house the request acts for.
    pub org_id: OrgId,
    /// The person: the seat holder, or the person who minted the key.
    pub user_id: UserId,
    /// The effective role: the seat's role, or the key's role as a seat.
    pub role: SeatRole,
    /// Session or key.
    pub via: Via,
    /// True for a session whose email is on the admin allowlist.
    pub(crate) admin: bool,
    /// The house's library version, when it was read while authenticating this request (a
    /// key's epoch check reads both in one statement); the asset list then need not read it
    /// again. A `Caller` lives for one request, so this is never older than the request.
    pub(crate) library_version: Option<i64>,
}

impl Caller {
    /// True when the request came with a browser session.
    pub fn is_session(&self) -> bool {
        self.via == Via::Session
    }

    /// Spending tokens: every role but viewer, by key or session.
    pub fn require_spend_tokens(&self) -> Result<()> {
        if self.role == SeatRole::Viewer {
            return Err(Error::forbidden("FORBIDDEN", "A viewer cannot spend tokens."));
        }
        Ok(())
    }

    /// Emptying or rewriting the library: every role but viewer.
    pub fn require_write_library(&self) -> Result<()> {
        if self.role == SeatRole::Viewer {
            return Err(Error::forbidden("FORBIDDEN", "A viewer may read the library but not change it."));
        }
        Ok(())
    }

    /// Spending money: an owner's session; never a key.
    pub fn require_spend_money(&self) -> Result<()> {
        if !self.is_session() || self.role != SeatRole::Owner {
            return Err(Error::forbidden(
                "role_cannot_spend_money",
                "Only the house's owner, signed in, can spend money; keys never can.",
            ));
        }
        Ok(())
    }

    /// Minting and revoking keys: an owner's or admin's session. A key cannot mint keys,
    /// because a key able to mint keys could not be revoked.
    pub fn require_manage_keys(&self) -> Result<()> {
        if !self.is_session() {
            return Err(Error::forbidden(
                "SESSION_REQUIRED",
                "Keys are minted and revoked from a signed-in session, never with a key.",
            ));
        }
        if !matches!(self.role, SeatRole::Owner | SeatRole::Admin) {
            return Err(Error::forbidden("FORBIDDEN", "Only an owner or admin manages keys."));
        }
        Ok(())
    }

    /// A person's own business (accepting a platform invitation, their own invite code): a
    /// signed-in session of any role; never a key, which belongs to the house, not the person.
    pub fn require_session(&self) -> Result<()> {
        if !self.is_session() {
            return Err(Error::forbidden("SESSION_REQUIRED", "This is a person's own business: sign in; keys cannot."));
        }
        Ok(())
    }

    /// The admin routes: a session whose email is on the allowlist. The answer is the proof
    /// every platform-admin operation of the core asks for.
    pub fn as_admin(&self) -> Result<PlatformAdmin> {
        if !self.admin || !self.is_session() {
            return Err(Error::forbidden("FORBIDDEN", "This route is for platform admins."));
        }
        Ok(PlatformAdmin { user_id: self.user_id.clone() })
    }
}

/// Proof that a request comes from a platform admin. Only [`Caller::as_admin`] makes one, so a
/// core operation that takes `&PlatformAdmin` cannot be reached without the check.
#[derive(Debug, Clone)]
pub struct PlatformAdmin {
    user_id: UserId,
}

impl PlatformAdmin {
    /// The admin's own person id (recorded on what they do).
    pub fn user_id(&self) -> &UserId {
        &self.user_id
    }
}

/// The machine credentials of `02-route-groups.md` §4.11 and §4.13: each opens its own routes
/// and no other kind's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MachineKind {
    /// The support bridge (`x-support-bridge-secret`): escalations.
    SupportBridge,
    /// The analyst (`Authorization: Bearer`): the internal reads.
    Analyst,
    /// The action token (`Authorization: Bearer`): internal actions.
    Action,
    /// The replay renderer (`Authorization: Bearer`): the render queue.
    Renderer,
}

impl MachineKind {
    /// Every kind.
    pub const ALL: [MachineKind; 4] =
        [MachineKind::SupportBridge, MachineKind::Analyst, MachineKind::Action, MachineKind::Renderer];

    /// The kind's name in configuration and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            MachineKind::SupportBridge => "support-bridge",
            MachineKind::Analyst => "analyst",
            MachineKind::Action => "action",
            MachineKind::Renderer => "renderer",
        }
    }
}

/// The configured machine secrets, kept only as SHA-256 digests. A kind with no secret opens
/// nothing: every request of that kind is 401.
#[derive(Clone, Default)]
pub struct MachineSecrets {
    digests: Vec<(MachineKind, [u8; 32])>,
}

impl std::fmt::Debug for MachineSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kinds: Vec<&str> = self.digests.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("MachineSecrets").field("configured", &kinds).finish()
    }
}

impl MachineSecrets {
    /// Configure the secret of one kind (an empty secret leaves the kind unconfigured).
    pub fn with(mut self, kind: MachineKind, secret: &str) -> Self {
        self.digests.retain(|(k, _)| *k != kind);
        if !secret.is_empty() {
            self.digests.push((kind, digest(secret)));
        }
        self
    }

    /// True when a secret is configured for `kind`.
    pub fn is_configured(&self, kind: MachineKind) -> bool {
        self.digests.iter().any(|(k, _)| *k == kind)
    }

    /// Check a presented secret against `kind`'s, in constant time: the proof of a machine
    /// caller, or 401 (also when the kind has no secret, or the secret is another kind's).
    pub fn verify(&self, kind: MachineKind, presented: &str) -> Result<Machine> {
        let presented = digest(presented);
        let ok = self.digests.iter().filter(|(k, _)| *k == kind).any(|(_, d)| constant_time_eq(d, &presented));
        if ok { Ok(Machine { kind }) } else { Err(Error::unauthenticated("No valid machine credential")) }
    }
}

fn digest(secret: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(secret.as_bytes()).into()
}

/// Equality of two digests whose time does not depend on where they differ.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Proof that a request carries the verified secret of one machine kind; made only by
/// [`MachineSecrets::verify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    kind: MachineKind,
}

impl Machine {
    /// The kind of credential verified.
    pub fn kind(&self) -> MachineKind {
        self.kind
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: SeatRole, via: Via) -> Caller {
        Caller { org_id: "org".into(), user_id: "usr".into(), role, via, admin: false, library_version: None }
    }

    #[test]
    fn the_role_matrix() {
        let key = || Via::Key { key_id: "key".into() };
        for role in [SeatRole::Owner, SeatRole::Admin, SeatRole::Member, SeatRole::Viewer] {
            let session = caller(role, Via::Session);
            let viewer = role == SeatRole::Viewer;
            assert_eq!(session.require_spend_tokens().is_ok(), !viewer, "{role} spends tokens");
            assert_eq!(session.require_write_library().is_ok(), !viewer, "{role} writes the library");
            assert_eq!(session.require_spend_money().is_ok(), role == SeatRole::Owner, "{role} spends money");
            assert_eq!(
                session.require_manage_keys().is_ok(),
                matches!(role, SeatRole::Owner | SeatRole::Admin),
                "{role} manages keys"
            );
            assert!(session.as_admin().is_err(), "admin comes from the allowlist, not the role");
            assert!(session.require_session().is_ok(), "{role} acts for themselves");
        }
        for role in [SeatRole::Member, SeatRole::Viewer] {
            let by_key = caller(role, key());
            assert_eq!(by_key.require_spend_tokens().is_ok(), role == SeatRole::Member);
            let money = by_key.require_spend_money().unwrap_err();
            assert_eq!(money.code, "role_cannot_spend_money", "no key ever spends money");
            assert_eq!(by_key.require_manage_keys().unwrap_err().code, "SESSION_REQUIRED");
            assert_eq!(by_key.require_session().unwrap_err().code, "SESSION_REQUIRED", "a key is not a person");
        }
    }

    #[test]
    fn admin_proof_only_for_an_allowlisted_session() {
        let mut session = caller(SeatRole::Owner, Via::Session);
        session.admin = true;
        assert_eq!(session.as_admin().expect("admin").user_id(), "usr");
        let mut by_key = caller(SeatRole::Owner, Via::Key { key_id: "key".into() });
        by_key.admin = true;
        assert_eq!(by_key.as_admin().unwrap_err().code, "FORBIDDEN", "a key is never an admin");
    }

    #[test]
    fn machine_secrets_open_only_their_own_kind() {
        let secrets = MachineSecrets::default()
            .with(MachineKind::Analyst, "analyst-secret")
            .with(MachineKind::Action, "action-secret")
            .with(MachineKind::Renderer, "");
        assert!(!secrets.is_configured(MachineKind::Renderer), "an empty secret configures nothing");
        for kind in MachineKind::ALL {
            for presented in ["analyst-secret", "action-secret", "", "analyst-secreT"] {
                let expected = matches!(
                    (kind, presented),
                    (MachineKind::Analyst, "analyst-secret") | (MachineKind::Action, "action-secret")
                );
                let got = secrets.verify(kind, presented);
                assert_eq!(got.is_ok(), expected, "{} with {presented:?}", kind.as_str());
                if let Ok(machine) = got {
                    assert_eq!(machine.kind(), kind);
                } else {
                    assert_eq!(got.unwrap_err().kind, crate::error::ErrorKind::Unauthenticated);
                }
            }
        }
        let shown = format!("{secrets:?}");
        assert!(shown.contains("analyst") && !shown.contains("analyst-secret"), "Debug shows kinds, never secrets");
    }
}
