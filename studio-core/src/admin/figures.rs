//! The console's platform figures (§4.12): the overview (houses, people, assets, develops by
//! status today, in 7 and in 30 days, tokens and revenue), payments from the billing tables,
//! and tokenomics (grants against top-ups against spend over time, from the ledger).

use std::collections::BTreeMap;

use chrono::{Duration, Utc};

use crate::api::{
    AdminPayment, DevelopCounts, Overview, PaymentPage, PaymentStatusTotal, PaymentsQuery, StatusCounts, TokenFlow,
    TokenTotals, Tokenomics, TokenomicsQuery,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::storage::NamedCount;

use super::Admin;
use super::window::{Bucket, cursor, days_back, filter, house_filter, next_cursor, page_limit, since_days};

/// The statuses of a payment.
const PAYMENT_STATUSES: [&str; 4] = ["open", "charged", "paid", "failed"];

fn status_counts(rows: &[NamedCount]) -> StatusCounts {
    let mut c = StatusCounts::default();
    for r in rows {
        match r.name.as_str() {
            "queued" => c.queued = r.n,
            "running" => c.running = r.n,
            "done" => c.done = r.n,
            "failed" => c.failed = r.n,
            "cancelled" => c.cancelled = r.n,
            _ => {}
        }
        c.total += r.n;
    }
    c
}

fn add_flow(flow: &mut TokenFlow, kind: &str, amount: i64) {
    match kind {
        "grant" => flow.granted += amount,
        "topup" => flow.bought += amount,
        "settled" => flow.spent += amount,
        "expire" => flow.expired += amount,
        _ => {}
    }
}

fn empty_flow(start: String) -> TokenFlow {
    TokenFlow { start, granted: 0, bought: 0, spent: 0, expired: 0 }
}

impl Admin<'_> {
    /// `GET /api/toolkit/admin/overview`.
    pub async fn overview(&self, _admin: &PlatformAdmin) -> Result<Overview> {
        let storage = &self.store;
        let counts = storage.platform_counts().await?;
        let midnight = Utc::now().date_naive().and_hms_opt(0, 0, 0).map(|d| d.and_utc()).unwrap_or_else(Utc::now);
        let develops = DevelopCounts {
            today: status_counts(&storage.jobs_by_status(midnight).await?),
            week: status_counts(&storage.jobs_by_status(days_back(7)).await?),
            month: status_counts(&storage.jobs_by_status(days_back(30)).await?),
        };
        let mut tokens = TokenTotals { held: counts.held, spendable: counts.spendable, ..TokenTotals::default() };
        for f in storage.flow_totals().await? {
            match f.name.as_str() {
                "grant" => tokens.granted = f.total,
                "topup" => tokens.bought = f.total,
                "settled" => tokens.spent = f.total,
                "expire" => tokens.expired = f.total,
                _ => {}
            }
        }
        let paid = storage.payment_totals(None).await?.into_iter().find(|t| t.name == "paid");
        Ok(Overview {
            houses: counts.houses,
            people: counts.people,
            assets: counts.assets,
            develops,
            tokens,
            revenue_cents: paid.as_ref().map_or(0, |p| p.total),
            paid_payments: paid.as_ref().map_or(0, |p| p.n),
        })
    }

    /// `GET /api/toolkit/admin/payments`: checkouts and auto top-up charges, newest first,
    /// with the totals by status of the house filter.
    pub async fn payments(&self, _admin: &PlatformAdmin, q: PaymentsQuery) -> Result<PaymentPage> {
        let status = filter(&q.status);
        if let Some(s) = status
            && !PAYMENT_STATUSES.contains(&s)
        {
            return Err(Error::invalid("BAD_STATUS", "status is one of open, charged, paid, failed."));
        }
        let house = house_filter(&q.house);
        let house = house.as_ref();
        let limit = page_limit(q.limit)?;
        let before = cursor(q.cursor.as_deref())?;
        let storage = &self.store;
        let mut rows =
            storage.payments(house, status, before.as_ref().map(|(at, id)| (*at, id.as_str())), limit + 1).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(|r| next_cursor(r.created_at, &r.reference)) } else { None };
        let totals: Vec<PaymentStatusTotal> = storage
            .payment_totals(house)
            .await?
            .into_iter()
            .map(|t| PaymentStatusTotal { status: t.name, count: t.n, amount_cents: t.total })
            .collect();
        let paid_cents = totals.iter().filter(|t| t.status == "paid").map(|t| t.amount_cents).sum();
        Ok(PaymentPage {
            payments: rows
                .into_iter()
                .map(|r| AdminPayment {
                    reference: r.reference,
                    house_id: r.org_id.to_string(),
                    user_id: r.user_id.map(String::from),
                    kind: r.kind,
                    item: r.item,
                    tokens: r.tokens,
                    amount_cents: r.amount_cents,
                    status: r.status.to_string(),
                    created_at: r.created_at,
                    paid_at: r.paid_at,
                })
                .collect(),
            next_cursor: next,
            totals,
            paid_cents,
        })
    }

    /// `GET /api/toolkit/admin/tokenomics`: tokens granted, bought (top-ups), spent (settled)
    /// and expired per bucket of the window, from the ledger's entries.
    pub async fn tokenomics(&self, _admin: &PlatformAdmin, q: TokenomicsQuery) -> Result<Tokenomics> {
        let bucket = Bucket::parse(&q.bucket)?;
        let days = since_days(q.since, 30)?;
        let rows = self.store.token_flows(crate::ids::now() - Duration::days(days)).await?;
        let mut series: BTreeMap<String, TokenFlow> = BTreeMap::new();
        let mut totals = empty_flow(bucket.start(crate::ids::now() - Duration::days(days)));
        for r in rows {
            let start = bucket.start(r.created_at);
            add_flow(series.entry(start.clone()).or_insert_with(|| empty_flow(start)), &r.kind, r.amount);
            add_flow(&mut totals, &r.kind, r.amount);
        }
        Ok(Tokenomics {
            bucket: bucket.as_str().to_string(),
            since_days: days,
            series: series.into_values().collect(),
            totals,
        })
    }
}
