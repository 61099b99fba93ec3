// @ts-check
/**
 * More of the account page: the plan and invoices, tokens used by workflow over 7, 30 or 90 days
 * (a bar chart), and the memories the studio keeps of the house and of the person, with correct
 * (a new statement replaces one, the old kept as corrected) and retire.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can } from '../store.js';
import { Loading, Refusal, formatWhen, tokens, useId } from '../ui/common.js';
import { BarChart } from '../ui/charts.js';

/** Plan, invoices and usage by workflow. */
export function Usage() {
  const [days, setDays] = useState(/** @type {7 | 30 | 90} */ (30));
  const [view, setView] = useState(/** @type {any} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    api.accountFor(days).then(setView, setError);
  }, [days]);
  return html`<section class="card" aria-labelledby="usage-title">
    <h2 id="usage-title">Plan and usage</h2>
    <${Refusal} error=${error} />
    ${!view
      ? html`<${Loading} />`
      : html`<p>${view.plan ? `${view.plan.name} (${view.plan.tier}), ${view.plan.status}; ${tokens(view.plan.monthlyTokens)} a month, renews ${formatWhen(view.plan.renewsAt)}.` : 'No plan: tokens come from grants and packs.'}</p>
        <div class="row" role="group" aria-label="Usage window">
          ${[7, 30, 90].map((d) => html`<button type="button" aria-pressed=${d === days} onClick=${() => setDays(/** @type {7 | 30 | 90} */ (d))}>${d} days</button>`)}
        </div>
        <${BarChart} title=${`Tokens by workflow, last ${view.tokens.days} days`} bars=${view.tokens.byWorkflow.map((w) => ({ label: w.workflow, value: w.tokens }))} />
        <h3>Invoices</h3>
        ${view.invoices.length === 0
          ? html`<p class="muted">No invoices yet.</p>`
          : html`<ul class="list" aria-label="Invoices">${view.invoices.map((i) => html`<li key=${i.id}><div class="grow">${i.item} · ${tokens(i.tokens)}</div><span>$${Number(i.amountUsd).toFixed(2)}</span><span class="muted">${formatWhen(i.at)}</span></li>`)}</ul>`}`}
  </section>`;
}

const CLASSES = ['fact', 'preference', 'lesson', 'playbook', 'outcome_pattern'];

/** The memories: remember, correct, retire. */
export function Memories() {
  const powers = can();
  const [list, setList] = useState(/** @type {api.Memory[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [statement, setStatement] = useState('');
  const [scope, setScope] = useState('house');
  const [memoryClass, setMemoryClass] = useState('preference');
  const [correcting, setCorrecting] = useState(/** @type {api.Memory | null} */ (null));
  const [tick, setTick] = useState(0);
  const id = useId('memory');
  useEffect(() => {
    api.memories().then((r) => setList(r.memories), setError);
  }, [tick]);
  const save = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    try {
      await api.remember(
        correcting
          ? { statement, scope: correcting.scope, memoryClass: correcting.memoryClass, replacesMemoryId: correcting.id }
          : { statement, scope, memoryClass },
      );
      setStatement('');
      setCorrecting(null);
      setTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const retire = async (/** @type {string} */ mid) => {
    setError(null);
    try {
      await api.retireMemory(mid);
      setTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card" aria-labelledby="memory-title">
    <h2 id="memory-title">What the studio remembers</h2>
    <p class="muted">The assistant reads the active ones. Corrected and retired memories stay listed, and are never read again.</p>
    <${Refusal} error=${error} />
    ${list === null
      ? html`<${Loading} />`
      : list.length === 0
        ? html`<p class="muted">Nothing yet.</p>`
        : html`<ul class="list" aria-label="Memories">
            ${list.map((m) => html`<li key=${m.id}><div class="grow"><span class=${m.status === 'active' ? '' : 'muted'}>${m.statement}</span>
              <span class="small muted"> · ${m.scope === 'house' ? 'the house' : 'yours'} · ${m.memoryClass.replace('_', ' ')} · ${m.status}</span></div>
              ${powers.write && m.status === 'active' &&
              html`<button type="button" aria-label=${`Correct: ${m.statement}`} onClick=${() => { setCorrecting(m); setStatement(m.statement); }}>Correct</button>
                <button type="button" aria-label=${`Retire: ${m.statement}`} onClick=${() => retire(m.id)}>Retire</button>`}</li>`)}
          </ul>`}
    ${powers.write &&
    html`<form class="stack" onSubmit=${save} aria-label=${correcting ? 'Correct a memory' : 'Remember something'}>
      <div class="field"><label for=${`${id}-s`}>${correcting ? 'Corrected statement' : 'Statement'}</label>
        <input id=${`${id}-s`} value=${statement} required onInput=${(/** @type {any} */ e) => setStatement(e.currentTarget.value)} /></div>
      ${!correcting &&
      html`<div class="row">
        <div class="field"><label for=${`${id}-scope`}>For</label>
          <select id=${`${id}-scope`} value=${scope} onChange=${(/** @type {any} */ e) => setScope(e.currentTarget.value)}>
            <option value="house">the house</option><option value="person">me only</option>
          </select></div>
        <div class="field"><label for=${`${id}-class`}>Kind</label>
          <select id=${`${id}-class`} value=${memoryClass} onChange=${(/** @type {any} */ e) => setMemoryClass(e.currentTarget.value)}>
            ${CLASSES.map((c) => html`<option value=${c}>${c.replace('_', ' ')}</option>`)}
          </select></div>
      </div>`}
      <div class="row">
        <button type="submit">${correcting ? 'Save the correction' : 'Remember'}</button>
        ${correcting && html`<button type="button" class="link-button" onClick=${() => { setCorrecting(null); setStatement(''); }}>Cancel</button>`}
      </div>
    </form>`}
  </section>`;
}
