//! The letters Studio writes: plain, small, every interpolated value HTML-escaped. Each is a
//! subject, an HTML body and a plain-text body saying the same.

/// A written letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) subject: String,
    pub(crate) html: String,
    pub(crate) text: String,
}

pub(crate) use crate::markup::escape;

fn greeting(name: Option<&str>) -> String {
    match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => format!("Hello {n},"),
        None => "Hello,".to_string(),
    }
}

/// Build a letter from paragraphs (plain text, escaped here) and an optional button
/// (label, link), which the text version shows as a bare link.
fn letter(subject: &str, paragraphs: &[String], button: Option<(&str, &str)>) -> Written {
    let mut html = String::from(
        "<!doctype html><html><body style=\"font-family:Helvetica,Arial,sans-serif;font-size:15px;\
         line-height:1.5;color:#111;max-width:560px;margin:24px auto;padding:0 16px\">",
    );
    let mut text = String::new();
    for (i, p) in paragraphs.iter().enumerate() {
        html.push_str(&format!("<p>{}</p>", escape(p)));
        text.push_str(p);
        text.push_str("\n\n");
        if i == 0
            && let Some((label, link)) = button
        {
            html.push_str(&format!(
                "<p><a href=\"{}\" style=\"display:inline-block;padding:10px 18px;background:#111;color:#fff;\
                     text-decoration:none;border-radius:4px\">{}</a></p><p style=\"font-size:13px;color:#555\">\
                     Or paste this link into your browser: {}</p>",
                escape(link),
                escape(label),
                escape(link)
            ));
            text.push_str(&format!("{label}: {link}\n\n"));
        }
    }
    html.push_str("<p style=\"font-size:13px;color:#555\">Studio</p></body></html>");
    text.push_str("Studio\n");
    Written { subject: subject.to_string(), html, text }
}

/// The verification letter sent at sign-up and on resend.
pub(crate) fn verify_email(name: Option<&str>, link: &str, hours: i64) -> Written {
    letter(
        "Confirm your email for Studio",
        &[
            format!("{} please confirm that this address is yours.", greeting(name)),
            format!(
                "The link works for {hours} hours and only once. If you did not sign up for Studio, ignore this letter."
            ),
        ],
        Some(("Confirm my email", link)),
    )
}

/// The password-reset letter.
pub(crate) fn password_reset(link: &str, minutes: i64) -> Written {
    letter(
        "Reset your Studio password",
        &[
            "Someone asked to reset the password of the Studio account with this address. Choose a new one here."
                .to_string(),
            format!(
                "The link works for {minutes} minutes and only once; using it signs you out everywhere. If you did not ask, \
                 ignore this letter: your password stays as it is."
            ),
        ],
        Some(("Choose a new password", link)),
    )
}

/// An invitation to a seat in a house.
pub(crate) fn seat_invitation(house: &str, role: &str, inviter: &str, link: &str, days: i64) -> Written {
    letter(
        &format!("You are invited to {house} on Studio"),
        &[
            format!("{inviter} invites you to a {role} seat in {house}."),
            format!(
                "The invitation works for {days} days. Sign in (or sign up) with this address, then accept it; \
                 if you were not expecting it, ignore this letter."
            ),
        ],
        Some(("Open the invitation", link)),
    )
}

/// To a house's owner: the delivery rules disabled one of its webhook endpoints.
pub(crate) fn webhook_disabled(house: &str, url: &str, id: &str, reason: &str) -> Written {
    letter(
        &format!("A webhook of {house} was disabled"),
        &[
            format!("Studio stopped delivering events to {url} ({id}). {reason}"),
            format!(
                "Every attempt is in its delivery log (studio webhooks deliveries {id}). Once the receiver answers \
                 again, enable the endpoint (PATCH /api/toolkit/webhooks/{id} with enabled: true); events are not \
                 queued for it while it is disabled, and any delivery in its log can be sent again (studio webhooks \
                 replay)."
            ),
        ],
        None,
    )
}

/// Drip, day 0.
pub(crate) fn drip_welcome(name: Option<&str>, base: &str) -> Written {
    letter(
        "Welcome to Studio",
        &[
            format!(
                "{} welcome to Studio. Your house is ready, with tokens to try your first develops.",
                greeting(name)
            ),
            "Upload a few garment photos into a collection, then develop one: a packshot, an upscale or a new \
             background. Every develop says its price before you pay."
                .to_string(),
        ],
        Some(("Open Studio", base)),
    )
}

/// Drip, day 2, only to people who have not developed yet.
pub(crate) fn drip_first_develop(name: Option<&str>, base: &str) -> Written {
    letter(
        "Your first develop in Studio",
        &[
            format!("{} you have not developed a frame yet.", greeting(name)),
            "Pick any photo of your library and run a packshot: it takes a minute, and the free pre-flight check tells \
             you first whether the photo will work."
                .to_string(),
        ],
        Some(("Develop a frame", base)),
    )
}

/// Drip, day 7.
pub(crate) fn drip_tips(name: Option<&str>, base: &str) -> Written {
    letter(
        "Three Studio tips",
        &[
            format!("{} three things houses find useful in their first weeks:", greeting(name)),
            "1. Organization keys let scripts and agents work in your library; mint one under Keys.".to_string(),
            "2. Packs zip chosen frames, with renditions, for your retailers.".to_string(),
            "3. A verdict on a landed frame says what to fix and can offer a redraw.".to_string(),
        ],
        Some(("Open Studio", base)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_interpolated_is_escaped() {
        let w = verify_email(Some("<script>alert('x')</script>"), "https://s.example/verify-email?token=a&b=\"c\"", 48);
        assert!(!w.html.contains("<script>"), "{}", w.html);
        assert!(w.html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
        assert!(w.html.contains("token=a&amp;b=&quot;c&quot;"));
        assert!(w.text.contains("https://s.example/verify-email?token=a&b=\"c\""), "the text keeps the link as is");
        assert!(w.text.contains("48 hours"));
        for w in [password_reset("l", 60), drip_welcome(None, "b"), drip_first_develop(None, "b"), drip_tips(None, "b")]
        {
            assert!(!w.subject.is_empty() && w.html.starts_with("<!doctype html>") && w.text.ends_with("Studio\n"));
        }
    }
}
