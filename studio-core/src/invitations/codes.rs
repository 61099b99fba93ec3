//! The shape of a redeem code: `LABEL-XXXXXX`, a label of 2 to 16 letters or digits and six
//! Crockford base32 characters drawn from the OS-seeded generator. Reading one is forgiving as
//! Crockford's alphabet is (case, `O` for `0`, `I` and `L` for `1`); what is stored and shown is
//! always the canonical uppercase form.

use rand::Rng;

/// Crockford's base32 alphabet (no I, L, O, U).
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Characters after the dash.
pub(crate) const SUFFIX_LEN: usize = 6;
/// Shortest and longest label.
pub(crate) const LABEL_CHARS: std::ops::RangeInclusive<usize> = 2..=16;

/// A label in canonical form (trimmed, uppercase), or None when it is not 2 to 16 letters or
/// digits.
pub(crate) fn label(raw: &str) -> Option<String> {
    let label = raw.trim().to_ascii_uppercase();
    (LABEL_CHARS.contains(&label.len()) && label.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        .then_some(label)
}

/// A label made from an email's local part (its letters and digits, at most 12), or `GUEST`.
pub(crate) fn label_for(email: &str) -> String {
    let local = email.split('@').next().unwrap_or_default();
    let made: String = local.chars().filter(char::is_ascii_alphanumeric).take(12).collect();
    label(&made).unwrap_or_else(|| "GUEST".to_string())
}

/// A new code for a label: the label, a dash and six random Crockford characters.
pub(crate) fn draw(label: &str) -> String {
    let mut rng = rand::rng();
    let suffix: String = (0..SUFFIX_LEN).map(|_| CROCKFORD[rng.random_range(0..CROCKFORD.len())] as char).collect();
    format!("{label}-{suffix}")
}

/// A code as typed, in canonical form; None when it is not `LABEL-XXXXXX`.
pub(crate) fn parse(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let (head, tail) = raw.rsplit_once('-')?;
    let label = label(head)?;
    if tail.chars().count() != SUFFIX_LEN {
        return None;
    }
    let suffix: Option<String> = tail
        .chars()
        .map(|c| match c.to_ascii_uppercase() {
            'O' => Some('0'),
            'I' | 'L' => Some('1'),
            c if c.is_ascii() && CROCKFORD.contains(&(c as u8)) => Some(c),
            _ => None,
        })
        .collect();
    Some(format!("{label}-{}", suffix?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_codes_parse_back_to_themselves() {
        for _ in 0..200 {
            let code = draw("SPRING26");
            assert_eq!(parse(&code).as_deref(), Some(code.as_str()));
            assert_eq!(code.len(), "SPRING26-".len() + SUFFIX_LEN);
        }
    }

    #[test]
    fn reading_is_forgiving_and_strict_about_shape() {
        assert_eq!(parse(" spring26-abc0o1 ").as_deref(), Some("SPRING26-ABC001"));
        assert_eq!(parse("PRESS-ilL9zz").as_deref(), Some("PRESS-1119ZZ"));
        for bad in [
            "",
            "PRESS",
            "PRESS-",
            "PRESS-ABCDE",
            "PRESS-ABCDEFG",
            "PRESS-ABCDEU",
            "P-ABCDEF",
            "PR ESS-ABCDEF",
            "-ABCDEF",
            "PRÉSS-ABCDEF",
            "PRESS-ABCDÉ1",
            "THISLABELISTOOLONG-ABCDEF",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
        assert_eq!(label(" vip "), Some("VIP".into()));
        assert_eq!(label("V"), None);
        assert_eq!(label_for("ada.lovelace+x@maison.example"), "ADALOVELACEX");
        assert_eq!(label_for("_@x.example"), "GUEST");
    }
}
