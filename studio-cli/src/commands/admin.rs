//! `studio admin overview|develops|failures|ai-costs|tokenomics|payments|offerings`: the admin console's
//! common reads (§4.12). They need an allowlisted admin's signed-in session, never a key, so
//! each signs in for the one call (`--email`, `STUDIO_PASSWORD`) and signs out after.

use anyhow::Result;
use studio_client::api::{
    AdminDevelopPage, AdminDevelopsQuery, AdminOfferingList, AiCosts, FailurePage, FailuresQuery, Overview,
    PaymentPage, PaymentsQuery, SinceQuery, Tokenomics, TokenomicsQuery,
};

use super::{Context, SignIn, print, with_session};

/// Why the admin reads sign in.
const WHY: &str = "the admin console answers allowlisted admin sessions only";

/// The admin console's reads.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Platform figures: houses, people, assets, develops by status, tokens, revenue.
    Overview(Common),
    /// Develops of every house, newest first.
    Develops(Develops),
    /// Failed develops grouped by tool and error code.
    Failures(Window),
    /// Tokens settled and provider cost by tool and by day.
    AiCosts(Window),
    /// Tokens granted, bought, spent and expired over time.
    Tokenomics(Tokenomic),
    /// Payments, newest first, with totals by status.
    Payments(Payments),
    /// The model catalog, retired offerings included, newest first, with holders and open claims.
    Offerings(Page),
}

/// What every admin read takes.
#[derive(clap::Args)]
struct Common {
    /// Print the server's answer as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sign_in: SignIn,
}

/// A read over the last N days.
#[derive(clap::Args)]
struct Window {
    /// Days back, 1 to 366 [server default: 30].
    #[arg(long)]
    since: Option<i64>,
    #[command(flatten)]
    common: Common,
}

/// `studio admin develops`.
#[derive(clap::Args)]
struct Develops {
    /// One house (organization id).
    #[arg(long)]
    house: Option<String>,
    /// One tool.
    #[arg(long)]
    tool: Option<String>,
    /// queued, running, done, failed or cancelled.
    #[arg(long)]
    status: Option<String>,
    /// Days back, 1 to 366.
    #[arg(long)]
    since: Option<i64>,
    #[command(flatten)]
    page: Page,
}

/// `studio admin tokenomics`.
#[derive(clap::Args)]
struct Tokenomic {
    /// day, week or month.
    #[arg(long)]
    bucket: Option<String>,
    /// Days back, 1 to 366.
    #[arg(long)]
    since: Option<i64>,
    #[command(flatten)]
    common: Common,
}

/// `studio admin payments`.
#[derive(clap::Args)]
struct Payments {
    /// One house (organization id).
    #[arg(long)]
    house: Option<String>,
    /// open, charged, paid or failed.
    #[arg(long)]
    status: Option<String>,
    #[command(flatten)]
    page: Page,
}

/// A paged read.
#[derive(clap::Args)]
struct Page {
    /// Page size, 1 to 200.
    #[arg(long)]
    limit: Option<i64>,
    /// The previous page's nextCursor.
    #[arg(long)]
    cursor: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// Run one `admin` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Overview(c) => {
            let o = with_session(ctx, c.sign_in, "admin overview", WHY, |s| async move { s.admin_overview().await })
                .await?;
            print(c.json, &o, overview)
        }
        Command::Develops(d) => {
            let q = AdminDevelopsQuery {
                house: d.house,
                tool: d.tool,
                status: d.status,
                since: d.since,
                limit: d.page.limit,
                cursor: d.page.cursor,
            };
            let page = with_session(ctx, d.page.common.sign_in, "admin develops", WHY, |s| async move {
                s.admin_develops(&q).await
            })
            .await?;
            print(d.page.common.json, &page, develops)
        }
        Command::Failures(w) => {
            let q = FailuresQuery { since: w.since, ..FailuresQuery::default() };
            let page =
                with_session(
                    ctx,
                    w.common.sign_in,
                    "admin failures",
                    WHY,
                    |s| async move { s.admin_failures(&q).await },
                )
                .await?;
            print(w.common.json, &page, failures)
        }
        Command::AiCosts(w) => {
            let q = SinceQuery { since: w.since };
            let costs =
                with_session(
                    ctx,
                    w.common.sign_in,
                    "admin ai-costs",
                    WHY,
                    |s| async move { s.admin_ai_costs(&q).await },
                )
                .await?;
            print(w.common.json, &costs, ai_costs)
        }
        Command::Tokenomics(t) => {
            let q = TokenomicsQuery { bucket: t.bucket, since: t.since };
            let flows = with_session(ctx, t.common.sign_in, "admin tokenomics", WHY, |s| async move {
                s.admin_tokenomics(&q).await
            })
            .await?;
            print(t.common.json, &flows, tokenomics)
        }
        Command::Payments(p) => {
            let q = PaymentsQuery { house: p.house, status: p.status, limit: p.page.limit, cursor: p.page.cursor };
            let page = with_session(ctx, p.page.common.sign_in, "admin payments", WHY, |s| async move {
                s.admin_payments(&q).await
            })
            .await?;
            print(p.page.common.json, &page, payments)
        }
        Command::Offerings(p) => {
            let (limit, cursor) = (p.limit, p.cursor);
            let page = with_session(ctx, p.common.sign_in, "admin offerings", WHY, |s| async move {
                s.admin_offerings(limit, cursor.as_deref()).await
            })
            .await?;
            print(p.common.json, &page, offerings)
        }
    }
}

