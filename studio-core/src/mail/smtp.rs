//! The SMTP adapter of the [`Mailer`] seam, on lettre (rustls, no native TLS).
//!
//! Configured by a URL: `smtp://host:port` (plain, for a relay on loopback or a test sink),
//! `smtp://user:pass@host:587?tls=required` (STARTTLS), `smtps://user:pass@host` (TLS from the
//! first byte, port 465 by default). A path names the EHLO host (`smtp://host/studio.example`).
//! Each letter goes over a new connection with a 30-second timeout.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::{MailError, Mailer, OutgoingLetter};

/// How long one SMTP conversation may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Delivers letters to an SMTP server.
#[derive(Clone)]
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The URL without its credentials, for logs.
    shown: String,
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpMailer").field("server", &self.shown).field("from", &self.from.to_string()).finish()
    }
}

impl SmtpMailer {
    /// An adapter for the server `url` names, sending from `from` (`Studio <studio@example.com>`
    /// or a bare address). Refuses a URL or address it cannot use.
    pub fn new(url: &str, from: &str) -> Result<Self, MailError> {
        let from: Mailbox =
            from.trim().parse().map_err(|e| MailError::Permanent(format!("the sender {from:?} is not usable: {e}")))?;
        let shown = redact(url);
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.trim())
            .map_err(|e| MailError::Permanent(format!("the SMTP URL {shown} is not usable: {e}")))?
            .timeout(Some(SMTP_TIMEOUT))
            .build();
        Ok(SmtpMailer { transport, from, shown })
    }

    /// The server, without credentials (for the start-up log).
    pub fn server(&self) -> &str {
        &self.shown
    }

    fn message(&self, letter: &OutgoingLetter) -> Result<Message, MailError> {
        let to: Mailbox = letter
            .to
            .parse()
            .map_err(|e| MailError::Permanent(format!("the recipient {:?} is not an address: {e}", letter.to)))?;
        let domain = self.from.email.domain().to_string();
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(letter.subject.clone())
            .message_id(Some(format!("<{}@{domain}>", letter.id)))
            .multipart(
                MultiPart::alternative()
                    .singlepart(SinglePart::builder().header(ContentType::TEXT_PLAIN).body(letter.text.clone()))
                    .singlepart(SinglePart::builder().header(ContentType::TEXT_HTML).body(letter.html.clone())),
            )
            .map_err(|e| MailError::Permanent(format!("the letter could not be built: {e}")))
    }
}

#[async_trait::async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, letter: &OutgoingLetter) -> Result<(), MailError> {
        let message = self.message(letter)?;
        match self.transport.send(message).await {
            Ok(_) => Ok(()),
            // A 5xx answer: the server will not take this letter, however often it is sent.
            Err(e) if e.is_permanent() => Err(MailError::Permanent(e.to_string())),
            // A 4xx answer, a refused or dropped connection, a timeout: try again later.
            Err(e) => Err(MailError::Transient(e.to_string())),
        }
    }
}

/// The URL with any password replaced by `***`.
fn redact(url: &str) -> String {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    match rest.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_senders_are_checked_and_credentials_never_shown() {
        let m = SmtpMailer::new("smtps://ada:s3cret@mail.example.com", "Studio <studio@example.com>").expect("usable");
        assert_eq!(m.server(), "smtps://ada:***@mail.example.com");
        assert!(!format!("{m:?}").contains("s3cret"));
        assert!(SmtpMailer::new("smtp://127.0.0.1:2525", "studio@example.com").is_ok());
        assert!(SmtpMailer::new("smtp://127.0.0.1:2525?tls=required", "studio@example.com").is_ok());
        assert!(matches!(
            SmtpMailer::new("http://mail.example.com", "studio@example.com"),
            Err(MailError::Permanent(_))
        ));
        assert!(matches!(SmtpMailer::new("smtp://127.0.0.1:2525", "not an address"), Err(MailError::Permanent(_))));
    }

    #[test]
    fn a_letter_carries_its_id_and_both_bodies() {
        let m = SmtpMailer::new("smtp://127.0.0.1:2525", "Studio <studio@example.com>").expect("usable");
        let letter = OutgoingLetter {
            id: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee".into(),
            to: "ada@example.com".into(),
            subject: "Hello".into(),
            html: "<p>Hi</p>".into(),
            text: "Hi".into(),
        };
        let raw = String::from_utf8(m.message(&letter).expect("built").formatted()).expect("utf-8");
        assert!(raw.contains("Message-ID: <0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee@example.com>"), "{raw}");
        assert!(raw.contains("text/plain") && raw.contains("text/html") && raw.contains("To: ada@example.com"));
        let bad = OutgoingLetter { to: "nobody".into(), ..letter };
        assert!(matches!(m.message(&bad), Err(MailError::Permanent(_))));
    }
}
