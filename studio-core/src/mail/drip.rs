//! The onboarding drip: a small schedule of letters after sign-up, queued by an admin's trigger
//! (`POST /api/email/drip`, run by a scheduler). Each step goes to a person at most once: the
//! step is recorded in the same transaction that archives its letter.
//!
//! | step | day | sent when |
//! |---|---|---|
//! | `welcome` | 0 | always |
//! | `first-develop` | 2 | the person has no develop yet |
//! | `tips` | 7 | always |
//!
//! A step is due from its day until [`WINDOW_DAYS`] days later, so a trigger that runs late (or
//! a server first deployed long after people signed up) never sends a stale letter. Only people
//! whose address is verified are written to.

use chrono::{DateTime, Duration, Utc};

use super::{Letter, Mail, templates};
use crate::api::DripRun;
use crate::caller::PlatformAdmin;
use crate::error::Result;
use crate::storage::DripCandidate;

/// How long after its day a step is still sent.
pub const WINDOW_DAYS: i64 = 3;
/// The most people one trigger looks at.
const MAX_CHECKED: i64 = 5_000;

/// One step of the schedule.
struct Step {
    name: &'static str,
    kind: &'static str,
    day: i64,
    /// Skipped for a person who has developed.
    unless_developed: bool,
    write: fn(Option<&str>, &str) -> templates::Written,
}

const SCHEDULE: [Step; 3] = [
    Step { name: "welcome", kind: "drip-welcome", day: 0, unless_developed: false, write: templates::drip_welcome },
    Step {
        name: "first-develop",
        kind: "drip-first-develop",
        day: 2,
        unless_developed: true,
        write: templates::drip_first_develop,
    },
    Step { name: "tips", kind: "drip-tips", day: 7, unless_developed: false, write: templates::drip_tips },
];

impl Step {
    fn due(&self, person: &DripCandidate, now: DateTime<Utc>) -> bool {
        let from = person.created_at + Duration::days(self.day);
        from <= now
            && now < from + Duration::days(WINDOW_DAYS)
            && !person.steps_sent.iter().any(|s| s == self.name)
            && !(self.unless_developed && person.has_develop)
    }
}

impl Mail<'_> {
    /// Queue the onboarding letters due now (see the module header).
    pub async fn drip(&self, admin: &PlatformAdmin) -> Result<DripRun> {
        self.drip_at(admin, crate::ids::now()).await
    }

    /// The drip as if it ran at `now`: what a trigger at that time would queue (tests, and a
    /// scheduler catching up). Letters are stamped with the real time.
    pub async fn drip_at(&self, _admin: &PlatformAdmin, now: DateTime<Utc>) -> Result<DripRun> {
        let studio = self.studio;
        let last = SCHEDULE.iter().map(|s| s.day).max().unwrap_or(0);
        let since = now - Duration::days(last + WINDOW_DAYS);
        let people = self.store.drip_candidates(since, MAX_CHECKED).await?;
        let base = studio.mail().mail_link("/");
        let mut queued = 0;
        for person in &people {
            for step in SCHEDULE.iter().filter(|s| s.due(person, now)) {
                let written = (step.write)(person.name.as_deref(), &base);
                let letter = Letter {
                    kind: step.kind,
                    to: person.email.clone(),
                    user_id: Some(person.user_id.to_string()),
                    subject: written.subject,
                    html: written.html,
                    text: written.text,
                }
                .queued(uuid::Uuid::now_v7());
                if self.store.post_drip_letter(step.name, letter).await? {
                    queued += 1;
                }
            }
        }
        if queued > 0 {
            studio.mail_wakeup.notify_one();
        }
        Ok(DripRun { queued, checked: people.len() as u64 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(days_ago: i64, has_develop: bool, sent: &[&str], now: DateTime<Utc>) -> DripCandidate {
        DripCandidate {
            user_id: "usr".into(),
            email: "a@example.com".into(),
            name: None,
            created_at: now - Duration::days(days_ago) - Duration::minutes(1),
            has_develop,
            steps_sent: sent.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn due(p: &DripCandidate, now: DateTime<Utc>) -> Vec<&'static str> {
        SCHEDULE.iter().filter(|s| s.due(p, now)).map(|s| s.name).collect()
    }

    #[test]
    fn the_schedule() {
        let now = Utc::now();
        assert_eq!(due(&person(0, false, &[], now), now), ["welcome"]);
        assert_eq!(due(&person(0, false, &["welcome"], now), now), Vec::<&str>::new(), "once per person");
        assert_eq!(due(&person(2, false, &["welcome"], now), now), ["welcome", "first-develop"][1..]);
        assert_eq!(due(&person(2, true, &["welcome"], now), now), Vec::<&str>::new(), "not after a develop");
        assert_eq!(due(&person(2, false, &[], now), now), ["welcome", "first-develop"], "a late welcome still goes");
        assert_eq!(due(&person(7, false, &["welcome"], now), now), ["tips"], "first-develop's window has passed");
        assert_eq!(due(&person(10, false, &[], now), now), Vec::<&str>::new(), "every window has passed");
    }
}
