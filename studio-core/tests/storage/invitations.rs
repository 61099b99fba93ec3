//! The platform gate's store under concurrency: a code's uses never pass its limit however many
//! redeemers race, an address takes at most one use, and an invitation's grant is credited once
//! however many acceptances race. A request to be let in reads its derived status (`pending`,
//! then `invited` once an invitation exists for the address) on every backend.

use std::sync::Arc;
use studio_core::{CodeId, InvitationId, InviteRequestId};

use chrono::{Duration, Utc};
use studio_core::{
    AcceptOutcome, Bucket, InvitationRow, InviteCodeRow, InviteRequestRow, InviteRequestStatus, IssueOutcome,
    NewCredit, RedeemOutcome, Storage,
};

use crate::{conformance, new_house};

conformance!(redeemers_never_pass_the_limit, an_acceptance_credits_once, a_request_reads_pending_then_invited);

fn code(max_uses: i64) -> InviteCodeRow {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let label = format!("T{}", &tag[..8]).to_uppercase();
    InviteCodeRow {
        id: format!("icode_{tag}").into(),
        code: format!("{label}-ABCDEF"),
        label,
        owner_user_id: None,
        created_by: None,
        grant_tokens: 7,
        max_uses,
        used_count: 0,
        expires_at: Some(Utc::now() + Duration::days(1)),
        revoked_at: None,
        created_at: Utc::now(),
        joined_count: 0,
    }
}

fn invitation(code_id: &str, email: &str) -> InvitationRow {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    InvitationRow {
        id: InvitationId::from(format!("inv_{tag}")),
        email: email.to_string(),
        token_hash: format!("hash_{tag}"),
        code_id: Some(CodeId::from(code_id)),
        invited_by: None,
        grant_tokens: 7,
        created_at: Utc::now(),
        accepted_at: None,
        accepted_by: None,
        host_rewarded_at: None,
    }
}

async fn redeemers_never_pass_the_limit(storage: Arc<dyn Storage>) {
    let c = code(5);
    storage.insert_code(c.clone()).await.expect("code");
    // 20 addresses, each tried twice at once: 40 redeemers.
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let tasks: Vec<_> = (0..40)
        .map(|i| {
            let (storage, id) = (storage.clone(), c.id.clone());
            let email = format!("r{}-{tag}@example.com", i % 20);
            tokio::spawn(async move { storage.redeem_code(&id, invitation(&id, &email), Utc::now()).await })
        })
        .collect();
    let (mut redeemed, mut refused, mut already) = (Vec::new(), 0, 0);
    for task in tasks {
        match task.await.expect("task").expect("redeem") {
            RedeemOutcome::Redeemed(i) => redeemed.push(i.email),
            RedeemOutcome::Refused(row) => {
                assert_eq!(row.used_count, row.max_uses, "refused only when spent");
                refused += 1;
            }
            RedeemOutcome::AlreadyInvited(_) => already += 1,
            RedeemOutcome::NotFound => panic!("the code exists"),
        }
    }
    redeemed.sort();
    redeemed.dedup();
    assert_eq!(redeemed.len(), 5, "exactly max_uses addresses");
    assert_eq!(refused + already + 5, 40);
    let stored = storage.code_by_code(&c.code).await.expect("read").expect("code");
    assert_eq!(stored.used_count, 5);
    assert_eq!(
        storage.redeem_code(&c.id, invitation(&c.id, &format!("late-{tag}@example.com")), Utc::now()).await.ok(),
        Some(RedeemOutcome::Refused(stored))
    );
    let expired = code(5);
    storage
        .insert_code(InviteCodeRow { expires_at: Some(Utc::now() - Duration::seconds(1)), ..expired.clone() })
        .await
        .expect("code");
    let outcome = storage
        .redeem_code(&expired.id, invitation(&expired.id, &format!("x-{tag}@example.com")), Utc::now())
        .await
        .expect("redeem");
    assert!(matches!(outcome, RedeemOutcome::Refused(ref r) if r.used_count == 0), "{outcome:?}");
    assert_eq!(
        storage
            .redeem_code(
                &CodeId::from("icode_none"),
                invitation("icode_none", &format!("y-{tag}@example.com")),
                Utc::now()
            )
            .await
            .ok(),
        Some(RedeemOutcome::NotFound)
    );
}

