//! Seats in a house (§4.9): invitations, accepting one, role changes, removal, ownership
//! transfer, and switching the house a session acts for.
//!
//! The role matrix, in one place:
//!
//! | caller  | invite                    | re-seat (target → new role)              | remove              |
//! |---------|---------------------------|------------------------------------------|---------------------|
//! | owner   | any seat                  | admin, member, viewer → admin/member/viewer | admin, member, viewer |
//! | admin   | admin, member, viewer     | member, viewer → admin/member/viewer      | member, viewer      |
//! | member  | no                        | no                                       | only oneself        |
//! | viewer  | no                        | no                                       | only oneself        |
//!
//! Nobody re-seats themselves or sets `owner` (ownership moves by transfer or by accepting an
//! owner seat, which demotes the current owner to admin in the same write); the owner seat is
//! never removed (transfer first); the founder of a personal house is never removed. Every
//! seat write needs a signed-in person: an organization key belongs to the house, not to a
//! person, and cannot change who sits in it.

use crate::accounts::Accounts;
use crate::ids::{InvitationId, OrgId, UserId};
use chrono::Duration;

use crate::SessionToken;
use crate::accounts::Email;
use crate::api::{
    ActiveHouse, Seat, SeatAcceptRequest, SeatInvitation, SeatInviteRequest, SeatList, SeatRemoved, SeatRole,
    SeatRoleChanged, SeatRoleRequest, TransferRequest, Transferred,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{now, sha256_hex};
use crate::storage::{AcceptSeat, SeatInvitationRow, SeatRow, StorageError};

fn role_of(s: &str) -> Result<SeatRole> {
    s.parse().map_err(Error::internal)
}

fn seat_view(s: &SeatRow) -> Result<Seat> {
    Ok(Seat {
        user_id: s.user_id.to_string(),
        email: s.email.clone(),
        name: s.name.clone(),
        role: role_of(&s.role)?,
        joined_at: s.created_at,
    })
}

fn seat_not_found() -> Error {
    Error::not_found("SEAT_NOT_FOUND", "That person has no seat in this house.")
}

/// The roles of the seats a caller may re-seat or remove (beside their own).
fn manageable(role: SeatRole) -> &'static [&'static str] {
    match role {
        SeatRole::Owner => &["admin", "member", "viewer"],
        SeatRole::Admin => &["member", "viewer"],
        SeatRole::Member | SeatRole::Viewer => &[],
    }
}

