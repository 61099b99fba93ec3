// @ts-check
/**
 * House: the organization keys (mint shows the secret once, with Copy; revoke) and the seats
 * (owner and admin: invite, change role, remove). Everyone in the house may read both lists.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { Loading, PageTitle, Refusal, formatWhen, useId, useTitle } from '../ui/common.js';

export default function House() {
  const store = useStore();
  useTitle('House');
  return html`<section>
    <${PageTitle}>${store.session?.organization.name ?? 'House'}<//>
    <p class="muted">Your seat: ${store.session?.role}. <a href="/account">Your account</a> holds your profile, tokens and houses.</p>
    <div class="sections">
      <${Keys} />
      <${Seats} />
    </div>
  </section>`;
}

/**
 * Copy text to the clipboard, falling back to a selection copy where the clipboard API is
 * refused.
 * @param {string} text
 */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

function Keys() {
  const powers = can();
  const [keys, setKeys] = useState(/** @type {import('../api.js').ApiKey[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [minting, setMinting] = useState(false);
  const [minted, setMinted] = useState(/** @type {import('../api.js').ApiKey | null} */ (null));
  const [copied, setCopied] = useState('');
  const nameId = useId('key-name');
  const roleId = useId('key-role');

  const load = () => api.listKeys().then((r) => setKeys(r.keys), setError);
  useEffect(() => {
    void load();
  }, []);

  /** @param {SubmitEvent} e */
  const mint = async (e) => {
    e.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
    setError(null);
    try {
      const key = await api.mintKey(
        String(data.get('name') ?? '').trim(),
        /** @type {'viewer' | 'member'} */ (String(data.get('role') ?? 'member')),
      );
      setMinted(key);
      setMinting(false);
      setCopied('');
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (/** @type {string} */ id) => {
    setError(null);
    try {
      await api.revokeKey(id);
      if (minted?.id === id) setMinted(null);
      void load();
    } catch (err) {
      setError(err);
    }
  };

  return html`<section class="card" aria-labelledby="keys-title">
    <h2 id="keys-title">Keys</h2>
    <p class="muted">Keys let scripts, the command-line tool and agents act for the house: a member key develops and spends tokens, a viewer key only reads. Never money.</p>
    ${powers.manage &&
    !minting &&
    html`<p><button type="button" class="primary" onClick=${() => {
      setMinting(true);
      setMinted(null);
    }}>New key</button></p>`}
    ${minting &&
    html`<form class="stack" onSubmit=${mint} aria-label="New key">
      <div class="field">
        <label for=${nameId}>Key name</label>
        <input id=${nameId} name="name" required maxlength="100" placeholder="lookbook-sync" />
      </div>
      <div class="field">
        <label for=${roleId}>Key role</label>
        <select id=${roleId} name="role">
          <option value="member">member: develops and spends tokens</option>
          <option value="viewer">viewer: reads only</option>
        </select>
      </div>
      <div class="row">
        <button type="submit" class="primary">Create key</button>
        <button type="button" onClick=${() => setMinting(false)}>Cancel</button>
      </div>
    </form>`}
    ${minted?.key &&
    html`<div class="secret" role="group" aria-label="New key's secret">
      <p>The secret of <strong>${minted.name}</strong>, shown this once:</p>
      <code id="minted-secret">${minted.key}</code>
      <button type="button" onClick=${async () => setCopied((await copyText(minted.key ?? '')) ? 'Copied.' : 'Copy failed: select the secret and copy it.')}>Copy</button>
      <span aria-live="polite">${copied}</span>
    </div>`}
    <${Refusal} error=${error} />
    ${keys === null
      ? html`<${Loading} />`
      : keys.length === 0
        ? html`<p class="muted">No keys yet.</p>`
        : html`<ul class="list" aria-label="Keys">
            ${keys.map(
              (k) => html`<li key=${k.id}>
                <div class="grow" id=${`key-${k.id}`}>
                  <strong>${k.name}</strong> <span class="muted">${k.prefix}…, ${k.role}</span>
                  <div class="muted">
                    ${k.revokedAt ? `Revoked ${formatWhen(k.revokedAt)}` : k.lastUsedAt ? `Last used ${formatWhen(k.lastUsedAt)}` : 'Never used'}
                  </div>
                </div>
                ${powers.manage &&
                !k.revokedAt &&
                html`<button type="button" class="danger" aria-describedby=${`key-${k.id}`} onClick=${() => revoke(k.id)}>Revoke</button>`}
              </li>`,
            )}
          </ul>`}
  </section>`;
}

function Seats() {
  const store = useStore();
  const powers = can();
  const [list, setList] = useState(/** @type {import('../api.js').SeatList | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [invited, setInvited] = useState(/** @type {import('../api.js').SeatInvitation | null} */ (null));
  const emailId = useId('invite-email');
  const roleId = useId('invite-role');

  const load = () => api.seats().then(setList, setError);
  useEffect(() => {
    void load();
  }, []);

  /** @param {SubmitEvent} e */
  const invite = async (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const data = new FormData(form);
    setError(null);
    try {
      const inv = await api.inviteSeat(
        String(data.get('email') ?? '').trim(),
        /** @type {import('../api.js').SeatRole} */ (String(data.get('role') ?? 'member')),
      );
      setInvited(inv);
      form.reset();
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const setRole = async (/** @type {string} */ userId, /** @type {any} */ role) => {
    setError(null);
    try {
      await api.setSeatRole(userId, role);
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (/** @type {string} */ userId) => {
    setError(null);
    try {
      await api.removeSeat(userId);
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const me = store.session?.user.id;

  return html`<section class="card" aria-labelledby="seats-title">
    <h2 id="seats-title">Seats</h2>
    ${list === null
      ? html`<${Loading} />`
      : html`<ul class="list" aria-label="Seats">
          ${list.seats.map(
            (s) => html`<li key=${s.userId}>
              <div class="grow" id=${`seat-${s.userId}`}>
                <strong>${s.name || s.email}</strong>${s.userId === me ? ' (you)' : ''}
                <div class="muted">${s.email}</div>
              </div>
              ${powers.manage && s.role !== 'owner' && s.userId !== me
                ? html`<label class="visually-hidden" for=${`role-${s.userId}`}>Role of ${s.name || s.email}</label>
                    <select id=${`role-${s.userId}`} value=${s.role} onChange=${(/** @type {any} */ e) => setRole(s.userId, e.currentTarget.value)}>
                      <option value="admin">admin</option>
                      <option value="member">member</option>
                      <option value="viewer">viewer</option>
                    </select>
                    <button type="button" class="danger" aria-describedby=${`seat-${s.userId}`} onClick=${() => remove(s.userId)}>Remove</button>`
                : html`<span class="state">${s.role}</span>`}
            </li>`,
          )}
        </ul>
        ${list.invitations.length > 0 &&
        html`<h3>Invitations waiting</h3>
          <ul class="list" aria-label="Invitations waiting">
            ${list.invitations.map(
              (i) => html`<li key=${i.id}>
                <div class="grow">${i.email} <span class="muted">as ${i.role}, until ${formatWhen(i.expiresAt)}</span></div>
              </li>`,
            )}
          </ul>`}`}
    ${invited &&
    html`<div class="notice" role="status">
      <p>${invited.email} is invited as ${invited.role}. A letter is on its way with this link: <a href=${invited.url}>${invited.url}</a></p>
    </div>`}
    ${powers.manage &&
    html`<form class="stack" onSubmit=${invite} aria-label="Invite a seat">
      <h3>Invite someone</h3>
      <div class="field">
        <label for=${emailId}>Email</label>
        <input id=${emailId} name="email" type="email" required autocomplete="off" />
      </div>
      <div class="field">
        <label for=${roleId}>Role</label>
        <select id=${roleId} name="role">
          <option value="member">member: develops and spends tokens</option>
          <option value="viewer">viewer: reads only</option>
          <option value="admin">admin: also keys and seats</option>
        </select>
      </div>
      <button type="submit" class="primary">Invite</button>
    </form>`}
    <${Refusal} error=${error} />
  </section>`;
}
