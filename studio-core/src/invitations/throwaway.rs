//! Throwaway (disposable) mail domains, refused by code redemption and requests. A short list of
//! our own rather than the `mailchecker` crate, whose tens of thousands of compiled-in domains
//! outweigh what the gate needs: these are the services seen most. A subdomain of a listed domain
//! is refused too. Add a domain here when one shows up (docs/invitations.md, "Throwaway domains").

/// The listed domains, lowercase.
const DOMAINS: &[&str] = &[
    "10minutemail.com",
    "10minutemail.net",
    "20minutemail.com",
    "33mail.com",
    "burnermail.io",
    "discard.email",
    "dispostable.com",
    "dropmail.me",
    "emailondeck.com",
    "fakeinbox.com",
    "fakemail.net",
    "getairmail.com",
    "getnada.com",
    "guerrillamail.biz",
    "guerrillamail.com",
    "guerrillamail.de",
    "guerrillamail.info",
    "guerrillamail.net",
    "guerrillamail.org",
    "guerrillamailblock.com",
    "harakirimail.com",
    "inboxbear.com",
    "incognitomail.org",
    "jetable.org",
    "mailcatch.com",
    "maildrop.cc",
    "mailinator.com",
    "mailinator.net",
    "mailnesia.com",
    "mailpoof.com",
    "mintemail.com",
    "moakt.com",
    "mohmal.com",
    "mytemp.email",
    "nada.email",
    "sharklasers.com",
    "spam4.me",
    "spambox.us",
    "spamgourmet.com",
    "temp-mail.io",
    "temp-mail.org",
    "tempail.com",
    "tempinbox.com",
    "tempmail.dev",
    "tempmail.net",
    "tempmailo.com",
    "tempr.email",
    "throwawaymail.com",
    "trashmail.com",
    "trashmail.de",
    "trashmail.net",
    "wegwerfmail.de",
    "yopmail.com",
    "yopmail.fr",
    "yopmail.net",
];

/// True when the (lowercased) address's domain, or a domain it is under, is listed.
pub(crate) fn is_throwaway(email: &str) -> bool {
    let Some((_, domain)) = email.rsplit_once('@') else { return false };
    let domain = domain.trim_end_matches('.');
    DOMAINS.iter().any(|d| domain == *d || domain.strip_suffix(d).is_some_and(|rest| rest.ends_with('.')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_domains_and_their_subdomains_are_throwaway() {
        assert!(is_throwaway("x@mailinator.com"));
        assert!(is_throwaway("x@eu.mailinator.com"));
        assert!(is_throwaway("x@yopmail.fr."));
        assert!(!is_throwaway("x@notmailinator.com"), "a longer name is another domain");
        assert!(!is_throwaway("x@maison.example"));
        assert!(!is_throwaway("no-at-sign"));
        let mut sorted = DOMAINS.to_vec();
        sorted.sort();
        assert_eq!(sorted, DOMAINS, "kept sorted");
        assert!(
            DOMAINS.iter().all(|d| d.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || ".-".contains(c)))
        );
    }
}