fn offerings(p: &AdminOfferingList) -> String {
    let mut out = String::new();
    for o in &p.offerings {
        let price = if o.price_cents == 0 { "free".to_string() } else { usd_cents(o.price_cents) };
        let retired = o.retired_at.map(|t| format!("  retired {}", t.format("%Y-%m-%d"))).unwrap_or_default();
        out += &format!(
            "{}  {:<9} {:>10}  {} holders, {} open claims  {:?}{retired}\n",
            o.id, o.tier, price, o.holders, o.open_claims, o.name
        );
    }
    if p.offerings.is_empty() {
        out += "No offerings.\n";
    }
    if let Some(c) = &p.next_cursor {
        out += &format!("More: --cursor '{c}'\n");
    }
    out
}

fn usd_cents(cents: i64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

fn overview(o: &Overview) -> String {
    let d = |label: &str, c: &studio_client::api::StatusCounts| {
        format!(
            "  {label:<6} {} develops: {} done, {} failed, {} cancelled, {} queued, {} running\n",
            c.total, c.done, c.failed, c.cancelled, c.queued, c.running
        )
    };
    let t = &o.tokens;
    let mut out = format!("{} houses, {} people, {} live assets\n", o.houses, o.people, o.assets);
    out += &d("today", &o.develops.today);
    out += &d("7d", &o.develops.week);
    out += &d("30d", &o.develops.month);
    out += &format!(
        "Tokens: {} granted, {} bought, {} spent, {} expired; {} held, {} spendable now\n",
        t.granted, t.bought, t.spent, t.expired, t.held, t.spendable
    );
    out += &format!("Revenue: {} from {} paid payments\n", usd_cents(o.revenue_cents), o.paid_payments);
    out
}

fn develops(p: &AdminDevelopPage) -> String {
    let mut out = String::new();
    for d in &p.develops {
        let error = d.error.as_deref().map(|e| format!("  ({e})")).unwrap_or_default();
        out += &format!(
            "{}  {}  {:<10} {:<9} {} tokens  {}{error}\n",
            d.id,
            d.house_id,
            d.tool,
            d.status,
            d.tokens,
            d.created_at.to_rfc3339()
        );
    }
    if p.develops.is_empty() {
        out += "No develops.\n";
    }
    if let Some(c) = &p.next_cursor {
        out += &format!("More: --cursor '{c}'\n");
    }
    out
}

fn failures(p: &FailurePage) -> String {
    let mut out = format!("{} failed develops\n", p.total_failed);
    for g in &p.groups {
        out += &format!("  {:<12} {:<24} {:>5}  last {}\n", g.tool, g.code, g.count, g.last_at.to_rfc3339());
        for e in &g.examples {
            out += &format!("      {}  {}\n", e.job_id, e.error);
        }
    }
    out
}

fn ai_costs(c: &AiCosts) -> String {
    let mark = if c.estimated { " (partly estimated)" } else { "" };
    let mut out = format!(
        "{} tokens settled, ${:.4} provider cost{mark}, last {} days\n",
        c.total_tokens_settled, c.total_cost_usd, c.since_days
    );
    for t in &c.by_tool {
        out += &format!("  {:<20} {:>8} tokens  {:>5} charges  ${:.4}\n", t.tool, t.tokens, t.n, t.cost_usd);
    }
    for d in &c.daily {
        out += &format!("  {}  {:>8} tokens  ${:.4}\n", d.day, d.tokens, d.cost_usd);
    }
    out
}

fn tokenomics(t: &Tokenomics) -> String {
    let mut out = format!("By {}, last {} days: granted, bought, spent, expired\n", t.bucket, t.since_days);
    for f in &t.series {
        out += &format!("  {}  {:>8} {:>8} {:>8} {:>8}\n", f.start, f.granted, f.bought, f.spent, f.expired);
    }
    let s = &t.totals;
    out += &format!("  total       {:>8} {:>8} {:>8} {:>8}\n", s.granted, s.bought, s.spent, s.expired);
    out
}

fn payments(p: &PaymentPage) -> String {
    let mut out = String::new();
    for x in &p.payments {
        out += &format!(
            "{}  {}  {:<10} {:<8} {} tokens  {}  {}\n",
            x.reference,
            x.house_id,
            x.kind,
            x.status,
            x.tokens,
            usd_cents(x.amount_cents),
            x.created_at.to_rfc3339()
        );
    }
    if p.payments.is_empty() {
        out += "No payments.\n";
    }
    for t in &p.totals {
        out += &format!("  {:<8} {:>5} payments  {}\n", t.status, t.count, usd_cents(t.amount_cents));
    }
    if let Some(c) = &p.next_cursor {
        out += &format!("More: --cursor '{c}'\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_cents_and_an_empty_page() {
        assert_eq!(usd_cents(3600), "$36.00");
        let page = PaymentPage { payments: Vec::new(), next_cursor: None, totals: Vec::new(), paid_cents: 0 };
        assert_eq!(payments(&page), "No payments.\n");
    }
}
