//! The live price book's configuration: the develop prices per quality and per-tool overrides.

use std::collections::BTreeMap;

use crate::api::{Price, PriceBook, Quality, ToolPrice};

/// Prices per quality for one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QualityPrices {
    /// 1k.
    pub k1: i64,
    /// 2k.
    pub k2: i64,
    /// 4k.
    pub k4: i64,
}

impl QualityPrices {
    fn get(&self, q: Quality) -> i64 {
        match q {
            Quality::K1 => self.k1,
            Quality::K2 => self.k2,
            Quality::K4 => self.k4,
        }
    }
}

/// The live price book's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceBookConfig {
    /// Prices of every develop tool without its own row (the spec's reference: 9 / 13 / 19).
    pub develop: QualityPrices,
    /// Per-tool prices that differ from `develop`.
    pub overrides: BTreeMap<String, QualityPrices>,
    /// The charge for a tool the book has no rows for.
    pub fallback_charge: i64,
    /// Flat price of a utility lane (classify, read_model, ...).
    pub utility_charge: i64,
}

impl Default for PriceBookConfig {
    fn default() -> Self {
        PriceBookConfig {
            develop: QualityPrices { k1: 9, k2: 13, k4: 19 },
            overrides: BTreeMap::new(),
            fallback_charge: 13,
            utility_charge: 1,
        }
    }
}

impl PriceBookConfig {
    /// The tokens a develop of `tool` at `quality` settles for, when `tool` is in the book.
    pub fn price(&self, tool: &str, quality: Quality, book: &[&str]) -> i64 {
        if !book.contains(&tool) {
            return self.fallback_charge;
        }
        self.overrides.get(tool).unwrap_or(&self.develop).get(quality)
    }

    /// The price book for the tools that can run, in the order given.
    pub fn book(&self, tools: &[&str]) -> PriceBook {
        PriceBook {
            tools: tools
                .iter()
                .map(|tool| ToolPrice {
                    tool: tool.to_string(),
                    prices: Quality::ALL
                        .iter()
                        .map(|q| Price { resolution: q.as_str().to_string(), tokens: self.price(tool, *q, tools) })
                        .collect(),
                    roles: Vec::new(),
                })
                .collect(),
            note: format!(
                "Tokens per develop by output quality; the price shown is the price that settles. \
                 Tools without rows charge {} tokens; utility lanes cost {} token.",
                self.fallback_charge, self.utility_charge
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_prices_and_fallback() {
        let config = PriceBookConfig::default();
        let tools = ["upscale", "packshot"];
        assert_eq!(config.price("upscale", Quality::K1, &tools), 9);
        assert_eq!(config.price("upscale", Quality::K2, &tools), 13);
        assert_eq!(config.price("packshot", Quality::K4, &tools), 19);
        assert_eq!(config.price("mystery", Quality::K4, &tools), config.fallback_charge);
        let book = config.book(&tools);
        assert_eq!(book.tools.len(), 2);
        assert_eq!(book.tools[0].prices.iter().map(|p| p.tokens).collect::<Vec<_>>(), vec![9, 13, 19]);
    }

    #[test]
    fn overrides_win() {
        let mut config = PriceBookConfig::default();
        config.overrides.insert("upscale".into(), QualityPrices { k1: 5, k2: 7, k4: 11 });
        assert_eq!(config.price("upscale", Quality::K2, &["upscale"]), 7);
    }
}