async fn an_acceptance_credits_once(storage: Arc<dyn Storage>) {
    let (user, org) = new_house(storage.as_ref(), 0).await;
    let c = code(1);
    storage.insert_code(c.clone()).await.expect("code");
    let written = match storage.redeem_code(&c.id, invitation(&c.id, &format!("{user}@example.com")), Utc::now()).await
    {
        Ok(RedeemOutcome::Redeemed(i)) => i,
        other => panic!("{other:?}"),
    };
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let (storage, id, user, org) = (storage.clone(), written.id.clone(), user.clone(), org.clone());
            tokio::spawn(async move {
                let now = Utc::now();
                let grant = NewCredit {
                    org_id: org,
                    bucket: Bucket::Grant,
                    amount: 7,
                    user_id: Some(user.clone()),
                    reason: "invitation".into(),
                    expires_at: None,
                    now,
                };
                storage.accept_invitation(&id, &user, Some(grant), now).await.expect("accept")
            })
        })
        .collect();
    let mut accepted = 0;
    for task in tasks {
        if matches!(task.await.expect("task"), AcceptOutcome::Accepted(Some(_))) {
            accepted += 1;
        }
    }
    assert_eq!(accepted, 1, "one acceptance");
    let (balance, audit) = (storage.balance(&org).await.expect("balance"), storage.audit(&org).await.expect("audit"));
    assert_eq!((balance.grant_tokens, audit.credited, audit.entries), (7, 7, 1), "credited once");
    let stored = storage.code_by_code(&c.code).await.expect("read").expect("code");
    assert_eq!(stored.joined_count, 1);
}

async fn a_request_reads_pending_then_invited(storage: Arc<dyn Storage>) {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let email = format!("asks-{tag}@example.com");
    let since = Utc::now() - Duration::seconds(5);
    let request = InviteRequestRow {
        id: InviteRequestId::from(format!("ireq_{tag}")),
        email: email.clone(),
        name: Some("Asks".into()),
        house: None,
        collection: None,
        intake: "{}".into(),
        links: "[]".into(),
        logo_url: None,
        website: None,
        created_at: Utc::now(),
        status: InviteRequestStatus::Pending,
    };
    assert!(storage.insert_request(request.clone()).await.expect("request"));
    let id = request.id.clone();
    // The status is computed by the query (a CASE of two words), then decoded as the enum.
    let ids_of = |rows: Vec<InviteRequestRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
    let read = storage.invite_request(&id).await.expect("read").expect("stored");
    assert_eq!(read.status, InviteRequestStatus::Pending);
    let pending = storage.invite_requests_since(since, Some(InviteRequestStatus::Pending), i64::MAX).await;
    assert!(ids_of(pending.expect("pending")).contains(&request.id));
    let invited = storage.invite_requests_since(since, Some(InviteRequestStatus::Invited), i64::MAX).await;
    assert!(!ids_of(invited.expect("invited")).contains(&request.id));

    let written = InvitationRow { code_id: None, ..invitation("", &email) };
    assert_eq!(storage.issue_invitation(written).await.expect("invite"), IssueOutcome::Created);
    let read = storage.invite_request(&id).await.expect("read").expect("stored");
    assert_eq!(read.status, InviteRequestStatus::Invited);
    let invited = storage.invite_requests_since(since, Some(InviteRequestStatus::Invited), i64::MAX).await;
    assert!(ids_of(invited.expect("invited")).contains(&request.id));
    let pending = storage.invite_requests_since(since, Some(InviteRequestStatus::Pending), i64::MAX).await;
    assert!(!ids_of(pending.expect("pending")).contains(&request.id));
    let listed = storage.invite_requests().await.expect("list").into_iter().find(|r| r.id == request.id);
    assert_eq!(listed.map(|r| r.status), Some(InviteRequestStatus::Invited));
}
