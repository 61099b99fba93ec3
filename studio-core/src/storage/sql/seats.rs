//! The SQL of seats, seat invitations, ownership transfer, switching houses and erasing a
//! person ([`SeatStore`](crate::storage::SeatStore)). Every statement is declared in [`q`] (see
//! stmt.rs).

/// The three role binds of a `role IN ($a, $b, $c)` guard: `from` padded with its first value
/// (an empty `from` matches nothing).
pub(in crate::storage) fn role_guard<'a>(from: &[&'a str]) -> [&'a str; 3] {
    let first = from.first().copied().unwrap_or("-");
    [first, from.get(1).copied().unwrap_or(first), from.get(2).copied().unwrap_or(first)]
}

/// The seats' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{InvitationId, OrgId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::sql::{seat_columns, seat_invitation_columns};
    use crate::storage::{SeatInvitationRow, SeatRow};

    statements! {
        /// A house's seats: owner first, then admins, then members, oldest first.
        fn seats(org_id: &'q OrgId) -> row<SeatRow> [house] {
            "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
             JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 \
             ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, \
             m.created_at, m.user_id"
        }

        /// A person's seats, in every house they sit in.
        fn seats_of(user_id: &'q UserId) -> row<SeatRow> [any "a person's own seats, across the houses they sit in"] {
            "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
             JOIN organizations o ON o.id = m.org_id WHERE m.user_id = $1 ORDER BY m.created_at, m.org_id"
        }

        /// Who founded a house.
        fn founder(id: &'q OrgId) -> scalar<Option<String>> [any "the house's own row: organizations is keyed by the house id itself"] {
            "SELECT founded_by FROM organizations WHERE id = $1"
        }

        /// Lock a house's row (PostgreSQL) to serialise its invitations.
        fn lock_house(id: &'q OrgId) -> exec [any "the house's own row: organizations is keyed by the house id itself", lock] {
            "SELECT id FROM organizations WHERE id = $1"
        }

        /// How many seat invitations a house has sent since `created_at`.
        fn invitations_sent(org_id: &'q OrgId, created_at: DateTime<Utc>) -> scalar<i64> [house] {
            "SELECT COUNT(*) FROM seat_invitations WHERE org_id = $1 AND created_at >= $2"
        }

        /// Supersede a house's pending invitations to an address.
        fn supersede_invitations(resolved_at: DateTime<Utc>, org_id: &'q OrgId, email: &'q str) -> exec [house] {
            "UPDATE seat_invitations SET status = 'superseded', resolved_at = $1 \
             WHERE org_id = $2 AND email = $3 AND status = 'pending'"
        }

        /// Record a seat invitation.
        fn insert_seat_invitation(
            id: &'q str,
            org_id: &'q OrgId,
            email: &'q str,
            role: &'q str,
            invited_by: &'q str,
            status: &'q str,
            created_at: DateTime<Utc>,
            expires_at: DateTime<Utc>,
            resolved_at: Option<DateTime<Utc>>,
        ) -> exec [house] {
            "INSERT INTO seat_invitations (", seat_invitation_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        }

        /// A seat invitation by id, whatever its house.
        fn seat_invitation(id: &'q InvitationId) -> row<SeatInvitationRow> [any "an invitation is opened by its invitee from the link: ids are unique across houses and the caller checks the invitee's address against the row's"] {
            "SELECT ", seat_invitation_columns!(), " FROM seat_invitations WHERE id = $1"
        }

        /// A house's pending invitations not expired by `expires_at`, newest first.
        fn pending_seat_invitations(org_id: &'q OrgId, expires_at: DateTime<Utc>) -> row<SeatInvitationRow> [house] {
            "SELECT ", seat_invitation_columns!(), " FROM seat_invitations \
             WHERE org_id = $1 AND status = 'pending' AND expires_at > $2 ORDER BY created_at DESC, id"
        }

        /// The seat invitations sent to an address, from every house, oldest first.
        fn seat_invitations_to(email: &'q str) -> row<SeatInvitationRow> [any "a person's own invitations, addressed to them by every house that invited them"] {
            "SELECT ", seat_invitation_columns!(), " FROM seat_invitations WHERE email = $1 \
             ORDER BY created_at, id"
        }

        /// Accept a pending invitation not expired by `expires_at` (the same instant as `resolved_at`).
        fn accept_seat_invitation(resolved_at: DateTime<Utc>, id: &'q InvitationId, expires_at: DateTime<Utc>) -> row<SeatInvitationRow> [any "an invitation is accepted by its invitee, by id (unique across houses), once the caller checked the address; the house is the row's own"] {
            "UPDATE seat_invitations SET status = 'accepted', resolved_at = $1 \
             WHERE id = $2 AND status = 'pending' AND expires_at > $3 RETURNING ", seat_invitation_columns!()
        }

        /// Demote the owner who offered a house's owner seat, unless they are the one accepting it
        /// (`new_user_id`).
        fn demote_offering_owner(org_id: &'q OrgId, user_id: &'q str, new_user_id: &'q UserId) -> row<(String,)> [house] {
            "UPDATE memberships SET role = 'admin' WHERE org_id = $1 AND role = 'owner' AND user_id = $2 \
             AND user_id <> $3 RETURNING user_id"
        }

        /// Seat a person in a house; an existing seat takes the role, except that an owner stays owner.
        fn seat(org_id: &'q OrgId, user_id: &'q UserId, role: &'q str, created_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (org_id, user_id) DO UPDATE SET role = CASE WHEN memberships.role = 'owner' \
             THEN memberships.role ELSE excluded.role END"
        }

        /// Give a seat of a house (not the owner's, and of a role in `from_*`) another role.
        fn set_seat_role(
            role: &'q str,
            org_id: &'q OrgId,
            user_id: &'q UserId,
            from_a: &'q str,
            from_b: &'q str,
            from_c: &'q str,
        ) -> exec [house] {
            "UPDATE memberships SET role = $1 WHERE org_id = $2 AND user_id = $3 AND role <> 'owner' \
             AND role IN ($4, $5, $6)"
        }

        /// A person's seat in a house.
        fn seat_in(org_id: &'q OrgId, user_id: &'q UserId) -> row<SeatRow> [house] {
            "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
             JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 AND m.user_id = $2"
        }

        /// A person's seat in a house, locked (PostgreSQL) to be removed.
        fn seat_in_locked(org_id: &'q OrgId, user_id: &'q UserId) -> row<SeatRow> [house, lock] {
            "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
             JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 AND m.user_id = $2"
        }

        /// Remove a seat of a house (not the owner's, and of a role in `from_*`).
        fn remove_seat(org_id: &'q OrgId, user_id: &'q UserId, from_a: &'q str, from_b: &'q str, from_c: &'q str) -> exec [house] {
            "DELETE FROM memberships WHERE org_id = $1 AND user_id = $2 AND role <> 'owner' \
             AND role IN ($3, $4, $5)"
        }

        /// End a person's sessions acting for a house.
        fn end_house_sessions(org_id: &'q OrgId, user_id: &'q UserId) -> exec [house] {
            "DELETE FROM sessions WHERE org_id = $1 AND user_id = $2"
        }

        /// Make a house's owner an admin.
        fn step_down(org_id: &'q OrgId, user_id: &'q UserId) -> exec [house] {
            "UPDATE memberships SET role = 'admin' WHERE org_id = $1 AND user_id = $2 AND role = 'owner'"
        }

        /// Make a seat of a house its owner.
        fn take_over(org_id: &'q OrgId, user_id: &'q UserId) -> exec [house] {
            "UPDATE memberships SET role = 'owner' WHERE org_id = $1 AND user_id = $2"
        }

        /// Point a session at a house its person sits in.
        fn switch_session_house(org_id: &'q OrgId, token_hash: &'q str) -> exec [house] {
            "UPDATE sessions SET org_id = $1 WHERE token_hash = $2 AND EXISTS \
             (SELECT 1 FROM memberships m WHERE m.org_id = $1 AND m.user_id = sessions.user_id)"
        }

        /// A person's seats (house, role), locked (PostgreSQL) to erase them.
        fn seats_to_erase(user_id: &'q UserId) -> row<(String, String)> [any "a person's own seats, across the houses they sit in, erased with them", lock] {
            "SELECT org_id, role FROM memberships WHERE user_id = $1 ORDER BY org_id"
        }

        /// How many others sit in a house.
        fn others_seated(org_id: &'q OrgId, user_id: &'q UserId) -> scalar<i64> [house] {
            "SELECT COUNT(*) FROM memberships WHERE org_id = $1 AND user_id <> $2"
        }

        /// Erase a person's seats.
        fn erase_memberships(user_id: &'q UserId) -> exec [any "a person's own seats, in every house, erased with them"] {
            "DELETE FROM memberships WHERE user_id = $1"
        }

        /// Erase a person's sessions.
        fn erase_sessions(user_id: &'q UserId) -> exec [any "a person's own sessions, in every house, erased with them"] {
            "DELETE FROM sessions WHERE user_id = $1"
        }

        /// Erase a person's own memories.
        fn erase_memories(user_id: &'q UserId) -> exec [any "a person's own memories (scope person), in every house, erased with them"] {
            "DELETE FROM memories WHERE user_id = $1 AND scope = 'person'"
        }

        /// Erase a person's onboarding steps.
        fn erase_onboarding(user_id: &'q UserId) -> exec [any "a person's own onboarding, erased with them"] {
            "DELETE FROM onboarding_steps WHERE user_id = $1"
        }

        /// Erase a person's intake answers.
        fn erase_intake(user_id: &'q UserId) -> exec [any "a person's own intake answers, erased with them"] {
            "DELETE FROM intake_answers WHERE user_id = $1"
        }

        /// Erase a person's tool grants.
        fn erase_tool_grants(user_id: &'q UserId) -> exec [any "a person's own tool grants, erased with them"] {
            "DELETE FROM tool_grants WHERE user_id = $1"
        }

        /// Erase a person's email tokens.
        fn erase_email_tokens(user_id: &'q UserId) -> exec [any "a person's own email tokens, erased with them"] {
            "DELETE FROM email_tokens WHERE user_id = $1"
        }

        /// Erase a person's mail drips.
        fn erase_mail_drips(user_id: &'q UserId) -> exec [any "a person's own mail drips, erased with them"] {
            "DELETE FROM mail_drips WHERE user_id = $1"
        }

        /// Erase the events of the letters to or about a person (`id` is the person too).
        fn erase_mail_events(user_id: &'q UserId, id: &'q UserId) -> exec [any "the mail events of a person's own letters, erased with them"] {
            "DELETE FROM mail_events WHERE letter_id IN (SELECT id FROM letters WHERE user_id = $1 \
             OR to_addr = (SELECT email FROM users WHERE id = $2))"
        }

        /// Erase the letters to or about a person (`id` is the person too).
        fn erase_letters(user_id: &'q UserId, id: &'q UserId) -> exec [any "a person's own letters, erased with them"] {
            "DELETE FROM letters WHERE user_id = $1 OR to_addr = (SELECT email FROM users WHERE id = $2)"
        }

        /// Erase the seat invitations to a person's address.
        fn erase_seat_invitations(id: &'q UserId) -> exec [any "the seat invitations to a person's own address, from every house, erased with them"] {
            "DELETE FROM seat_invitations WHERE email = (SELECT email FROM users WHERE id = $1)"
        }

        /// Erase a person's request for an invitation.
        fn erase_invite_requests(id: &'q UserId) -> exec [any "a person's own request for an invitation, erased with them"] {
            "DELETE FROM invite_requests WHERE email = (SELECT email FROM users WHERE id = $1)"
        }

        /// Erase a person's platform invitation.
        fn erase_invitations(id: &'q UserId) -> exec [any "a person's own platform invitation, erased with them"] {
            "DELETE FROM invitations WHERE email = (SELECT email FROM users WHERE id = $1)"
        }

        /// Revoke a person's own invite code.
        fn revoke_own_code(revoked_at: DateTime<Utc>, owner_user_id: &'q UserId) -> exec [any "a person's own invite code (invite codes have no house), ended with them"] {
            "UPDATE invite_codes SET revoked_at = $1 WHERE owner_user_id = $2 AND revoked_at IS NULL"
        }

        /// Revoke a house's keys once nobody sits in it.
        fn revoke_keys_of_empty_house(revoked_at: DateTime<Utc>, org_id: &'q OrgId) -> exec [house] {
            "UPDATE api_keys SET revoked_at = $1 WHERE org_id = $2 AND revoked_at IS NULL \
             AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = $2)"
        }

        /// Erase a person's own row, leaving a tombstone address.
        fn erase_person(email: &'q str, erased_at: DateTime<Utc>, id: &'q UserId) -> exec [any "a person's own row, erased"] {
            "UPDATE users SET email = $1, name = NULL, password_hash = NULL, avatar_key = NULL, \
             email_verified_at = NULL, platform_admin = FALSE, erased_at = $2 WHERE id = $3"
        }
    }
}

