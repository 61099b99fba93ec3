//! Seats end to end (§4.9): invitations and acceptance, the whole role matrix of re-seating and
//! removal, exactly one owner after any sequence of transfers and removals, a removed person's
//! session refused on the next call, switching houses.

use studio_client::api::SeatRole;
use studio_tests::{Backend, House, Person, TestApp, backend_tests, spawn};

backend_tests!(
    invitations_follow_their_rules,
    reseating_follows_the_role_matrix,
    removal_follows_the_role_matrix,
    a_house_always_has_exactly_one_owner,
    a_removed_person_is_refused_at_once,
    a_person_switches_between_houses,
    the_weekly_invitation_limit_holds,
);

const ROLES: [SeatRole; 4] = [SeatRole::Owner, SeatRole::Admin, SeatRole::Member, SeatRole::Viewer];

fn code(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn role_of(house: &House, user_id: &str) -> Option<SeatRole> {
    house.session.seats().await.expect("seats").seats.into_iter().find(|s| s.user_id == user_id).map(|s| s.role)
}

async fn invitations_follow_their_rules(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "inv").await;
    let admin = house.seat(&app, "inv-admin", SeatRole::Admin).await;
    let member = house.seat(&app, "inv-member", SeatRole::Member).await;
    let guest = Person::sign_up(&app, "inv-guest").await;

    // Who may invite, and what.
    let e = member.session.invite_seat(&guest.email, SeatRole::Viewer).await.expect_err("member invites");
    assert_eq!(code(&e), (Some(403), Some("FORBIDDEN")));
    let e = admin.session.invite_seat(&guest.email, SeatRole::Owner).await.expect_err("admin offers owner");
    assert_eq!(code(&e), (Some(403), Some("OWNER_SEAT_OWNER_ONLY")));
    let e = house.key.invite_seat(&guest.email, SeatRole::Viewer).await.expect_err("a key invites");
    assert_eq!(e.status(), Some(403));
    let e = house.session.invite_seat(&member.email, SeatRole::Viewer).await.expect_err("already seated");
    assert_eq!(code(&e), (Some(400), Some("ALREADY_MEMBER")));
    let e = house.session.invite_seat("not an address", SeatRole::Viewer).await.expect_err("bad address");
    assert_eq!(code(&e), (Some(400), Some("BAD_EMAIL")));

    // A re-invite supersedes the pending one.
    let first = admin.session.invite_seat(&guest.email, SeatRole::Viewer).await.expect("invite");
    assert_eq!((first.role, first.organization_id.as_str()), (SeatRole::Viewer, house.org_id.as_str()));
    assert!(first.url.ends_with(&first.id), "{}", first.url);
    let second = house.session.invite_seat(&guest.email, SeatRole::Member).await.expect("re-invite");
    let pending = house.session.seats().await.unwrap().invitations;
    assert_eq!(pending.iter().filter(|i| i.email == guest.email).count(), 1, "one pending invitation per address");
    let e = guest.session.accept_seat(&first.id).await.expect_err("superseded");
    assert_eq!(code(&e), (Some(404), Some("INVITATION_NOT_FOUND")));

    // Only the invited, proven address accepts.
    let e = member.session.accept_seat(&second.id).await.expect_err("someone else");
    assert_eq!(code(&e), (Some(403), Some("EMAIL_MISMATCH")));
    let unproven_email = studio_tests::unique_email("inv-unproven");
    let unproven = app.client.sign_up(&unproven_email, studio_tests::PASSWORD, None).await.unwrap();
    let unproven = app.client.with_session(&unproven.session);
    let offer = house.session.invite_seat(&unproven_email, SeatRole::Viewer).await.expect("invite");
    let e = unproven.accept_seat(&offer.id).await.expect_err("unproven address");
    assert_eq!(code(&e), (Some(403), Some("EMAIL_UNVERIFIED")));
    let e = guest.session.accept_seat("inv_nope").await.expect_err("unknown");
    assert_eq!(code(&e), (Some(404), Some("INVITATION_NOT_FOUND")));

    let joined = guest.session.accept_seat(&second.id).await.expect("accept");
    assert_eq!((joined.organization_id.as_str(), joined.role), (house.org_id.as_str(), SeatRole::Member));
    let again = guest.session.accept_seat(&second.id).await.expect("accepting twice answers the same");
    assert_eq!(again, joined);
    let me = guest.session.session().await.expect("session");
    assert_eq!(me.organization.id, house.org_id, "accepting makes that house the active one");
    assert_eq!(role_of(&house, &guest.user_id).await, Some(SeatRole::Member));

    // Who may offer which seat: every cell.
    let viewer = house.seat(&app, "inv-viewer", SeatRole::Viewer).await;
    for role in ROLES {
        let e = viewer.session.invite_seat(&guest.email, role).await.expect_err("a viewer invites nobody");
        assert_eq!(code(&e), (Some(403), Some("FORBIDDEN")));
        let e = member.session.invite_seat(&guest.email, role).await.expect_err("a member invites nobody");
        assert_eq!(code(&e), (Some(403), Some("FORBIDDEN")));
        let by_admin = admin.session.invite_seat(&studio_tests::unique_email("inv-cell"), role).await;
        match role {
            SeatRole::Owner => {
                assert_eq!(code(&by_admin.expect_err("owner seat")), (Some(403), Some("OWNER_SEAT_OWNER_ONLY")))
            }
            _ => assert_eq!(by_admin.expect("admin offers it").role, role),
        }
        let by_owner = house.session.invite_seat(&studio_tests::unique_email("inv-cell"), role).await;
        assert_eq!(by_owner.expect("the owner offers every seat").role, role);
    }

    // Accepting an owner seat moves ownership: the previous owner becomes admin.
    let heir = Person::sign_up(&app, "inv-heir").await;
    let crown = house.session.invite_seat(&heir.email, SeatRole::Owner).await.expect("owner seat");
    heir.session.accept_seat(&crown.id).await.expect("accept the owner seat");
    assert_eq!(role_of(&house, &heir.user_id).await, Some(SeatRole::Owner));
    assert_eq!(role_of(&house, &house.user_id).await, Some(SeatRole::Admin));
    assert_owners(&house, 1).await;

    // An owner seat offered by an owner who has since handed the house over has lapsed.
    let late = Person::sign_up(&app, "inv-late").await;
    let stale = heir.session.invite_seat(&late.email, SeatRole::Owner).await.expect("owner offer");
    heir.session.transfer_house(&member.user_id).await.expect("hand over");
    let e = late.session.accept_seat(&stale.id).await.expect_err("lapsed");
    assert_eq!(code(&e), (Some(409), Some("OWNERSHIP_CHANGED")));
    assert_eq!(role_of(&house, &member.user_id).await, Some(SeatRole::Owner), "the new owner keeps the house");
    assert_eq!(role_of(&house, &late.user_id).await, None);
    assert_owners(&house, 1).await;
    // Only the owner transfers.
    for who in [&admin, &viewer, &heir] {
        let e = who.session.transfer_house(&late.user_id).await.expect_err("not the owner");
        assert_eq!(e.status(), Some(403));
    }
}

