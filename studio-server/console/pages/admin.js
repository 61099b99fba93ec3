// @ts-check
/**
 * The admin console, for platform admins only (the shell shows its link to them alone; the server
 * refuses everyone else with 403). Sections by path: `/admin` overview, `/admin/develops` (cancel,
 * retry), `/admin/failures`, `/admin/costs` (AI costs and tokenomics as charts), `/admin/payments` (token
 * packs paid, and what houses hold of the models market with the payments that could not become holdings),
 * `/admin/support` (the queue; pages/admin-support.js), `/admin/people` (and token grants).
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { useStore } from '../store.js';
import { Loading, PageTitle, Refusal, formatWhen, tokens, useId, useTitle } from '../ui/common.js';
import { BarChart } from '../ui/charts.js';
import { SupportQueue, SupportTicket } from './admin-support.js';

const SECTIONS = /** @type {[string, string][]} */ ([
  ['', 'Overview'],
  ['develops', 'Develops'],
  ['failures', 'Failures'],
  ['costs', 'Costs'],
  ['payments', 'Payments'],
  ['support', 'Support queue'],
  ['people', 'People'],
]);

/** @param {import('../router.js').PageProps} props */
export default function Admin({ rest }) {
  const store = useStore();
  const section = rest[0] ?? '';
  const title = SECTIONS.find(([s]) => s === section)?.[1] ?? 'Admin';
  useTitle(`Admin · ${title}`);
  if (store.me && !store.me.admin) {
    return html`<section class="card"><${PageTitle}>Admin<//><p>The admin console is for the studio's platform admins.</p></section>`;
  }
  return html`<div class="stack">
    <div class="toolbar"><${PageTitle}>Admin · ${title}<//></div>
    <nav aria-label="Admin sections" class="nav sub-nav">
      <ul>${SECTIONS.map(([s, label]) => html`<li><a href=${`/admin${s ? `/${s}` : ''}`} aria-current=${s === section ? 'page' : undefined}>${label}</a></li>`)}</ul>
    </nav>
    ${section === '' && html`<${Overview} />`}
    ${section === 'develops' && html`<${Develops} />`}
    ${section === 'failures' && html`<${Failures} />`}
    ${section === 'costs' && html`<${Costs} />`}
    ${section === 'payments' && html`<${Payments} />`}
    ${section === 'support' && (rest[1] ? html`<${SupportTicket} key=${rest[1]} id=${rest[1]} />` : html`<${SupportQueue} />`)}
    ${section === 'people' && html`<${People} />`}
  </div>`;
}

/**
 * Read once on open.
 * @template T
 * @param {() => Promise<T>} fn
 * @param {any[]} deps
 */
