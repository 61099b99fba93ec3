//! The letters of the platform gate: subject, HTML and text. Each place that writes one posts it
//! to the mail outbox (`Studio::post_letter`), which archives and delivers it.

/// A letter ready for the outbox.
#[derive(Clone, PartialEq, Eq)]
pub struct Letter {
    /// The address it goes to.
    pub to: String,
    /// Subject line.
    pub subject: String,
    /// HTML body.
    pub html: String,
    /// Plain-text body.
    pub text: String,
}

impl std::fmt::Debug for Letter {
    /// The bodies carry the invitation's token: never in a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Letter").field("to", &self.to).field("subject", &self.subject).finish_non_exhaustive()
    }
}

/// Escape text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The invitation letter: the link that accepts it, and the tokens it brings (0 for none).
pub(crate) fn invitation(to: &str, url: &str, grant_tokens: i64) -> Letter {
    let gift = if grant_tokens > 0 {
        format!(" It comes with {grant_tokens} tokens for your house, credited when you accept.")
    } else {
        String::new()
    };
    let text = format!(
        "You are invited to Studio.{gift}\n\nSign in or create your account with this address ({to}), then open:\n{url}\n\n\
         If you did not expect this, ignore this letter: nothing happens until the link is opened by you, signed in."
    );
    let html = format!(
        "<p>You are invited to Studio.{}</p><p>Sign in or create your account with this address ({}), then \
         <a href=\"{}\">accept the invitation</a>.</p><p>If you did not expect this, ignore this letter: nothing \
         happens until the link is opened by you, signed in.</p>",
        escape(&gift),
        escape(to),
        escape(url)
    );
    Letter { to: to.to_string(), subject: "Your invitation to Studio".to_string(), html, text }
}

/// The receipt of a request to be let in.
pub(crate) fn request_received(to: &str, name: Option<&str>) -> Letter {
    let hello = name.map_or_else(|| "Hello".to_string(), |n| format!("Hello {n}"));
    let text = format!(
        "{hello},\n\nWe have your request to join Studio. We read every one, and write to this address when your \
         invitation is ready."
    );
    let html = format!(
        "<p>{},</p><p>We have your request to join Studio. We read every one, and write to this address when your \
         invitation is ready.</p>",
        escape(&hello)
    );
    Letter { to: to.to_string(), subject: "We have your request".to_string(), html, text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_escape_what_they_quote_and_keep_the_link() {
        let letter = invitation("a@example.com", "https://studio.example/invite?token=abc&x=<1>", 40);
        assert!(letter.text.contains("https://studio.example/invite?token=abc&x=<1>"));
        assert!(letter.html.contains("token=abc&amp;x=&lt;1&gt;"), "{}", letter.html);
        assert!(letter.text.contains("40 tokens"));
        assert!(!invitation("a@example.com", "u", 0).text.contains("tokens"));
        let receipt = request_received("b@example.com", Some("<Ada>"));
        assert!(receipt.html.contains("&lt;Ada&gt;") && receipt.text.contains("<Ada>"));
        assert!(!format!("{letter:?}").contains("token=abc"), "Debug never shows the token");
    }
}