/// Per caller role: (target role → allowed). Nobody re-seats themselves; nobody touches the owner.
fn may_reseat(caller: SeatRole, target: SeatRole) -> bool {
    match caller {
        SeatRole::Owner => target != SeatRole::Owner,
        SeatRole::Admin => matches!(target, SeatRole::Member | SeatRole::Viewer),
        SeatRole::Member | SeatRole::Viewer => false,
    }
}

/// A house with two people of each non-owner role, so a caller of any role has a target of
/// every role that is not themselves.
async fn crowded(app: &TestApp, tag: &str) -> (House, Vec<(SeatRole, Person)>) {
    let house = House::new(app, tag).await;
    let mut people = Vec::new();
    for role in [SeatRole::Admin, SeatRole::Member, SeatRole::Viewer] {
        for n in 0..2 {
            people.push((role, house.seat(app, &format!("{tag}-{role}-{n}"), role).await));
        }
    }
    (house, people)
}

async fn reseating_follows_the_role_matrix(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let (house, people) = crowded(&app, "reseat").await;
    let owner = Person {
        email: house.email.clone(),
        session: house.session.clone(),
        user_id: house.user_id.clone(),
        home_org_id: house.org_id.to_string(),
    };
    let of = |role: SeatRole, n: usize| -> &Person {
        if role == SeatRole::Owner { &owner } else { &people.iter().filter(|(r, _)| *r == role).nth(n).unwrap().1 }
    };
    let mut cells = 0;
    for caller_role in ROLES {
        let caller = of(caller_role, 0);
        for target_role in ROLES {
            // The first of a role is the caller; the target is another person of that role.
            let target = if target_role == caller_role && caller_role != SeatRole::Owner {
                of(target_role, 1)
            } else {
                of(target_role, 0)
            };
            for new_role in [SeatRole::Admin, SeatRole::Member, SeatRole::Viewer, SeatRole::Owner] {
                cells += 1;
                let answer = caller.session.set_seat_role(&target.user_id, new_role).await;
                let expected = if new_role == SeatRole::Owner {
                    Err((Some(400), Some("BAD_ROLE")))
                } else if caller.user_id == target.user_id {
                    Err((Some(403), Some("CANNOT_RESEAT_SELF")))
                } else if may_reseat(caller_role, target_role) {
                    Ok(new_role)
                } else {
                    Err((Some(403), Some("FORBIDDEN")))
                };
                match (&answer, expected) {
                    (Ok(changed), Ok(role)) => {
                        assert_eq!((changed.role, changed.user_id.as_str()), (role, target.user_id.as_str()));
                        assert_eq!(role_of(&house, &target.user_id).await, Some(role));
                        // Put the target back for the next cell.
                        house.session.set_seat_role(&target.user_id, target_role).await.expect("restore");
                    }
                    (Err(e), Err(expected)) => {
                        assert_eq!(code(e), expected, "{caller_role} re-seating a {target_role} as {new_role}");
                        assert_eq!(role_of(&house, &target.user_id).await, Some(target_role), "nothing changed");
                    }
                    (got, want) => panic!("{caller_role} → {target_role} as {new_role}: got {got:?}, want {want:?}"),
                }
            }
        }
    }
    assert_eq!(cells, 64);
    let e = house.session.set_seat_role("usr_nobody", SeatRole::Member).await.expect_err("no seat");
    assert_eq!(code(&e), (Some(404), Some("SEAT_NOT_FOUND")));
    assert_owners(&house, 1).await;
}

