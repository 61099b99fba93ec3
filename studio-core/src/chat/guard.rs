//! The leak guard: an answer is withheld (and the session handed to support, reason
//! `leak_guard`) when it quotes an organization key or its prefix (`studio_sk_`), what looks
//! like a token secret (a run of 40 or more hex digits: every secret the studio issues is 64),
//! or an email address other than the caller's own. The context never holds such things; the
//! guard is the second line, for what a reader might make up or echo from a message.

use crate::caller::Caller;
use crate::error::Result;
use crate::studio::Studio;

/// The marker every organization key starts with.
const KEY_MARKER: &str = "studio_sk_";
/// The shortest run of hex digits read as a secret.
const SECRET_HEX_RUN: usize = 40;

/// What in `text` must not be shown to the caller, if anything.
pub(super) async fn leak(studio: &Studio, caller: &Caller, text: &str) -> Result<Option<&'static str>> {
    if text.to_ascii_lowercase().contains(KEY_MARKER) {
        return Ok(Some("an organization key"));
    }
    if longest_hex_run(text) >= SECRET_HEX_RUN {
        return Ok(Some("a token secret"));
    }
    let emails = emails(text);
    if emails.is_empty() {
        return Ok(None);
    }
    let own = studio.accounts().user(&caller.user_id).await?.map(|u| u.email.to_ascii_lowercase());
    Ok(emails.iter().any(|e| Some(e) != own.as_ref()).then_some("another person's email"))
}

fn longest_hex_run(text: &str) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in text.chars() {
        run = if c.is_ascii_hexdigit() { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// The email addresses in `text`, lowercased: a local part and a dotted domain around an `@`.
fn emails(text: &str) -> Vec<String> {
    let local = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let domain = |c: char| c.is_ascii_alphanumeric() || ".-".contains(c);
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for (at, _) in chars.iter().enumerate().filter(|(_, c)| **c == '@') {
        let start = (0..at).rev().take_while(|i| local(chars[*i])).last();
        let end = (at + 1..chars.len()).take_while(|i| domain(chars[*i])).last();
        let (Some(start), Some(end)) = (start, end) else { continue };
        let host: String = chars[at + 1..=end].iter().collect();
        let host = host.trim_end_matches('.');
        if host.contains('.') && !host.starts_with('.') {
            let name: String = chars[start..at].iter().collect();
            out.push(format!("{name}@{host}").to_ascii_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_found_in_prose() {
        assert_eq!(emails("write to Ana.B+x@Maison.example. or not"), vec!["ana.b+x@maison.example"]);
        assert_eq!(emails("a @ sign, user@localhost and @handle"), Vec::<String>::new());
        assert_eq!(emails("a@b.co and c@d.org"), vec!["a@b.co", "c@d.org"]);
    }

    #[test]
    fn secrets_are_long_hex_runs() {
        assert_eq!(longest_hex_run("job_0190abcd"), 8);
        assert!(longest_hex_run(&"ab12".repeat(16)) >= SECRET_HEX_RUN);
        // An id's 32 hex digits are not a secret.
        assert!(longest_hex_run("job_0192f3e4a5b6c7d8e9f0a1b2c3d4e5f6") < SECRET_HEX_RUN);
    }
}
