//! `studio balance`: the house's tokens (spec §2.7): spendable, grant, top-up, held, open holds.

use anyhow::Result;
use studio_client::api::Balance;

use super::Context;

/// Show the house's token balance and open holds.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Print the server's balance object as JSON.
    #[arg(long)]
    json: bool,
}

/// Fetch and print the balance.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let balance = ctx.keyed_client()?.balance().await?;
    if args.json {
        println!("{}", serde_json::to_string(&balance)?);
    } else {
        print!("{}", render(&balance));
    }
    Ok(())
}

/// The human-readable form.
fn render(b: &Balance) -> String {
    let width = [b.balance, b.grant, b.topup, b.held].iter().map(|n| n.to_string().len()).max().unwrap_or(1);
    let mut out = format!("Balance: {} tokens spendable\n", b.balance);
    out += &format!("  grant  {:>width$}  (spent first)\n", b.grant);
    out += &format!("  topup  {:>width$}\n", b.topup);
    out += &format!("  held   {:>width$}  (reserved for work in flight)\n", b.held);
    if b.holds.is_empty() {
        out += "Open holds: none\n";
    } else {
        out += &format!("Open holds ({}):\n", b.holds.len());
        for h in &b.holds {
            let develop = h.generation_id.as_deref().map(|g| format!("  develop {g}")).unwrap_or_default();
            out += &format!("  {}  {} tokens{develop}  since {}\n", h.id, h.amount, h.created_at.to_rfc3339());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use studio_client::api::HoldView;

    #[test]
    fn renders_holds() {
        let created_at = "2025-01-02T03:04:05Z".parse().unwrap();
        let hold = HoldView { id: "hold_1".into(), amount: 30, generation_id: Some("gen_9".into()), created_at };
        let b = Balance { balance: 70, grant: 70, topup: 0, held: 30, holds: vec![hold] };
        let text = render(&b);
        assert!(text.starts_with("Balance: 70 tokens spendable\n"), "{text}");
        assert!(text.contains("  held   30"), "{text}");
        assert!(text.contains("hold_1  30 tokens  develop gen_9  since 2025-01-02T03:04:05+00:00"), "{text}");
    }
}
