//! `studio billing`: the catalog, checkouts, the billing portal and auto top-up (spec §2.10,
//! §4.5).
//!
//! Buying (a pack, a plan, a custom amount), the portal and arming auto top-up spend money, which
//! only an owner's signed-in session may do: a key never spends money. The CLI stores only a key,
//! so these sign in for the one call (the email from `--email`, else the config file's; the
//! password from `--password`, `STUDIO_PASSWORD` or stdin), say so on stderr, and sign out
//! after. A checkout prints the provider's URL on stdout (made absolute when the server gives
//! it relative to itself, as test mode may): pay there. Tokens arrive when the
//! provider's signed payment reaches the server, never from the browser's return. The catalog
//! is public; showing auto top-up and asking it to run use the configured key.

use anyhow::Result;
use clap::builder::NonEmptyStringValueParser;
use serde::Serialize;
use studio_client::Client;
use studio_client::api::{AutochargeRun, AutochargeSettingsView, AutochargeView, BillingCatalog};

use super::{Context, SignIn, columns};

/// The catalog, checkouts, the billing portal and auto top-up.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The `billing` subcommands.
#[derive(clap::Subcommand)]
enum Command {
    /// The plans (tiers) and token packs on sale, with their prices (no sign-in needed).
    Catalog(Catalog),
    /// Buy a token pack (pack_250, pack_1000, pack_3000): prints the checkout URL. Signs in for
    /// the call: only an owner buys.
    Topup(Topup),
    /// Subscribe to a plan (studio, editorial, couture): prints the checkout URL. Signs in for
    /// the call: only an owner buys.
    Subscribe(Subscribe),
    /// Buy a custom amount of tokens, in US dollars: prints the checkout URL and the tokens it
    /// buys. Signs in for the call: only an owner buys.
    Custom(Custom),
    /// Open the payment provider's billing portal (cards, invoices, plan): prints its URL.
    /// Signs in for the call.
    Portal(Portal),
    /// Auto top-up: show it (the default), set it (signs in), or ask it to run now.
    Autocharge(Autocharge),
}