async fn removal_follows_the_role_matrix(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    for caller_role in ROLES {
        for target_role in ROLES {
            for itself in [false, true] {
                if itself && target_role != caller_role {
                    continue;
                }
                let tag = format!("rm-{caller_role}-{target_role}-{itself}");
                let house = House::new(&app, &tag).await;
                // The founder owns the house; for an owner other than the founder, move it.
                let owner = house.seat(&app, &format!("{tag}-o"), SeatRole::Owner).await;
                let seated = |role: SeatRole| {
                    let house = &house;
                    let app = &app;
                    let tag = &tag;
                    async move { house.seat(app, &format!("{tag}-{role}"), role).await }
                };
                let owner_client = owner.session.clone();
                let caller = if caller_role == SeatRole::Owner { owner.clone() } else { seated(caller_role).await };
                let target = if itself {
                    caller.clone()
                } else if target_role == SeatRole::Owner {
                    owner.clone()
                } else {
                    let t = Person::sign_up(&app, &format!("{tag}-t")).await;
                    let inv = owner_client.invite_seat(&t.email, target_role).await.expect("invite target");
                    t.session.accept_seat(&inv.id).await.expect("accept");
                    t
                };
                let allowed = target_role != SeatRole::Owner
                    && (itself
                        || match caller_role {
                            SeatRole::Owner => true,
                            SeatRole::Admin => matches!(target_role, SeatRole::Member | SeatRole::Viewer),
                            _ => false,
                        });
                let answer = caller.session.remove_seat(&target.user_id).await;
                match answer {
                    Ok(removed) => {
                        assert!(allowed, "{tag}: removed but should be refused");
                        assert!(removed.work_stays_with_house);
                        assert_eq!(removed.user_id, target.user_id);
                        assert_eq!(role_of(&house, &target.user_id).await, None);
                    }
                    Err(e) => {
                        assert!(!allowed, "{tag}: refused but should be allowed: {e}");
                        let expected = if target_role == SeatRole::Owner { "OWNER_MUST_TRANSFER" } else { "FORBIDDEN" };
                        assert_eq!(code(&e), (Some(403), Some(expected)), "{tag}");
                        assert_eq!(role_of(&house, &target.user_id).await, Some(target_role), "{tag}: kept");
                    }
                }
                // The founder (now an admin) is never removed, by anyone.
                let e = owner_client.remove_seat(&house.user_id).await.expect_err("the founder stays");
                assert_eq!(code(&e), (Some(403), Some("FOUNDER_SEAT")), "{tag}");
                assert_owners(&house, 1).await;
            }
        }
    }
}

