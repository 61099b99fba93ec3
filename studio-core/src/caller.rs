//! Who is asking: the house, the person, the effective role and the credential used.
//! Every authorization rule of the spec is a method here, so frontends cannot disagree.

use crate::api::SeatRole;
use crate::error::{Error, Result};

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
    pub org_id: String,
    /// The person: the seat holder, or the person who minted the key.
    pub user_id: String,
    /// The effective role: the seat's role, or the key's role as a seat.
    pub role: SeatRole,
    /// Session or key.
    pub via: Via,
    /// True for a session whose email is on the admin allowlist.
    pub(crate) admin: bool,
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

    /// The admin routes: a session whose email is on the allowlist.
    pub fn require_platform_admin(&self) -> Result<()> {
        if !self.admin {
            return Err(Error::forbidden("FORBIDDEN", "This route is for platform admins."));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: SeatRole, via: Via) -> Caller {
        Caller { org_id: "org".into(), user_id: "usr".into(), role, via, admin: false }
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
            assert!(session.require_platform_admin().is_err(), "admin comes from the allowlist, not the role");
        }
        for role in [SeatRole::Member, SeatRole::Viewer] {
            let by_key = caller(role, key());
            assert_eq!(by_key.require_spend_tokens().is_ok(), role == SeatRole::Member);
            let money = by_key.require_spend_money().unwrap_err();
            assert_eq!(money.code, "role_cannot_spend_money", "no key ever spends money");
            assert_eq!(by_key.require_manage_keys().unwrap_err().code, "SESSION_REQUIRED");
        }
    }
}
