// @ts-check
/**
 * The admin console's support queue: every house's tickets, newest message first; one ticket
 * whole (messages and internal notes, the context read when it was raised, its screenshots), with
 * a reply to the person, an internal note and its status.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { Loading, Refusal, formatWhen, useId } from '../ui/common.js';

export function SupportQueue() {
  const [tickets, setTickets] = useState(/** @type {any[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    api.adminTickets().then((r) => setTickets(r.tickets), setError);
  }, []);
  return html`<section class="card">
    <${Refusal} error=${error} />
    ${tickets === null
      ? !error && html`<${Loading} />`
      : tickets.length === 0
        ? html`<p class="muted">The queue is empty.</p>`
        : html`<ul class="list" aria-label="Support queue">
            ${tickets.map((t) => html`<li key=${t.id}><div class="grow">
              <a href=${`/admin/support/${encodeURIComponent(t.id)}`}>${t.summary}</a>
              <span class="muted"> · ${t.status} · ${t.houseName ?? t.houseId ?? ''} · ${t.personEmail ?? ''} · ${formatWhen(t.lastMessageAt)}</span></div></li>`)}
          </ul>`}
  </section>`;
}

/** @param {{id: string}} props */
export function SupportTicket({ id }) {
  const [ticket, setTicket] = useState(/** @type {any} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [words, setWords] = useState('');
  const [note, setNote] = useState('');
  const replyId = useId('admin-reply');
  const noteId = useId('admin-note');
  const statusId = useId('admin-status');
  useEffect(() => {
    api.adminTicket(id).then(setTicket, setError);
  }, [id]);
  /** @param {() => Promise<any>} fn */
  const act = async (fn) => {
    setError(null);
    try {
      setTicket(await fn());
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  };
  if (!ticket) return html`<section class="card">${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  return html`<section class="card stack ticket" aria-label="Ticket">
    <p class="muted small"><a href="/admin/support">Support queue</a></p>
    <h2>${ticket.summary}</h2>
    <p class="muted">${ticket.personEmail ?? ''} · ${ticket.houseName ?? ''} · ${ticket.source}${ticket.reason ? ` (${ticket.reason})` : ''}${ticket.topic ? ` · ${ticket.topic}` : ''}</p>
    <div class="field"><label for=${statusId}>Status</label>
      <select id=${statusId} value=${ticket.status} onChange=${(/** @type {any} */ e) => act(() => api.adminTicketStatus(id, e.currentTarget.value))}>
        ${['new', 'open', 'pending', 'on_hold', 'resolved'].map((s) => html`<option value=${s}>${s}</option>`)}
      </select></div>
    ${ticket.context && html`<details><summary>Context when raised</summary><pre class="json-box">${JSON.stringify(ticket.context, null, 2)}</pre></details>`}
    ${ticket.screenshots.length > 0 &&
    html`<ul class="pick-row" aria-label="Screenshots">${ticket.screenshots.map((s, i) => html`<li key=${s.url}><a href=${s.url} target="_blank" rel="noopener"><img src=${s.url} alt=${`Screenshot ${i + 1}`} width="160" height="120" /></a></li>`)}</ul>`}
    <ol class="thread" aria-label="Messages">
      ${ticket.messages.map((m) => html`<li key=${m.id} class=${m.internal ? 'internal' : m.author === 'support' ? 'from-support' : ''}>
        <p class="small muted">${m.internal ? 'Internal note · ' : ''}${m.authorName} · ${formatWhen(m.createdAt)}</p>
        <p class="message">${m.content}</p></li>`)}
    </ol>
    <${Refusal} error=${error} />
    <form class="stack" onSubmit=${async (/** @type {SubmitEvent} */ e) => { e.preventDefault(); if (await act(() => api.adminReply(id, words))) setWords(''); }}>
      <label for=${replyId}>Reply to the person</label>
      <textarea id=${replyId} rows="3" required value=${words} onInput=${(/** @type {any} */ e) => setWords(e.currentTarget.value)}></textarea>
      <button type="submit" class="primary">Send reply</button>
    </form>
    <form class="stack" onSubmit=${async (/** @type {SubmitEvent} */ e) => { e.preventDefault(); if (await act(() => api.adminNote(id, note))) setNote(''); }}>
      <label for=${noteId}>Internal note (never shown to the person)</label>
      <textarea id=${noteId} rows="2" required value=${note} onInput=${(/** @type {any} */ e) => setNote(e.currentTarget.value)}></textarea>
      <button type="submit">Add note</button>
    </form>
  </section>`;
}