macro_rules! impl_seat_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::SeatStore for $ty {
            async fn seats(&self, org_id: &OrgId) -> Result<Vec<SeatRow>, StorageError> {
                Ok(q::seats::seats(org_id).fetch_all(&self.pool).await?)
            }

            async fn seats_of(&self, user_id: &UserId) -> Result<Vec<SeatRow>, StorageError> {
                Ok(q::seats::seats_of(user_id).fetch_all(&self.pool).await?)
            }

            async fn founder(&self, org_id: &OrgId) -> Result<Option<String>, StorageError> {
                Ok(q::seats::founder(org_id).fetch_optional(&self.pool).await?.flatten())
            }

            async fn create_seat_invitation(
                &self,
                inv: SeatInvitationRow,
                since: DateTime<Utc>,
                weekly_limit: i64,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                // Serialise invitations of one house so the weekly count cannot be overrun.
                q::seats::lock_house(&inv.org_id).fetch_optional(&mut *tx).await?;
                let sent = q::seats::invitations_sent(&inv.org_id, since).fetch_one(&mut *tx).await?;
                if sent >= weekly_limit {
                    tx.rollback().await?;
                    return Ok(false);
                }
                q::seats::supersede_invitations(inv.created_at, &inv.org_id, &inv.email).execute(&mut *tx).await?;
                q::seats::insert_seat_invitation(
                    &inv.id,
                    &inv.org_id,
                    &inv.email,
                    &inv.role,
                    &inv.invited_by,
                    inv.status.as_str(),
                    inv.created_at,
                    inv.expires_at,
                    inv.resolved_at,
                )
                .execute(&mut *tx)
                .await
                .map_err(unique_as("pending invitation"))?;
                tx.commit().await?;
                Ok(true)
            }

            async fn seat_invitation(&self, id: &InvitationId) -> Result<Option<SeatInvitationRow>, StorageError> {
                Ok(q::seats::seat_invitation(id).fetch_optional(&self.pool).await?)
            }

            async fn pending_seat_invitations(
                &self,
                org_id: &OrgId,
                now: DateTime<Utc>,
            ) -> Result<Vec<SeatInvitationRow>, StorageError> {
                Ok(q::seats::pending_seat_invitations(org_id, now).fetch_all(&self.pool).await?)
            }

            async fn seat_invitations_to(&self, email: &str) -> Result<Vec<SeatInvitationRow>, StorageError> {
                Ok(q::seats::seat_invitations_to(email).fetch_all(&self.pool).await?)
            }

            async fn accept_seat_invitation(
                &self,
                id: &InvitationId,
                user_id: &UserId,
                now: DateTime<Utc>,
            ) -> Result<AcceptSeat, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let inv = q::seats::accept_seat_invitation(now, id, now).fetch_optional(&mut *tx).await?;
                let Some(inv) = inv else {
                    tx.rollback().await?;
                    return Ok(AcceptSeat::NotPending);
                };
                let mut previous_owner = None;
                if inv.role == "owner" {
                    // Only the owner who made the offer can still be handing the house over.
                    let demoted = q::seats::demote_offering_owner(&inv.org_id, &inv.invited_by, user_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if demoted.is_none() {
                        tx.rollback().await?;
                        return Ok(AcceptSeat::OfferLapsed);
                    }
                    previous_owner = demoted.map(|(u,)| u);
                }
                // An existing seat takes the offered role, except that an owner stays owner.
                q::seats::seat(&inv.org_id, user_id, &inv.role, now)
                    .execute(&mut *tx)
                    .await
                    .map_err(unique_as("owner"))?;
                tx.commit().await?;
                Ok(AcceptSeat::Seated { previous_owner })
            }

            async fn set_seat_role(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                role: &str,
                from: &[&str],
            ) -> Result<Option<SeatRow>, StorageError> {
                if role == "owner" {
                    return Ok(None);
                }
                let _w = self.write_lock().await;
                let [a, b, c] = $crate::storage::sql::seats::role_guard(from);
                let done = q::seats::set_seat_role(role, org_id, user_id, a, b, c).execute(&self.pool).await?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                Ok(q::seats::seat_in(org_id, user_id).fetch_optional(&self.pool).await?)
            }

            async fn remove_seat(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                from: &[&str],
            ) -> Result<Option<SeatRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let seat = q::seats::seat_in_locked(org_id, user_id).fetch_optional(&mut *tx).await?;
                let [a, b, c] = $crate::storage::sql::seats::role_guard(from);
                let done = q::seats::remove_seat(org_id, user_id, a, b, c).execute(&mut *tx).await?;
                if done.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Ok(None);
                }
                q::seats::end_house_sessions(org_id, user_id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(seat)
            }

            async fn transfer_ownership(
                &self,
                org_id: &OrgId,
                from_user: &UserId,
                to_user: &UserId,
            ) -> Result<bool, StorageError> {
                if from_user == to_user {
                    return Ok(false);
                }
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let out = q::seats::step_down(org_id, from_user).execute(&mut *tx).await?;
                if out.rows_affected() != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                let into = q::seats::take_over(org_id, to_user).execute(&mut *tx).await.map_err(unique_as("owner"))?;
                if into.rows_affected() != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn switch_session_house(&self, token_hash: &str, org_id: &OrgId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::seats::switch_session_house(org_id, token_hash).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn erase_user(
                &self,
                user_id: &UserId,
                tombstone_email: &str,
                now: DateTime<Utc>,
            ) -> Result<EraseOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let seats = q::seats::seats_to_erase(user_id).fetch_all(&mut *tx).await?;
                for (org_id, role) in &seats {
                    if role != "owner" {
                        continue;
                    }
                    let others = q::seats::others_seated(&OrgId::from(org_id), user_id).fetch_one(&mut *tx).await?;
                    if others > 0 {
                        tx.rollback().await?;
                        return Ok(EraseOutcome::SoleOwner(org_id.clone()));
                    }
                }
                q::seats::erase_memberships(user_id).execute(&mut *tx).await?;
                q::seats::erase_sessions(user_id).execute(&mut *tx).await?;
                q::seats::erase_memories(user_id).execute(&mut *tx).await?;
                q::seats::erase_onboarding(user_id).execute(&mut *tx).await?;
                q::seats::erase_intake(user_id).execute(&mut *tx).await?;
                q::seats::erase_tool_grants(user_id).execute(&mut *tx).await?;
                q::seats::erase_email_tokens(user_id).execute(&mut *tx).await?;
                q::seats::erase_mail_drips(user_id).execute(&mut *tx).await?;
                q::seats::erase_mail_events(user_id, user_id).execute(&mut *tx).await?;
                q::seats::erase_letters(user_id, user_id).execute(&mut *tx).await?;
                q::seats::erase_seat_invitations(user_id).execute(&mut *tx).await?;
                q::seats::erase_invite_requests(user_id).execute(&mut *tx).await?;
                q::seats::erase_invitations(user_id).execute(&mut *tx).await?;
                // The person's own invite code ends with them.
                q::seats::revoke_own_code(now, user_id).execute(&mut *tx).await?;
                // A house left with nobody in it keeps its library and ledger, but nobody may act
                // for it any more: its keys end with the last seat.
                for (org_id, _) in &seats {
                    q::seats::revoke_keys_of_empty_house(now, &OrgId::from(org_id)).execute(&mut *tx).await?;
                }
                q::seats::erase_person(tombstone_email, now, user_id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(EraseOutcome::Erased { left: seats.into_iter().map(|(org, _)| org).collect() })
            }
        }
    };
}

pub(in crate::storage) use impl_seat_store;
