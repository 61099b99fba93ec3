//! `studio account`: the account page (`GET /api/account`): who you are, the house's plan,
//! tokens and where they went over a window, invoices and the billing contact.

use anyhow::Result;

use super::{Context, columns};

/// Show the account page for the configured key's house.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The window of the per-tool spend: 7, 30 or 90 days.
    #[arg(long, value_name = "DAYS", default_value = "30", value_parser = ["7", "30", "90"])]
    days: String,
    /// Print the server's account object as JSON.
    #[arg(long)]
    json: bool,
}

/// Fetch and print the account page.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    let days: u32 = args.days.parse()?;
    let page = ctx.keyed_client()?.account(Some(days)).await?;
    if args.json {
        println!("{}", serde_json::to_string(&page)?);
        return Ok(());
    }
    let p = &page.profile;
    let verified = if p.email_verified { "verified" } else { "not verified" };
    println!("{} ({verified}){}", p.email, p.name.as_ref().map(|n| format!(", {n}")).unwrap_or_default());
    match &page.plan {
        Some(plan) => println!(
            "Plan:     {} ({}), {} tokens a month, {} until {}",
            plan.name,
            plan.tier,
            plan.monthly_tokens,
            if plan.status == "canceled" { "ends" } else { "renews" },
            plan.renews_at.format("%Y-%m-%d")
        ),
        None => println!("Plan:     none"),
    }
    let t = &page.tokens;
    println!("Tokens:   {} spendable ({} grant, {} top-up), {} held", t.balance, t.grant, t.topup, t.held);
    println!("Billing:  {}", page.billing.email.as_deref().unwrap_or("-"));
    if t.by_workflow.is_empty() {
        println!("\nNothing spent in the last {} days.", t.days);
    } else {
        println!("\nSpent in the last {} days:", t.days);
        let rows: Vec<Vec<String>> = t
            .by_workflow
            .iter()
            .map(|w| {
                let last = w.last_at.map_or_else(|| "-".into(), |at| at.format("%Y-%m-%d %H:%M").to_string());
                vec![w.workflow.clone(), w.tokens.to_string(), w.runs.to_string(), last]
            })
            .collect();
        print!("{}", columns(&["WORKFLOW", "TOKENS", "RUNS", "LAST (UTC)"], &rows));
    }
    if !page.invoices.is_empty() {
        println!("\nInvoices:");
        let rows: Vec<Vec<String>> = page
            .invoices
            .iter()
            .map(|i| {
                vec![
                    i.at.format("%Y-%m-%d").to_string(),
                    i.kind.clone(),
                    i.item.clone(),
                    i.tokens.to_string(),
                    format!("${:.2}", i.amount_usd),
                ]
            })
            .collect();
        print!("{}", columns(&["DATE", "KIND", "ITEM", "TOKENS", "AMOUNT"], &rows));
    }
    Ok(())
}