/// `studio billing catalog`.
#[derive(clap::Args)]
struct Catalog {
    /// Print the server's {"provider", "tiers", "packs"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio billing topup`.
#[derive(clap::Args)]
struct Topup {
    /// The pack: pack_250, pack_1000 or pack_3000 (see `studio billing catalog`).
    #[arg(value_name = "PACK", value_parser = NonEmptyStringValueParser::new())]
    pack: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"url"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio billing subscribe`.
#[derive(clap::Args)]
struct Subscribe {
    /// The plan: studio, editorial or couture (see `studio billing catalog`).
    #[arg(value_name = "TIER", value_parser = NonEmptyStringValueParser::new())]
    tier: String,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"url"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio billing custom`.
#[derive(clap::Args)]
struct Custom {
    /// US dollars, e.g. 25 or 42.50: from the cheapest pack's price up to 5000. The amount is
    /// rounded down to whole tokens at the highest per-token pack rate.
    #[arg(value_name = "AMOUNT_USD", value_parser = parse_usd)]
    amount_usd: f64,
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"url", "tokens", "amountCents"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio billing portal`.
#[derive(clap::Args)]
struct Portal {
    #[command(flatten)]
    sign_in: SignIn,
    /// Print the server's {"url"} as JSON.
    #[arg(long)]
    json: bool,
}

/// `studio billing autocharge`.
#[derive(clap::Args)]
struct Autocharge {
    /// What to do [default: show].
    #[command(subcommand)]
    command: Option<AutoCommand>,
    /// Print the server's answer as JSON.
    #[arg(long, global = true)]
    json: bool,
}

/// The `billing autocharge` subcommands.
#[derive(clap::Subcommand)]
enum AutoCommand {
    /// Show the settings, this month's spend, the last charges (with the configured key).
    Show,
    /// Arm or disarm auto top-up; every setting is required. Signs in for the call: only an
    /// owner arms a card charge.
    Set(Set),
    /// Ask for a top-up now, with the configured key (member or above). The server re-checks
    /// everything and charges at most once; "not charged" comes with its reason.
    Run,
}

/// `studio billing autocharge set`.
#[derive(clap::Args)]
struct Set {
    /// true to arm, false to disarm.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    enabled: bool,
    /// Top up when spendable tokens fall below this.
    #[arg(long, value_name = "TOKENS")]
    threshold: i64,
    /// The pack bought each time: pack_250, pack_1000 or pack_3000.
    #[arg(long, value_name = "PACK", value_parser = NonEmptyStringValueParser::new())]
    pack: String,
    /// At most this many US dollars of top-ups a month; never below one pack.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    cap_usd: f64,
    #[command(flatten)]
    sign_in: SignIn,
}

/// Run one `billing` subcommand.
pub(crate) async fn run(ctx: &Context, args: Args) -> Result<()> {
    match args.command {
        Command::Catalog(a) => catalog(ctx, a).await,
        Command::Topup(a) => {
            let what = format!("buying {}", a.pack);
            let mut answer =
                with_session(ctx, a.sign_in, &what, |c| async move { c.checkout_topup(&a.pack).await }).await?;
            answer.url = absolute(ctx, &answer.url);
            checkout(&answer, &answer.url, a.json, None)
        }
        Command::Subscribe(a) => {
            let what = format!("subscribing to {}", a.tier);
            let mut answer =
                with_session(ctx, a.sign_in, &what, |c| async move { c.checkout_subscription(&a.tier).await }).await?;
            answer.url = absolute(ctx, &answer.url);
            checkout(&answer, &answer.url, a.json, None)
        }
        Command::Custom(a) => {
            let amount = a.amount_usd;
            let mut answer =
                with_session(ctx, a.sign_in, "buying tokens", |c| async move { c.checkout_custom(amount).await })
                    .await?;
            answer.url = absolute(ctx, &answer.url);
            let bought = format!("{} tokens for {}", answer.tokens, usd(answer.amount_cents));
            checkout(&answer, &answer.url, a.json, Some(bought))
        }
        Command::Portal(a) => {
            let mut answer =
                with_session(ctx, a.sign_in, "opening the billing portal", |c| async move { c.billing_portal().await })
                    .await?;
            answer.url = absolute(ctx, &answer.url);
            if a.json {
                println!("{}", serde_json::to_string(&answer)?);
            } else {
                println!("{}", answer.url);
            }
            eprintln!("Open the URL above to manage cards, invoices and the plan.");
            Ok(())
        }
        Command::Autocharge(a) => autocharge(ctx, a).await,
    }
}

/// Print the public catalog.
async fn catalog(ctx: &Context, args: Catalog) -> Result<()> {
    let catalog = ctx.client()?.billing_catalog().await?;
    if args.json {
        println!("{}", serde_json::to_string(&catalog)?);
    } else {
        print!("{}", render_catalog(&catalog));
    }
    Ok(())
}

/// The catalog as two tables.
fn render_catalog(catalog: &BillingCatalog) -> String {
    let provider = catalog.provider.as_deref().unwrap_or("none (billing is off on this server)");
    let mut out = format!("Payments: {provider}\n\nPlans (monthly):\n");
    let tiers: Vec<Vec<String>> = catalog
        .tiers
        .iter()
        .map(|t| {
            vec![
                t.slug.clone(),
                t.name.clone(),
                dollars(t.price_usd),
                t.monthly_tokens.to_string(),
                format!("{}x", t.rollover_multiple),
                if t.featured { "featured".into() } else { String::new() },
            ]
        })
        .collect();
    out += &indent(&columns(&["SLUG", "NAME", "PRICE", "TOKENS/MONTH", "ROLLOVER", ""], &tiers));
    out += "\nToken packs (one-off):\n";
    let packs: Vec<Vec<String>> =
        catalog.packs.iter().map(|p| vec![p.slug.clone(), p.tokens.to_string(), dollars(p.price_usd)]).collect();
    out += &indent(&columns(&["SLUG", "TOKENS", "PRICE"], &packs));
    out += "\nBuy with `studio billing topup PACK`, `subscribe TIER` or `custom AMOUNT_USD` (the owner signs in).\n";
    out
}

/// Print a checkout's URL (or the answer as JSON) and what happens next.
fn checkout(answer: &impl Serialize, url: &str, json: bool, bought: Option<String>) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(answer)?);
    } else {
        println!("{url}");
    }
    if let Some(bought) = bought {
        eprintln!("This checkout buys {bought}.");
    }
    eprintln!(
        "Open the URL above to pay. Tokens are credited when the payment provider confirms the payment \
         to the server (`studio balance` shows them), not when the browser comes back."
    );
    Ok(())
}

/// Show, set or run auto top-up.
async fn autocharge(ctx: &Context, args: Autocharge) -> Result<()> {
    match args.command.unwrap_or(AutoCommand::Show) {
        AutoCommand::Show => {
            let view = ctx.keyed_client()?.autocharge().await?;
            if args.json {
                println!("{}", serde_json::to_string(&view)?);
            } else {
                print!("{}", render_autocharge(&view));
            }
        }
        AutoCommand::Set(set) => {
            let (enabled, threshold, cap) = (set.enabled, set.threshold, set.cap_usd);
            let pack = set.pack.clone();
            let what = if enabled { "arming auto top-up" } else { "changing auto top-up" };
            let saved = with_session(ctx, set.sign_in, what, |c| async move {
                c.set_autocharge(enabled, threshold, &pack, cap).await
            })
            .await?;
            if args.json {
                println!("{}", serde_json::to_string(&saved)?);
            } else {
                println!("{}", describe_settings(&saved.settings));
            }
        }
        AutoCommand::Run => {
            let answer = ctx.keyed_client()?.run_autocharge().await?;
            if args.json {
                println!("{}", serde_json::to_string(&answer)?);
            } else {
                println!("{}", describe_run(&answer));
            }
        }
    }
    Ok(())
}

/// The auto top-up view in a few lines.
fn render_autocharge(view: &AutochargeView) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut out = format!("{}\n", describe_settings(&view.settings));
    out += &format!(
        "Available: {}  card on file: {}  customer: {}  can arm: {}\n",
        yes(view.available),
        yes(view.has_card),
        yes(view.has_customer),
        yes(view.can_arm)
    );
    out += &format!("This month ({}): {} spent\n", view.this_month.period, usd(view.this_month.spent_cents));
    if let Some(at) = view.last_charge_at {
        out += &format!("Last charge: {}\n", at.format(MINUTE));
    }
    if view.charges.is_empty() {
        out += "Charges: none\n";
    } else {
        let rows: Vec<Vec<String>> = view
            .charges
            .iter()
            .map(|c| vec![c.at.format(MINUTE).to_string(), usd(c.amount_cents), c.reference.clone()])
            .collect();
        out += "Charges:\n";
        out += &indent(&columns(&["AT (UTC)", "AMOUNT", "REFERENCE"], &rows));
    }
    out
}

/// `Auto top-up: on, below 50 tokens buy pack_1000 ($35.00), at most $100.00 a month`.
fn describe_settings(s: &AutochargeSettingsView) -> String {
    let state = if s.enabled { "on" } else { "off" };
    format!(
        "Auto top-up: {state}, below {} tokens buy {} ({}), at most {} a month",
        s.threshold_tokens,
        s.refill_pack,
        usd(s.refill_cents),
        usd(s.monthly_cap_cents)
    )
}

/// `Charged pack_250: 250 tokens for $10.00 (payment pay_1)` or `Not charged: <reason>`.
fn describe_run(run: &AutochargeRun) -> String {
    if !run.charged {
        return format!("Not charged: {}", run.reason.as_deref().unwrap_or("no reason given"));
    }
    let pack = run.pack.as_deref().unwrap_or("?");
    let tokens = run.tokens.map_or_else(|| "?".into(), |n| n.to_string());
    let amount = run.amount_cents.map_or_else(|| "?".into(), usd);
    let payment = run.payment_id.as_deref().map(|p| format!(" (payment {p})")).unwrap_or_default();
    format!("Charged {pack}: {tokens} tokens for {amount}{payment}; they arrive with the provider's confirmation")
}

/// Sign in as the owner for `what` (money needs an owner's session) and make one call.
async fn with_session<T, F, Fut>(ctx: &Context, sign_in: SignIn, what: &str, call: F) -> Result<T>
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = std::result::Result<T, studio_client::Error>>,
{
    super::with_session(ctx, sign_in, what, "a key never spends money; only the owner's session does", call).await
}

/// A dollar amount: `25`, `42.50` or `$42.50`; finite and above zero.
fn parse_usd(s: &str) -> std::result::Result<f64, String> {
    let trimmed = s.trim().trim_start_matches('$').trim();
    match trimmed.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not an amount of US dollars above zero (e.g. 25 or 42.50)")),
    }
}

/// A URL the server gave relative to itself (the test-mode pages, when the server knows no
/// public URL) made absolute with the deployment's base URL; any other URL as given.
pub(crate) fn absolute(ctx: &Context, url: &str) -> String {
    if url.starts_with('/') { format!("{}{url}", ctx.url.trim_end_matches('/')) } else { url.to_string() }
}

/// How times are shown.
const MINUTE: &str = "%Y-%m-%d %H:%M";

/// Cents as `$12.34`.
fn usd(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!("{sign}${}.{:02}", cents / 100, cents % 100)
}

/// Dollars as `$12.34`.
fn dollars(d: f64) -> String {
    usd((d * 100.0).round() as i64)
}

/// Every line of `block` indented by two spaces.
fn indent(block: &str) -> String {
    block.lines().map(|l| format!("  {l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn catalog_renders_tiers_and_packs() {
        let catalog: BillingCatalog = serde_json::from_value(json!({
            "provider": "test",
            "tiers": [{"slug": "studio", "name": "Studio", "priceUsd": 29, "monthlyTokens": 1000,
                       "rolloverMultiple": 2, "featured": false},
                      {"slug": "editorial", "name": "Editorial", "priceUsd": 99.5, "monthlyTokens": 4000,
                       "rolloverMultiple": 3, "featured": true}],
            "packs": [{"slug": "pack_250", "tokens": 250, "priceUsd": 10}]
        }))
        .unwrap();
        let text = render_catalog(&catalog);
        assert!(text.starts_with("Payments: test\n"), "{text}");
        assert!(text.contains("studio     Studio     $29.00  1000          2x"), "{text}");
        assert!(text.contains("$99.50") && text.contains("3x") && text.contains("featured"), "{text}");
        assert!(text.contains("pack_250  250     $10.00"), "{text}");
    }

    #[test]
    fn settings_and_runs_read_as_sentences() {
        let settings: AutochargeSettingsView = serde_json::from_value(json!({"enabled": true,
            "thresholdTokens": 50, "refillCents": 3500, "refillPack": "pack_1000", "monthlyCapCents": 10000}))
        .unwrap();
        assert_eq!(
            describe_settings(&settings),
            "Auto top-up: on, below 50 tokens buy pack_1000 ($35.00), at most $100.00 a month"
        );
        let run = |v| serde_json::from_value::<AutochargeRun>(v).unwrap();
        let not = run(json!({"charged": false, "reason": "debounced", "pack": null, "tokens": null,
                             "amountCents": null, "paymentId": null}));
        assert_eq!(describe_run(&not), "Not charged: debounced");
        let charged = run(json!({"charged": true, "reason": null, "pack": "pack_250", "tokens": 250,
                                 "amountCents": 1000, "paymentId": "pay_1"}));
        assert!(describe_run(&charged).starts_with("Charged pack_250: 250 tokens for $10.00 (payment pay_1)"));
    }

    #[test]
    fn dollars_parse_and_print() {
        assert_eq!(parse_usd("$42.50"), Ok(42.5));
        assert_eq!(parse_usd(" 25 "), Ok(25.0));
        assert!(parse_usd("0").is_err() && parse_usd("-3").is_err() && parse_usd("ten").is_err());
        assert!(parse_usd("NaN").is_err() && parse_usd("inf").is_err());
        assert_eq!(usd(1005), "$10.05");
        assert_eq!(usd(-50), "-$0.50");
        assert_eq!(dollars(99.5), "$99.50");
    }
}
