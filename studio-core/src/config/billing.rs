//! What is on sale: subscription tiers and token packs (`[[billing_tiers]]`, `[[billing_packs]]`).

fn on_sale() -> bool {
    true
}

/// A subscription tier on sale (a `[[billing_tiers]]` table in the server's TOML file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    /// Slug.
    pub slug: String,
    /// Name.
    pub name: String,
    /// Monthly price in cents.
    pub price_cents: i64,
    /// Tokens per paid month, into the grant bucket.
    pub monthly_tokens: i64,
    /// The grant bucket may hold this many months of tokens after a grant.
    pub rollover_multiple: i64,
    /// Highlighted.
    #[serde(default)]
    pub featured: bool,
    /// On sale (default true).
    #[serde(default = "on_sale")]
    pub active: bool,
}

/// A token pack on sale (a `[[billing_packs]]` table in the server's TOML file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackConfig {
    /// Slug.
    pub slug: String,
    /// Tokens, into the top-up bucket.
    pub tokens: i64,
    /// Price in cents.
    pub price_cents: i64,
    /// On sale (default true).
    #[serde(default = "on_sale")]
    pub active: bool,
}

/// What is on sale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingConfig {
    /// Subscription tiers.
    pub tiers: Vec<TierConfig>,
    /// Token packs.
    pub packs: Vec<PackConfig>,
    /// How long a claim on an offering (and its checkout) stays open, in seconds (default one
    /// hour): an exclusive face is reserved for the claiming house that long.
    pub claim_secs: i64,
}

impl Default for BillingConfig {
    fn default() -> Self {
        let tier = |slug: &str, name: &str, price_cents, monthly_tokens, rollover_multiple, featured| TierConfig {
            slug: slug.into(),
            name: name.into(),
            price_cents,
            monthly_tokens,
            rollover_multiple,
            featured,
            active: true,
        };
        let pack =
            |slug: &str, tokens, price_cents| PackConfig { slug: slug.into(), tokens, price_cents, active: true };
        BillingConfig {
            tiers: vec![
                tier("studio", "Studio", 2_900, 400, 1, false),
                tier("editorial", "Editorial", 7_900, 1_200, 2, true),
                tier("couture", "Couture", 19_900, 3_500, 3, false),
            ],
            packs: vec![pack("pack_250", 250, 1_000), pack("pack_1000", 1_000, 3_600), pack("pack_3000", 3_000, 9_900)],
            claim_secs: 3_600,
        }
    }
}

impl BillingConfig {
    /// Active packs.
    pub fn active_packs(&self) -> impl Iterator<Item = &PackConfig> {
        self.packs.iter().filter(|p| p.active && p.tokens > 0 && p.price_cents > 0)
    }

    /// An active pack by slug.
    pub fn pack(&self, slug: &str) -> Option<&PackConfig> {
        self.active_packs().find(|p| p.slug == slug)
    }

    /// An active tier by slug.
    pub fn tier(&self, slug: &str) -> Option<&TierConfig> {
        self.tiers.iter().find(|t| t.active && t.slug == slug && t.monthly_tokens > 0 && t.price_cents > 0)
    }

    /// The custom rate: the highest price per token of any active pack, as (cents, tokens).
    pub fn custom_rate(&self) -> Option<(i64, i64)> {
        // a/b > c/d  ⇔  a·d > c·b (all positive).
        self.active_packs()
            .map(|p| (p.price_cents, p.tokens))
            .reduce(|best, p| if p.0 * best.1 > best.0 * p.1 { p } else { best })
    }

    /// The smallest custom amount: the cheapest active pack's price, in cents.
    pub fn custom_min_cents(&self) -> Option<i64> {
        self.active_packs().map(|p| p.price_cents).min()
    }

    /// Quantise a custom amount: (tokens, charged cents) at the custom rate.
    pub fn quantise(&self, amount_cents: i64) -> Option<(i64, i64)> {
        let (cents, tokens) = self.custom_rate()?;
        let bought = amount_cents * tokens / cents;
        let charge = (bought * cents + tokens - 1) / tokens;
        Some((bought, charge))
    }
}
