// @ts-check
/**
 * Support: raise a ticket with screenshots (pasted into the form or picked as files), the
 * person's tickets with support's unread replies counted until the thread is opened, and one
 * thread (`/support/{id}`): its messages oldest first (reading it marks the replies read), and a
 * reply.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { navigate } from '../router.js';
import { Loading, PageTitle, Refusal, formatWhen, useId, useTitle } from '../ui/common.js';

const TOPICS = ['develop', 'billing', 'identity', 'quality', 'access', 'api', 'other'];

/** @param {import('../router.js').PageProps} props */
export default function Support({ rest }) {
  if (rest[0]) return html`<${Thread} key=${rest[0]} id=${rest[0]} />`;
  return html`<${Tickets} />`;
}

function Tickets() {
  useTitle('Support');
  const [tickets, setTickets] = useState(/** @type {import('../api.js').Ticket[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    api.listTickets().then((r) => setTickets(r.tickets), setError);
  }, []);
  return html`<div class="sections">
    <div class="toolbar"><${PageTitle}>Support<//></div>
    <${NewTicket} />
    <section class="card" aria-labelledby="tickets-title">
      <h2 id="tickets-title">Your tickets</h2>
      <${Refusal} error=${error} />
      ${tickets === null
        ? html`<${Loading} />`
        : tickets.length === 0
          ? html`<p class="muted">No tickets yet.</p>`
          : html`<ul class="list" aria-label="Tickets">
              ${tickets.map(
                (t) => html`<li key=${t.id}><div class="grow">
                  <a href=${`/support/${encodeURIComponent(t.id)}`}>${t.summary}</a>
                  <span class="muted"> · ${t.status} · ${t.messageCount} ${t.messageCount === 1 ? 'message' : 'messages'} · ${formatWhen(t.lastMessageAt)}</span></div>
                  ${t.unreadCount > 0 && html`<span class="state state-running">${t.unreadCount} unread</span>`}
                </li>`,
              )}
            </ul>`}
    </section>
  </div>`;
}

function NewTicket() {
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [topic, setTopic] = useState('other');
  const [shots, setShots] = useState(/** @type {{name: string, url: string, preview: string}[]} */ ([]));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const id = useId('ticket');
  /** Keep each image as a screenshot now; the ticket carries their links. */
  const addFiles = async (/** @type {File[]} */ files) => {
    setError(null);
    for (const f of files.filter((x) => x.type.startsWith('image/')).slice(0, 6 - shots.length)) {
      try {
        const res = await api.uploadScreenshot(f);
        setShots((s) => [...s, { name: f.name || 'pasted image', url: res.url, preview: URL.createObjectURL(f) }]);
      } catch (e) {
        setError(e);
      }
    }
  };
  const submit = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const t = await api.raiseTicket({ subject: subject.trim() || null, body, topic, screenshots: shots.map((s) => s.url), currentUrl: location.href });
      navigate(`/support/${encodeURIComponent(t.id)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return html`<section class="card" aria-labelledby="raise-title">
    <h2 id="raise-title">Raise a ticket</h2>
    <form class="stack" aria-label="Raise a ticket" onSubmit=${submit}
      onPaste=${(/** @type {ClipboardEvent} */ e) => {
        const files = Array.from(e.clipboardData?.files ?? []);
        if (files.length) {
          e.preventDefault();
          void addFiles(files);
        }
      }}>
      <div class="field"><label for=${`${id}-subject`}>Subject</label>
        <input id=${`${id}-subject`} value=${subject} maxlength="200" onInput=${(/** @type {any} */ e) => setSubject(e.currentTarget.value)} /></div>
      <div class="field"><label for=${`${id}-topic`}>Topic</label>
        <select id=${`${id}-topic`} value=${topic} onChange=${(/** @type {any} */ e) => setTopic(e.currentTarget.value)}>
          ${TOPICS.map((t) => html`<option value=${t}>${t}</option>`)}
        </select></div>
      <div class="field"><label for=${`${id}-body`}>What happened</label>
        <textarea id=${`${id}-body`} rows="5" required value=${body} aria-describedby=${`${id}-hint`} onInput=${(/** @type {any} */ e) => setBody(e.currentTarget.value)}></textarea>
        <p class="hint" id=${`${id}-hint`}>At least 10 characters. Paste a screenshot anywhere in this form, or pick one.</p></div>
      <div class="row">
        <input id=${`${id}-file`} class="upload-input" type="file" multiple accept="image/jpeg,image/png,image/webp,image/gif"
          onChange=${(/** @type {any} */ e) => { void addFiles(Array.from(e.currentTarget.files ?? [])); e.currentTarget.value = ''; }} />
        <label for=${`${id}-file`} class="button">Add screenshots</label>
      </div>
      ${shots.length > 0 &&
      html`<ul class="pick-row" aria-label="Screenshots">
        ${shots.map((s) => html`<li key=${s.url}><img src=${s.preview} alt=${`Screenshot ${s.name}`} width="120" height="120" /></li>`)}
      </ul>`}
      <${Refusal} error=${error} />
      <button type="submit" class="primary" disabled=${busy}>Send to support</button>
    </form>
  </section>`;
}

/** @param {{id: string}} props */
function Thread({ id }) {
  const [thread, setThread] = useState(/** @type {{status: string, messages: import('../api.js').ThreadMessage[]} | null} */ (null));
  const [reply, setReply] = useState('');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [tick, setTick] = useState(0);
  const replyId = useId('reply');
  useTitle('Support thread');
  useEffect(() => {
    api.ticketThread(id).then(setThread, setError);
  }, [id, tick]);
  const send = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    try {
      await api.raiseTicket({ ticketId: id, body: reply });
      setReply('');
      setTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card stack">
    <p class="muted small"><a href="/support">Support</a></p>
    <${PageTitle}>Support thread<//>
    <${Refusal} error=${error} />
    ${thread === null
      ? !error && html`<${Loading} />`
      : html`<p><span class="state">${thread.status}</span></p>
        <ol class="thread" aria-label="Messages">
          ${thread.messages.map(
            (m) => html`<li key=${m.id} class=${m.author === 'support' ? 'from-support' : ''}>
              <p class="small muted">${m.authorName} · ${formatWhen(m.createdAt)}</p>
              <p class="message">${m.content}</p>
            </li>`,
          )}
        </ol>
        <form class="stack" onSubmit=${send}>
          <label for=${replyId}>Your reply</label>
          <textarea id=${replyId} rows="3" required value=${reply} onInput=${(/** @type {any} */ e) => setReply(e.currentTarget.value)}></textarea>
          <button type="submit">Reply</button>
        </form>`}
  </section>`;
}