impl Accounts<'_> {
    /// The house's seats and pending invitations.
    pub async fn seats(&self, caller: &Caller) -> Result<SeatList> {
        let seats = self.store.seats(&caller.org_id).await?.iter().map(seat_view).collect::<Result<_>>()?;
        let org_name = self.store.org_by_id(&caller.org_id).await?.map(|o| o.name).unwrap_or_default();
        let invitations = self
            .store
            .pending_seat_invitations(&caller.org_id, now())
            .await?
            .iter()
            .map(|i| self.invitation_view(i, &org_name))
            .collect::<Result<_>>()?;
        Ok(SeatList { organization_id: caller.org_id.to_string(), seats, invitations })
    }

    fn invitation_view(&self, i: &SeatInvitationRow, org_name: &str) -> Result<SeatInvitation> {
        Ok(SeatInvitation {
            id: i.id.to_string(),
            email: i.email.clone(),
            role: role_of(&i.role)?,
            organization_id: i.org_id.to_string(),
            organization_name: org_name.to_string(),
            expires_at: i.expires_at,
            url: self.studio.mail().mail_link(&format!("/join/{}", i.id)),
        })
    }

    /// Invite an address to a seat (owner or admin; only an owner offers the owner seat).
    /// Re-inviting an address supersedes its pending invitation.
    pub async fn invite_seat(&self, caller: &Caller, req: SeatInviteRequest) -> Result<SeatInvitation> {
        caller.require_session()?;
        if !matches!(caller.role, SeatRole::Owner | SeatRole::Admin) {
            return Err(Error::forbidden("FORBIDDEN", "Only the owner or an admin invites people to seats."));
        }
        if req.role == SeatRole::Owner && caller.role != SeatRole::Owner {
            return Err(Error::forbidden("OWNER_SEAT_OWNER_ONLY", "Only the owner may offer the owner seat."));
        }
        let email = Email::parse(&req.email)?;
        if let Some(user) = self.store.user_by_email(email.as_str()).await?
            && self.store.membership(&caller.org_id, &user.id).await?.is_some()
        {
            return Err(Error::invalid("ALREADY_MEMBER", "That person already has a seat in this house."));
        }
        let org = self.store.org_by_id(&caller.org_id).await?.ok_or_else(|| Error::internal("house vanished"))?;
        let at = now();
        let people = &self.studio.config.people;
        let row = SeatInvitationRow {
            id: InvitationId::generate(),
            org_id: caller.org_id.clone(),
            email: email.as_str().to_string(),
            role: req.role.as_str().to_string(),
            invited_by: caller.user_id.to_string(),
            status: crate::storage::SeatInvitationStatus::Pending,
            created_at: at,
            expires_at: at + Duration::days(people.seat_invite_days.max(1)),
            resolved_at: None,
        };
        let stored = self
            .store
            .create_seat_invitation(row.clone(), at - Duration::days(7), people.seat_invites_per_week)
            .await?;
        if !stored {
            return Err(Error::new(
                ErrorKind::RateLimited,
                "INVITE_LIMIT",
                format!("This house has sent {} seat invitations in the last 7 days.", people.seat_invites_per_week),
            )
            .with("limit", people.seat_invites_per_week)
            .with("retryAfter", 3600));
        }
        let view = self.invitation_view(&row, &org.name)?;
        let inviter = self.store.user_by_id(&caller.user_id).await?;
        let inviter = inviter.map(|u| u.name.unwrap_or(u.email)).unwrap_or_else(|| "Someone".into());
        let days = people.seat_invite_days.max(1);
        let written = crate::mail::templates::seat_invitation(&org.name, req.role.as_str(), &inviter, &view.url, days);
        self.studio
            .mail()
            .post_letter(crate::mail::Letter {
                kind: "seat_invitation",
                to: view.email.clone(),
                user_id: None,
                subject: written.subject,
                html: written.html,
                text: written.text,
            })
            .await?;
        Ok(view)
    }

    /// Accept a seat invitation addressed to the signed-in person's (verified) address; the
    /// session then acts for that house. Accepting twice answers the same.
    pub async fn accept_seat(
        &self,
        caller: &Caller,
        session: &SessionToken,
        req: SeatAcceptRequest,
    ) -> Result<ActiveHouse> {
        caller.require_session()?;
        let missing = || Error::not_found("INVITATION_NOT_FOUND", "No open invitation has that id.");
        let inv =
            self.store.seat_invitation(&InvitationId::from(req.invitation_id.trim())).await?.ok_or_else(missing)?;
        let me =
            self.store.profile(&caller.user_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))?;
        if me.email != inv.email {
            return Err(Error::forbidden("EMAIL_MISMATCH", "This invitation was sent to another address."));
        }
        if me.email_verified_at.is_none() {
            return Err(Error::forbidden(
                "EMAIL_UNVERIFIED",
                "Verify your email address first: a seat goes only to a proven address.",
            ));
        }
        let replay = inv.status == crate::storage::SeatInvitationStatus::Accepted
            && self.store.membership(&inv.org_id, &caller.user_id).await?.is_some();
        if !replay {
            match self.store.accept_seat_invitation(&inv.id, &caller.user_id, now()).await {
                Ok(AcceptSeat::Seated { .. }) => {}
                Ok(AcceptSeat::NotPending) => return Err(missing()),
                Ok(AcceptSeat::OfferLapsed) | Err(StorageError::Conflict(_)) => {
                    return Err(Error::conflict(
                        "OWNERSHIP_CHANGED",
                        "The house changed hands since this owner seat was offered; ask the owner for a new invitation.",
                    ));
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.switch_house_to(session, &inv.org_id).await
    }

    /// Point the session at another house the person sits in.
    pub async fn switch_house(&self, caller: &Caller, session: &SessionToken, org_id: &OrgId) -> Result<ActiveHouse> {
        caller.require_session()?;
        self.switch_house_to(session, &OrgId::from(org_id.trim())).await
    }

    async fn switch_house_to(&self, session: &SessionToken, org_id: &OrgId) -> Result<ActiveHouse> {
        if !self.store.switch_session_house(&sha256_hex(&session.0), org_id).await? {
            return Err(Error::not_found("HOUSE_NOT_FOUND", "You have no seat in that house."));
        }
        let caller = self.authenticate_session(session).await?;
        let org = self.store.org_by_id(org_id).await?.ok_or_else(|| Error::internal("house vanished"))?;
        Ok(ActiveHouse { organization_id: org.id.to_string(), organization_name: org.name, role: caller.role })
    }

    /// Change a seat's role (see the matrix at the top of this file).
    pub async fn set_seat_role(&self, caller: &Caller, req: SeatRoleRequest) -> Result<SeatRoleChanged> {
        caller.require_session()?;
        if req.role == SeatRole::Owner {
            return Err(Error::invalid("BAD_ROLE", "Ownership moves by transfer, not by a role change."));
        }
        if req.user_id == caller.user_id {
            return Err(Error::forbidden("CANNOT_RESEAT_SELF", "Nobody changes their own seat."));
        }
        let target =
            self.store.membership(&caller.org_id, &UserId::from(&req.user_id)).await?.ok_or_else(seat_not_found)?;
        let allowed = manageable(caller.role);
        if !allowed.contains(&target.role.as_str()) {
            return Err(Error::forbidden("FORBIDDEN", format!("A {} cannot re-seat a {}.", caller.role, target.role)));
        }
        let seat = self
            .store
            .set_seat_role(&caller.org_id, &UserId::from(&req.user_id), req.role.as_str(), allowed)
            .await?
            .ok_or_else(seat_not_found)?;
        Ok(SeatRoleChanged { user_id: seat.user_id.to_string(), role: role_of(&seat.role)?, email: seat.email })
    }

    /// Remove a seat (owner, admin, or oneself). The person's work stays with the house, and
    /// their sessions acting for it end at once; organization keys belong to the house and stay.
    pub async fn remove_seat(&self, caller: &Caller, user_id: &UserId) -> Result<SeatRemoved> {
        caller.require_session()?;
        let target = self.store.membership(&caller.org_id, user_id).await?.ok_or_else(seat_not_found)?;
        if self.store.founder(&caller.org_id).await?.as_deref() == Some(user_id) {
            return Err(Error::forbidden("FOUNDER_SEAT", "The founder of a personal house keeps their seat."));
        }
        if target.role == "owner" {
            return Err(Error::forbidden(
                "OWNER_MUST_TRANSFER",
                "The owner's seat is never removed; transfer it first.",
            ));
        }
        let own = [target.role.as_str()];
        let allowed: &[&str] = if user_id == caller.user_id { &own } else { manageable(caller.role) };
        if !allowed.contains(&target.role.as_str()) {
            return Err(Error::forbidden("FORBIDDEN", format!("A {} cannot remove a {}.", caller.role, target.role)));
        }
        let seat = self.store.remove_seat(&caller.org_id, user_id, allowed).await?.ok_or_else(seat_not_found)?;
        Ok(SeatRemoved { user_id: seat.user_id.to_string(), email: seat.email, work_stays_with_house: true })
    }

    /// Hand the house to another seat (owner only); the outgoing owner becomes admin in the
    /// same write.
    pub async fn transfer_house(&self, caller: &Caller, req: TransferRequest) -> Result<Transferred> {
        caller.require_session()?;
        if caller.role != SeatRole::Owner {
            return Err(Error::forbidden("FORBIDDEN", "Only the owner hands the house over."));
        }
        if req.user_id == caller.user_id {
            return Err(Error::invalid("ALREADY_OWNER", "You already own this house."));
        }
        let target =
            self.store.membership(&caller.org_id, &UserId::from(&req.user_id)).await?.ok_or_else(seat_not_found)?;
        let moved = match self.store.transfer_ownership(&caller.org_id, &caller.user_id, &target.user_id).await {
            Ok(moved) => moved,
            Err(StorageError::Conflict(_)) => false,
            Err(e) => return Err(e.into()),
        };
        if !moved {
            return Err(Error::conflict("OWNERSHIP_CHANGED", "The house's seats changed meanwhile; reload and retry."));
        }
        let email = self.store.user_by_id(&target.user_id).await?.map(|u| u.email).unwrap_or_default();
        Ok(Transferred {
            organization_id: caller.org_id.to_string(),
            user_id: target.user_id.to_string(),
            email,
            previous_owner_role: SeatRole::Admin,
        })
    }
}