async fn assert_owners(house: &House, n: usize) {
    let seats = house.session.seats().await.or(house.key.seats().await).expect("seats");
    let owners = seats.seats.iter().filter(|s| s.role == SeatRole::Owner).count();
    assert_eq!(owners, n, "owners of the house: {seats:?}");
}

async fn a_house_always_has_exactly_one_owner(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "one-owner").await;
    let mut people = vec![Person {
        email: house.email.clone(),
        session: house.session.clone(),
        user_id: house.user_id.clone(),
        home_org_id: house.org_id.to_string(),
    }];
    for (n, role) in [SeatRole::Admin, SeatRole::Member, SeatRole::Viewer, SeatRole::Member].into_iter().enumerate() {
        people.push(house.seat(&app, &format!("one-owner-{n}"), role).await);
    }
    let mut owner = 0usize;
    // A fixed walk of transfers and removals, checked after every step.
    for step in 0..12usize {
        let next = (owner + 1 + step % 3) % people.len();
        if step % 4 == 3 && people.len() > 3 {
            // A removal of someone who is neither owner nor founder.
            let victim = (1..people.len()).find(|&i| i != owner).expect("someone");
            people[owner].session.remove_seat(&people[victim].user_id).await.expect("remove");
            people.remove(victim);
            if victim < owner {
                owner -= 1;
            }
        } else if next != owner {
            let t = people[owner].session.transfer_house(&people[next].user_id).await.expect("transfer");
            assert_eq!(t.previous_owner_role, SeatRole::Admin);
            let e = people[owner].session.transfer_house(&people[next].user_id).await.expect_err("no longer owner");
            assert_eq!(e.status(), Some(403));
            owner = next;
        }
        let seats = people[owner].session.seats().await.expect("seats").seats;
        assert_eq!(seats.iter().filter(|s| s.role == SeatRole::Owner).count(), 1, "step {step}: {seats:?}");
        assert_eq!(seats.iter().find(|s| s.role == SeatRole::Owner).unwrap().user_id, people[owner].user_id);
    }
    // Two transfers at once from the same owner: exactly one wins.
    let current = people[owner].session.clone();
    let others: Vec<String> =
        people.iter().filter(|p| p.user_id != people[owner].user_id).map(|p| p.user_id.clone()).collect();
    let (a, b) = tokio::join!(current.transfer_house(&others[0]), current.transfer_house(&others[1]));
    assert_eq!(a.is_ok() as u8 + b.is_ok() as u8, 1, "one transfer wins: {a:?} / {b:?}");
    let seats = people[0].session.seats().await.or(people[1].session.seats().await).expect("seats").seats;
    assert_eq!(seats.iter().filter(|s| s.role == SeatRole::Owner).count(), 1, "{seats:?}");

    let e = house.key.transfer_house(&others[0]).await.expect_err("a key never transfers");
    assert_eq!(e.status(), Some(403));
}