function useRead(fn, deps = []) {
  const [value, setValue] = useState(/** @type {T | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [tick, setTick] = useState(0);
  useEffect(() => {
    fn().then(setValue, setError);
  }, [...deps, tick]);
  return { value, error, setError, reload: () => setTick((n) => n + 1) };
}

function Overview() {
  const { value: o, error } = useRead(api.adminOverview);
  if (!o) return html`<section class="card">${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  const d = o.develops;
  return html`<section class="card" aria-label="Overview">
    <dl class="meta figures">
      <dt>Houses</dt><dd>${o.houses}</dd>
      <dt>People</dt><dd>${o.people}</dd>
      <dt>Live assets</dt><dd>${o.assets}</dd>
      <dt>Paid payments</dt><dd>${o.paidPayments} (${(o.revenueCents / 100).toFixed(2)})</dd>
      <dt>Tokens spendable</dt><dd>${o.tokens.spendable} (held ${o.tokens.held})</dd>
    </dl>
    <${BarChart} title="Develops by status, last 30 days" bars=${['queued', 'running', 'done', 'failed', 'cancelled'].map((s) => ({ label: s, value: d.month[s] ?? 0 }))} />
    <${BarChart} title="Tokens, all time" bars=${['granted', 'bought', 'spent', 'expired'].map((k) => ({ label: k, value: o.tokens[k] ?? 0 }))} />
  </section>`;
}

function Develops() {
  const [status, setStatus] = useState('');
  const { value, error, setError, reload } = useRead(() => api.adminDevelops(status || null), [status]);
  const [done, setDone] = useState('');
  const statusId = useId('status');
  const act = async (/** @type {string} */ jobId, /** @type {'cancel' | 'retry'} */ action) => {
    setError(null);
    try {
      const r = await api.adminDevelopAction(jobId, action);
      setDone(action === 'cancel' ? `Cancelled ${jobId}: ${tokens(r.tokensReleased)} released.` : `Retried ${jobId} as ${r.newJobId}: ${tokens(r.tokensHeld)} held.`);
      reload();
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card">
    <div class="field"><label for=${statusId}>Status</label>
      <select id=${statusId} value=${status} onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
        <option value="">every status</option>
        ${['queued', 'running', 'done', 'failed', 'cancelled'].map((s) => html`<option value=${s}>${s}</option>`)}
      </select></div>
    ${done && html`<p class="notice" role="status">${done}</p>`}
    <${Refusal} error=${error} />
    ${value === null
      ? html`<${Loading} />`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Develops, newest first"><table class="table stacked"><caption>Develops, newest first</caption>
          <thead><tr><th scope="col">Develop</th><th scope="col">House</th><th scope="col">Tool</th><th scope="col">Status</th><th scope="col">Tokens</th><th scope="col">When</th><th scope="col">Action</th></tr></thead>
          <tbody>${value.develops.map((j) => html`<tr key=${j.id}><td data-label="Develop">${j.id}</td><td data-label="House">${j.houseId}</td><td data-label="Tool">${j.tool} ${j.quality}</td>
            <td data-label="Status">${j.status}${j.error ? `: ${j.error}` : ''}</td><td data-label="Tokens">${j.tokensSettled ?? j.tokens}</td><td data-label="When">${formatWhen(j.createdAt)}</td>
            <td data-label="Action">${j.status === 'queued' ? html`<button type="button" aria-label=${`Cancel ${j.id}`} onClick=${() => act(j.id, 'cancel')}>Cancel</button>` : ''}
              ${j.status === 'failed' || j.status === 'cancelled' ? html`<button type="button" aria-label=${`Retry ${j.id}`} onClick=${() => act(j.id, 'retry')}>Retry</button>` : ''}</td></tr>`)}</tbody>
        </table></div>`}
  </section>`;
}

function Failures() {
  const { value, error } = useRead(api.adminFailures);
  if (!value) return html`<section class="card">${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  return html`<section class="card">
    <p>${value.totalFailed} failed develops in 30 days.</p>
    <${BarChart} title="Failures by tool and code" bars=${value.groups.map((g) => ({ label: `${g.tool} ${g.code}`, value: g.count }))} />
  </section>`;
}

function Costs() {
  const [since, setSince] = useState(30);
  const costs = useRead(() => api.adminAiCosts(since), [since]);
  const flow = useRead(() => api.adminTokenomics(since), [since]);
  const sinceId = useId('since');
  const c = costs.value;
  const f = flow.value;
  return html`<section class="card">
    <div class="field"><label for=${sinceId}>Window</label>
      <select id=${sinceId} value=${since} onChange=${(/** @type {any} */ e) => setSince(Number(e.currentTarget.value))}>
        ${[7, 30, 90].map((d) => html`<option value=${d}>${d} days</option>`)}
      </select></div>
    <${Refusal} error=${costs.error || flow.error} />
    ${c && html`<p>${c.totalTokensSettled} tokens settled; provider cost $${Number(c.totalCostUsd).toFixed(2)}${c.estimated ? ' (partly estimated)' : ''}.</p>
      <${BarChart} title="AI cost by tool (USD cents)" bars=${c.byTool.map((t) => ({ label: t.tool, value: Math.round(t.cost_usd * 100) }))} />
      <${BarChart} title="Tokens settled by day" bars=${c.daily.map((d) => ({ label: d.day, value: d.tokens }))} />`}
    ${f && html`<${BarChart} title="Tokens spent by day" bars=${f.series.map((s) => ({ label: String(s.start).slice(0, 10), value: s.spent }))} />
      <${BarChart} title="Token flow in the window" bars=${['granted', 'bought', 'spent', 'expired'].map((k) => ({ label: k, value: f.totals[k] ?? 0 }))} />`}
    ${!c && !f && html`<${Loading} />`}
  </section>`;
}

function Payments() {
  return html`<${PaymentList} /><${Holdings} />`;
}

/** Token packs paid through checkout: totals by status and the list. */
function PaymentList() {
  const { value, error } = useRead(api.adminPayments);
  if (!value) return html`<section class="card">${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  return html`<section class="card">
    <p>Paid: ${(value.paidCents / 100).toFixed(2)}.</p>
    <${BarChart} title="Payments by status" bars=${value.totals.map((t) => ({ label: t.status, value: t.count }))} />
    ${value.payments.length === 0
      ? html`<p class="muted">No payments yet.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payments, newest first"><table class="table stacked"><caption>Payments, newest first</caption>
          <thead><tr><th scope="col">Reference</th><th scope="col">House</th><th scope="col">Item</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">When</th></tr></thead>
          <tbody>${value.payments.map((p) => html`<tr key=${p.reference}><td data-label="Reference">${p.reference}</td><td data-label="House">${p.houseId}</td><td data-label="Item">${p.kind} ${p.item}</td><td data-label="Amount">${(p.amountCents / 100).toFixed(2)}</td><td data-label="Status">${p.status}</td><td data-label="When">${formatWhen(p.createdAt)}</td></tr>`)}</tbody>
        </table></div>`}
  </section>`;
}

/** An amount as the catalog says it ("$12.00"); nothing paid is "free". */
function money(/** @type {number} */ cents, /** @type {string} */ currency) {
  if (!cents) return 'free';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** Why a paid claim did not become a holding, in words. */
const CASE_REASONS = /** @type {Record<string, string>} */ ({
  claim_expired: 'the claim expired before the payment landed',
  claim_released: 'the claim was released before the payment landed',
  taken: 'another house took the exclusive face first',
  already_held: 'the house already held it',
});

/**
 * What houses hold of the models market (bought, taken free or granted), newest first, page by
 * page (`GET /api/toolkit/admin/entitlements`), and the payments that could not become holdings.
 */
function Holdings() {
  const { value, error, setError } = useRead(() => api.adminEntitlements());
  const [older, setOlder] = useState(/** @type {import('../api.js').AdminHolding[]} */ ([]));
  const [cursor, setCursor] = useState(/** @type {string | null | undefined} */ (undefined));
  const [busy, setBusy] = useState(false);
  if (!value) return html`<section class="card">${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  const next = cursor === undefined ? value.nextCursor ?? null : cursor;
  const more = async () => {
    if (!next) return;
    setBusy(true);
    setError(null);
    try {
      const page = await api.adminEntitlements(next);
      setOlder([...older, ...page.holdings]);
      setCursor(page.nextCursor ?? null);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const holdings = [...value.holdings, ...older];
  return html`<section class="card stack">
    ${holdings.length === 0
      ? html`<p class="muted">No house holds a model yet.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Holdings, newest first"><table class="table stacked"><caption>Holdings, newest first</caption>
          <thead><tr><th scope="col">House</th><th scope="col">Held</th><th scope="col">Price</th><th scope="col">Source</th><th scope="col">Status</th><th scope="col">When</th></tr></thead>
          <tbody>${holdings.map((h) => html`<tr key=${h.id}><td data-label="House">${h.organizationId}</td><td data-label="Held">${h.name} (${h.kind}${h.exclusive ? ', exclusive' : ''})</td>
            <td data-label="Price">${money(h.priceCents, h.currency)}</td><td data-label="Source">${h.source}</td>
            <td data-label="Status">${h.revokedAt ? `revoked ${formatWhen(h.revokedAt)}${h.revokeReason ? `: ${h.revokeReason}` : ''}` : 'held'}</td><td data-label="When">${formatWhen(h.acquiredAt)}</td></tr>`)}</tbody>
        </table></div>`}
    ${next && html`<div class="row"><button type="button" disabled=${busy} onClick=${more}>Older holdings</button></div>`}
    <${Refusal} error=${error} />
    ${value.cases.length > 0 &&
    html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payment cases, newest first"><table class="table stacked"><caption>Payment cases, newest first</caption>
        <thead><tr><th scope="col">Reference</th><th scope="col">House</th><th scope="col">Amount</th><th scope="col">Why</th><th scope="col">Status</th><th scope="col">When</th></tr></thead>
        <tbody>${value.cases.map((c) => html`<tr key=${c.id}><td data-label="Reference">${c.reference}${c.paymentId ? ` (${c.paymentId})` : ''}</td><td data-label="House">${c.organizationId}</td>
          <td data-label="Amount">${money(c.amountCents, c.currency)}</td><td data-label="Why">${CASE_REASONS[c.reason] ?? c.reason}</td>
          <td data-label="Status">${c.status === 'review' ? 'review: a person must refund it' : c.status}</td><td data-label="When">${formatWhen(c.createdAt)}</td></tr>`)}</tbody>
      </table></div>`}
  </section>`;
}

function People() {
  const [q, setQ] = useState('');
  const { value, error, setError } = useRead(() => api.adminUsers(q), [q]);
  const [grant, setGrant] = useState(/** @type {{id: string, email: string} | null} */ (null));
  const [amount, setAmount] = useState('10');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState('');
  const qId = useId('people-q');
  const amountId = useId('grant-tokens');
  const reasonId = useId('grant-reason');
  const give = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    if (!grant) return;
    setError(null);
    try {
      const r = await api.adminGrantTokens(grant.id, Number(amount), reason);
      setDone(`Granted ${tokens(r.granted)} to ${grant.email}'s house.`);
      setGrant(null);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card stack">
    <div class="field"><label for=${qId}>Find people</label>
      <input id=${qId} type="search" value=${q} onInput=${(/** @type {any} */ e) => setQ(e.currentTarget.value)} /></div>
    ${done && html`<p class="notice" role="status">${done}</p>`}
    <${Refusal} error=${error} />
    ${value === null
      ? html`<${Loading} />`
      : html`<ul class="list" aria-label="People">
          ${value.users.map((u) => html`<li key=${u.id}><div class="grow"><strong>${u.name ?? u.email}</strong>
            <span class="muted"> ${u.email} · ${u.houses} ${u.houses === 1 ? 'house' : 'houses'}${u.emailVerified ? '' : ' · unverified'}${u.platformAdmin ? ' · platform admin' : ''}</span></div>
            <button type="button" aria-label=${`Grant tokens to ${u.email}`} aria-expanded=${grant?.id === u.id} onClick=${() => setGrant(grant?.id === u.id ? null : { id: u.id, email: u.email })}>Grant tokens</button>
            ${grant?.id === u.id &&
            html`<form class="row grant-form" onSubmit=${give} aria-label=${`Grant tokens to ${u.email}`}>
              <div class="field"><label for=${amountId}>Tokens</label><input id=${amountId} type="number" min="1" value=${amount} onInput=${(/** @type {any} */ e) => setAmount(e.currentTarget.value)} /></div>
              <div class="field grow"><label for=${reasonId}>Reason</label><input id=${reasonId} value=${reason} onInput=${(/** @type {any} */ e) => setReason(e.currentTarget.value)} /></div>
              <button type="submit" class="primary">Grant</button>
            </form>`}</li>`)}
        </ul>`}
  </section>`;
}
