// @ts-check
/**
 * The assistant panel, open from every page (the shell's "Assistant" button): a `complementary`
 * landmark named "Assistant". One session's turns; each proposed action with its exact price and
 * an Apply button (nothing is spent until Apply, and an action applies once); the turn limit and
 * an escalation to support said plainly. Without an AI reader the panel says the assistant is not
 * configured.
 */

import { useEffect, useRef, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { Refusal, tokens, useId } from './common.js';

/** @param {{onClose: () => void}} props */
export function Assistant({ onClose }) {
  const [session, setSession] = useState(/** @type {api.ChatSession | null} */ (null));
  const [turns, setTurns] = useState(/** @type {api.ChatTurn[]} */ ([]));
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [missing, setMissing] = useState(false);
  const messageId = useId('message');
  const end = useRef(/** @type {HTMLLIElement | null} */ (null));

  // The latest session, if any, with its turns.
  useEffect(() => {
    api.chatSessions().then(async (r) => {
      const s = r.sessions[0];
      if (!s) return;
      const t = await api.chatTurns(s.id);
      setSession(t.session);
      setTurns(t.turns);
    }, setError);
  }, []);
  useEffect(() => end.current?.scrollIntoView({ block: 'nearest' }), [turns.length]);

  const send = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    const text = message.trim();
    if (!text) return;
    setError(null);
    setBusy(true);
    try {
      const s = session && session.status === 'open' ? session : await api.newChatSession();
      if (s !== session) {
        setSession(s);
        setTurns([]);
      }
      const r = await api.sendChat(s.id, text);
      setSession(r.session);
      setTurns((t) => [...(s === session ? t : []), ...r.turns]);
      setMessage('');
    } catch (err) {
      if (err instanceof api.ApiError && err.code === 'AI_NOT_CONFIGURED') setMissing(true);
      else setError(err);
    }
    setBusy(false);
  };
  const apply = async (/** @type {string} */ actionId) => {
    if (!session) return;
    setError(null);
    try {
      const r = await api.applyChat(session.id, actionId);
      setTurns((all) => [
        ...all.map((t) => ({ ...t, actions: t.actions.map((a) => (a.id === actionId ? r.action : a)) })),
        ...(r.replayed || all.some((t) => t.id === r.turn.id) ? [] : [r.turn]),
      ]);
    } catch (err) {
      setError(err);
    }
  };
  const fresh = () => {
    setSession(null);
    setTurns([]);
    setError(null);
  };
  const escalated = session?.status === 'escalated';

  return html`<aside class="assistant card" aria-label="Assistant">
    <div class="row">
      <h2 class="grow">Assistant</h2>
      <button type="button" class="link-button" onClick=${fresh}>New conversation</button>
      <button type="button" onClick=${onClose}>Close</button>
    </div>
    ${missing
      ? html`<p role="status">The assistant is not configured on this studio (it has no AI reader). Everything it would do is on the pages themselves.</p>`
      : html`<p class="small muted">It proposes; nothing is spent until you press Apply.${session ? ` Turn ${session.turns} of ${session.turnLimit}.` : ''}</p>`}
    <ol class="turns" aria-label="Conversation">
      ${turns.map(
        (t) => html`<li key=${t.id} class=${`turn turn-${t.role}`}>
          <p class="small muted">${t.role === 'person' ? 'You' : t.role === 'assistant' ? 'Assistant' : t.role === 'action' ? 'Applied' : 'Studio'}</p>
          <p class="message">${t.text}</p>
          ${t.escalation &&
          html`<p class="notice">Handed to support (${t.escalation.reason.replace(/_/g, ' ')}).${t.escalation.ticketId ? html` <a href=${`/support/${encodeURIComponent(t.escalation.ticketId)}`}>Follow it under Support</a>.` : ''}</p>`}
          ${t.actions.length > 0 &&
          html`<ul class="actions" aria-label="Proposed actions">
            ${t.actions.map(
              (a) => html`<li key=${a.id}>
                <span class="grow">${a.summary} · <strong>${a.price ? tokens(a.price) : 'free'}</strong></span>
                ${a.status === 'proposed'
                  ? html`<button type="button" class="primary" aria-describedby=${`act-${a.id}`} onClick=${() => apply(a.id)}>Apply</button>
                      <span id=${`act-${a.id}`} class="visually-hidden">${a.summary}, ${a.price ? tokens(a.price) : 'free'}</span>`
                  : html`<span class="state state-done">${a.status}</span>`}
                ${a.status === 'applied' && a.kind === 'develop' && a.result?.jobId && html`<a href=${`/develop/${encodeURIComponent(a.result.jobId)}`}>Follow the develop</a>`}
              </li>`,
            )}
          </ul>`}
        </li>`,
      )}
      <li ref=${end} aria-hidden="true"></li>
    </ol>
    ${escalated && html`<p role="status">This conversation is with support now: answer them under <a href="/support">Support</a>, or start a new conversation.</p>`}
    ${session && session.turns >= session.turnLimit && !escalated && html`<p role="status" class="notice">This conversation reached its limit of ${session.turnLimit} turns: the next message hands it to support. Start a new conversation to go on with the assistant.</p>`}
    <${Refusal} error=${error} />
    <form class="stack" onSubmit=${send}>
      <label for=${messageId}>Message</label>
      <textarea id=${messageId} rows="2" maxlength="4000" value=${message} disabled=${missing} onInput=${(/** @type {any} */ e) => setMessage(e.currentTarget.value)}></textarea>
      <button type="submit" disabled=${busy || missing}>Send</button>
    </form>
  </aside>`;
}