async fn a_removed_person_is_refused_at_once(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "removed").await;
    let member = house.seat(&app, "removed-member", SeatRole::Member).await;
    assert_eq!(member.session.balance().await.expect("balance while seated").balance, 100);
    let removed = house.session.remove_seat(&member.user_id).await.expect("remove");
    assert_eq!(removed.email, member.email);
    let e = member.session.balance().await.expect_err("the very next call");
    assert_eq!(e.status(), Some(401));
    assert!(house.key.balance().await.is_ok(), "organization keys belong to the house and stay valid");
    // Their own personal house is untouched: signing in lands there.
    let back = app.client.sign_in(&member.email, studio_tests::PASSWORD).await.expect("sign in");
    assert_eq!(back.account.organization.id, member.home_org_id);
    // Leaving of one's own accord.
    let viewer = house.seat(&app, "removed-viewer", SeatRole::Viewer).await;
    viewer.session.remove_seat(&viewer.user_id).await.expect("leave");
    assert_eq!(viewer.session.balance().await.expect_err("gone").status(), Some(401));
}

async fn a_person_switches_between_houses(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let a = House::new(&app, "switch-a").await;
    let b = House::new(&app, "switch-b").await;
    let person = a.seat(&app, "switcher", SeatRole::Viewer).await;
    let inv = b.session.invite_seat(&person.email, SeatRole::Member).await.expect("invite");
    person.session.accept_seat(&inv.id).await.expect("accept b");
    assert_eq!(person.session.session().await.unwrap().organization.id, b.org_id);
    let me = person.session.me().await.expect("me");
    let ids: Vec<&str> = me.houses.iter().map(|h| h.organization_id.as_str()).collect();
    assert!(ids.contains(&a.org_id.as_str()) && ids.contains(&b.org_id.as_str()) && ids.len() == 3, "{ids:?}");
    assert!(me.houses.iter().any(|h| h.organization_id == b.org_id && h.active));
    assert!(me.houses.iter().any(|h| h.organization_id == person.home_org_id && h.founder));

    let to_a = person.session.switch_house(&a.org_id).await.expect("switch to a");
    assert_eq!((to_a.organization_id.as_str(), to_a.role), (a.org_id.as_str(), SeatRole::Viewer));
    let now = person.session.session().await.unwrap();
    assert_eq!((now.organization.id.as_str(), now.role), (a.org_id.as_str(), SeatRole::Viewer));
    let stranger = House::new(&app, "switch-c").await;
    let e = person.session.switch_house(&stranger.org_id).await.expect_err("no seat there");
    assert_eq!(code(&e), (Some(404), Some("HOUSE_NOT_FOUND")));
    assert_eq!(person.session.session().await.unwrap().organization.id, a.org_id, "unchanged");
    let e = a.key.switch_house(&b.org_id).await.expect_err("a key belongs to one house");
    assert_eq!(code(&e), (Some(403), Some("SESSION_REQUIRED")));
}

async fn the_weekly_invitation_limit_holds(backend: Backend) {
    let app = spawn(backend, |c| c.people.seat_invites_per_week = 3).await.expect("app");
    let house = House::new(&app, "limit").await;
    for n in 0..3 {
        house
            .session
            .invite_seat(&studio_tests::unique_email(&format!("limit-{n}")), SeatRole::Viewer)
            .await
            .expect("invite");
    }
    let e = house.session.invite_seat(&studio_tests::unique_email("limit-4"), SeatRole::Viewer).await.expect_err("4th");
    assert_eq!(code(&e), (Some(429), Some("INVITE_LIMIT")));
    let other = House::new(&app, "limit-other").await;
    other.session.invite_seat(&studio_tests::unique_email("limit-o"), SeatRole::Viewer).await.expect("per house");
}
