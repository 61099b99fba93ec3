//! `studio prices`: the live price book (spec §2.8): the tools this deployment runs and what a
//! develop of each settles at per quality.

use anyhow::Result;
use studio_client::api::PriceBook;

use super::{Context, columns};

/// The tools this deployment runs and their price in tokens per quality.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Print the server's {"tools": [{"tool", "prices": [{"resolution", "tokens"}]}], "note"}
    /// as JSON.
    #[arg(long)]
    json: bool,
}

/// Fetch and print the price book.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let book = ctx.keyed_client()?.prices().await?;
    if args.json {
        println!("{}", serde_json::to_string(&book)?);
    } else {
        print!("{}", render(&book));
    }
    Ok(())
}

/// One row per tool, one column per quality (1k, 2k, 4k first, then any other), then the note.
fn render(book: &PriceBook) -> String {
    if book.tools.is_empty() {
        return format!("No tools are priced.\n{}\n", book.note);
    }
    let mut qualities: Vec<String> = ["1k", "2k", "4k"].map(String::from).to_vec();
    for price in book.tools.iter().flat_map(|t| &t.prices) {
        if !qualities.contains(&price.resolution) {
            qualities.push(price.resolution.clone());
        }
    }
    qualities.retain(|q| book.tools.iter().flat_map(|t| &t.prices).any(|p| p.resolution == *q));
    let rows: Vec<Vec<String>> = book
        .tools
        .iter()
        .map(|t| {
            let cells = qualities.iter().map(|q| {
                t.prices.iter().find(|p| p.resolution == *q).map_or_else(|| "-".to_string(), |p| p.tokens.to_string())
            });
            std::iter::once(t.tool.clone()).chain(cells).collect()
        })
        .collect();
    let upper: Vec<String> = qualities.iter().map(|q| q.to_uppercase()).collect();
    let header: Vec<&str> = std::iter::once("TOOL").chain(upper.iter().map(String::as_str)).collect();
    let mut out = columns(&header, &rows);
    // The server's note may already say what the numbers are.
    if !book.note.to_lowercase().starts_with("tokens per develop") {
        out += "Tokens per develop.";
        if !book.note.is_empty() {
            out += " ";
        }
    }
    out += &book.note;
    out += "\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use studio_client::api::{Price, ToolPrice};

    #[test]
    fn one_column_per_quality() {
        let price = |resolution: &str, tokens| Price { resolution: resolution.into(), tokens };
        let book = PriceBook {
            tools: vec![
                ToolPrice {
                    tool: "upscale".into(),
                    prices: vec![price("4k", 19), price("1k", 9), price("2k", 13)],
                    roles: vec![],
                },
                ToolPrice { tool: "cleanup".into(), prices: vec![price("1k", 1)], roles: vec![] },
            ],
            note: "The price shown is the price that settles.".into(),
        };
        let text = render(&book);
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines[0], "TOOL     1K  2K  4K");
        assert_eq!(lines[1], "upscale  9   13  19");
        assert_eq!(lines[2], "cleanup  1   -   -");
        assert_eq!(lines[3], "Tokens per develop. The price shown is the price that settles.");
        let book = PriceBook { note: "Tokens per develop by output quality.".into(), ..book };
        assert!(render(&book).ends_with("\nTokens per develop by output quality.\n"));
    }
}
