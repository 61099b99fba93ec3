//! The outbox: a due letter goes to exactly one worker however many claim at once, a lapsed
//! claim is taken over and only the current claim records an outcome; delivery reports are
//! kept once per webhook id; drip steps are recorded once per person.

use std::collections::BTreeSet;
use std::sync::Arc;
use studio_core::{LetterId, ProviderRef};

use chrono::{Duration, Utc};
use studio_core::{LetterFilter, LetterOutcome, LetterRow, LetterStatus, MailEventOutcome, Storage};

use crate::{conformance, new_house};

conformance!(the_outbox_hands_each_letter_to_one_worker);

fn queued(id: &str, to: &str, user_id: Option<&str>) -> LetterRow {
    let now = Utc::now() - Duration::seconds(5);
    LetterRow {
        id: id.into(),
        kind: "test".into(),
        to_addr: to.into(),
        user_id: user_id.map(Into::into),
        subject: "s".into(),
        html: "<p>h</p>".into(),
        text: "t".into(),
        status: LetterStatus::Queued,
        attempts: 0,
        next_attempt_at: now,
        claim_token: None,
        lease_until: None,
        last_error: None,
        created_at: now,
        updated_at: now,
        sent_at: None,
    }
}

/// One test, so no other test's claims race these on the shared PostgreSQL database.
async fn the_outbox_hands_each_letter_to_one_worker(storage: Arc<dyn Storage>) {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let ids: Vec<String> = (0..12).map(|_| uuid::Uuid::now_v7().to_string()).collect();
    for id in &ids {
        storage.insert_letter(queued(id, &format!("{tag}@example.com"), None)).await.unwrap();
    }
    let mut workers = Vec::new();
    for w in 0..8 {
        let storage = storage.clone();
        workers.push(tokio::spawn(async move {
            let mut got = Vec::new();
            let token = format!("worker-{w}");
            loop {
                let now = Utc::now();
                let Some(l) = storage.claim_letter(&token, now, now + Duration::minutes(1)).await.unwrap() else {
                    break;
                };
                assert!(storage.finish_letter(&l.id, &token, &LetterOutcome::Sent, Utc::now()).await.unwrap());
                got.push(l.id);
            }
            got
        }));
    }
    let mut claimed = Vec::new();
    for w in workers {
        claimed.extend(w.await.unwrap());
    }
    let unique: BTreeSet<&LetterId> = claimed.iter().collect();
    assert_eq!((claimed.len(), unique.len()), (12, 12), "each letter claimed exactly once");

    // A lapsed claim is taken over; the old holder records nothing; a retry waits its turn.
    let id = uuid::Uuid::now_v7().to_string();
    storage.insert_letter(queued(&id, "late@example.com", None)).await.unwrap();
    let now = Utc::now();
    let first = storage.claim_letter("old", now, now + Duration::seconds(30)).await.unwrap().expect("due");
    assert_eq!((first.id.as_str(), first.attempts), (id.as_str(), 1));
    assert!(storage.claim_letter("other", now, now + Duration::seconds(30)).await.unwrap().is_none(), "held");
    let later = now + Duration::seconds(31);
    let second = storage.claim_letter("new", later, later + Duration::seconds(30)).await.unwrap().expect("lapsed");
    assert_eq!(second.attempts, 2);
    assert!(
        !storage.finish_letter(&LetterId::from(&id), "old", &LetterOutcome::Sent, later).await.unwrap(),
        "the old claim is gone"
    );
    let retry = LetterOutcome::Retry { error: "451".into(), at: later + Duration::minutes(5) };
    assert!(storage.finish_letter(&LetterId::from(&id), "new", &retry, later).await.unwrap());
    assert!(storage.claim_letter("x", later, later + Duration::seconds(30)).await.unwrap().is_none(), "not yet due");
    let row = storage.letter(&LetterId::from(&id)).await.unwrap().expect("kept");
    assert_eq!((row.status, row.last_error.as_deref(), row.claim_token), (LetterStatus::Queued, Some("451"), None));

    // Delivery reports: once per webhook id, and a status never moves back.
    let hook = |n: u32| format!("{tag}-{n}");
    assert_eq!(
        storage
            .apply_mail_event(&ProviderRef::from(&hook(1)), Some(&ids[0].as_str().into()), LetterStatus::Bounced, now)
            .await
            .unwrap(),
        MailEventOutcome::Applied(LetterStatus::Bounced)
    );
    assert_eq!(
        storage
            .apply_mail_event(&ProviderRef::from(&hook(1)), Some(&ids[0].as_str().into()), LetterStatus::Bounced, now)
            .await
            .unwrap(),
        MailEventOutcome::Duplicate
    );
    assert_eq!(
        storage
            .apply_mail_event(&ProviderRef::from(&hook(2)), Some(&ids[0].as_str().into()), LetterStatus::Delivered, now)
            .await
            .unwrap(),
        MailEventOutcome::Applied(LetterStatus::Bounced)
    );
    assert_eq!(
        storage
            .apply_mail_event(&ProviderRef::from(&hook(3)), Some(&"nope".into()), LetterStatus::Delivered, now)
            .await
            .unwrap(),
        MailEventOutcome::UnknownLetter
    );

    // A drip step is recorded, with its letter, once per person.
    let (user, _) = new_house(storage.as_ref(), 0).await;
    let step = |to: &str| queued(&uuid::Uuid::now_v7().to_string(), to, Some(&user));
    assert!(storage.post_drip_letter("welcome", step("d@example.com")).await.unwrap());
    assert!(!storage.post_drip_letter("welcome", step("d@example.com")).await.unwrap(), "once");
    assert!(storage.post_drip_letter("tips", step("d@example.com")).await.unwrap());
    let mine = LetterFilter { to: Some("d@example.com".into()), limit: 10, ..LetterFilter::default() };
    assert_eq!(storage.list_letters(&mine).await.unwrap().len(), 2, "the refused step archived no letter");
}
