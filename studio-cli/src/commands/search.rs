//! `studio search QUERY`: one query over the house's assets, looks, models, memories, tickets and
//! pipeline presets (`GET /api/toolkit/search`), best first, a page at a time; `--json` prints the
//! server's answer.

use anyhow::Result;
use studio_client::api::{SearchHighlight, SearchQuery};

use super::{Context, columns};

/// Search the house.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The words to find; each must start a word of the result (several words: all of them).
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    query: Vec<String>,
    /// Only these kinds, a comma list of asset, look, model, memory, ticket, preset.
    #[arg(long, value_name = "KINDS")]
    kinds: Option<String>,
    /// Results per page, 1 to 50 (the server's default is 20).
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
    /// The next page: the cursor printed after the previous one (same QUERY and --kinds).
    #[arg(long, value_name = "CURSOR")]
    cursor: Option<String>,
    /// Print the server's {"results": [...], "nextCursor"?} as JSON.
    #[arg(long)]
    json: bool,
}

/// The highlight's text with each matched run in brackets.
fn marked(h: &SearchHighlight) -> String {
    let chars: Vec<char> = h.text.chars().collect();
    let (mut out, mut at) = (String::new(), 0);
    for r in &h.ranges {
        let (start, end) = ((r.start as usize).clamp(at, chars.len()), (r.end as usize).min(chars.len()));
        if start >= end {
            continue;
        }
        out.extend(&chars[at..start]);
        out.push('[');
        out.extend(&chars[start..end]);
        out.push(']');
        at = end;
    }
    out.extend(&chars[at..]);
    out
}

/// Run `studio search`.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let client = ctx.keyed_client()?;
    let query = SearchQuery {
        q: Some(args.query.join(" ")),
        kinds: args.kinds.clone(),
        limit: args.limit.map(|l| l.to_string()),
        cursor: args.cursor.clone(),
    };
    let page = client.search(&query).await?;
    if args.json {
        println!("{}", serde_json::to_string(&page)?);
        return Ok(());
    }
    if page.results.is_empty() {
        println!("Nothing found.");
    } else {
        let rows: Vec<Vec<String>> = page
            .results
            .iter()
            .map(|r| {
                let detail = [r.sku.as_deref(), r.folder.as_deref(), r.status.as_deref(), r.scope.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" · ");
                vec![r.kind.as_str().to_string(), r.id.clone(), marked(&r.highlight), detail]
            })
            .collect();
        print!("{}", columns(&["KIND", "ID", "MATCH", "DETAIL"], &rows));
    }
    if let Some(next) = page.next_cursor {
        let kinds = args.kinds.map(|k| format!(" --kinds {k}")).unwrap_or_default();
        println!("More: studio search {}{kinds} --cursor {next}", args.query.join(" "));
    }
    Ok(())
}
