// @ts-check
/**
 * Account: the person (name, which they may change, avatar, email and whether it is verified), the house's tokens with
 * the way to get more (a top-up for the owner when billing is configured, else whom to ask),
 * and the houses the person sits in.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, houseChanged, nameChanged, refreshBalance, useStore } from '../store.js';
import { navigate } from '../router.js';
import { Loading, PageTitle, Refusal, formatWhen, tokens, useId, useTitle } from '../ui/common.js';
import { Memories, Usage } from './account-more.js';

export default function Account() {
  useTitle('Account');
  const store = useStore();
  const [view, setView] = useState(/** @type {import('../api.js').AccountView | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [note, setNote] = useState('');

  useEffect(() => {
    api.account().then(setView, setError);
    void refreshBalance();
  }, []);
  useEffect(() => {
    if (view && location.hash === '#tokens') document.getElementById('tokens')?.scrollIntoView();
  }, [view]);

  const resend = async () => {
    setError(null);
    try {
      await api.resendVerification();
      setNote('A verification letter is on its way.');
    } catch (e) {
      setError(e);
    }
  };
  const profile = view?.profile ?? store.me?.profile ?? null;

  return html`<section>
    <${PageTitle}>Account<//>
    <${Refusal} error=${error} />
    ${!profile
      ? html`<${Loading} />`
      : html`<div class="sections">
          <section class="card" aria-labelledby="profile-title">
            <h2 id="profile-title">You</h2>
            <div class="row">
              ${profile.image && html`<img class="run-thumb" src=${profile.image} alt="Your avatar" />`}
              <dl class="meta">
                <dt>Name</dt><dd>${profile.name || '(none)'}</dd>
                <dt>Email</dt><dd>${profile.email}</dd>
                <dt>Verified</dt><dd>${profile.emailVerified ? 'Yes' : 'Not yet'}</dd>
                <dt>Joined</dt><dd>${formatWhen(profile.joinedAt)}</dd>
              </dl>
            </div>
            <${Name}
              current=${profile.name}
              onSaved=${(/** @type {import('../api.js').AccountView} */ v) => {
                setView(v);
                nameChanged(v.profile.name);
              }}
            />
            ${!profile.emailVerified && html`<p><button type="button" onClick=${resend}>Send a new verification letter</button></p>`}
            ${note && html`<p aria-live="polite">${note}</p>`}
            <${Avatar} onChanged=${() => api.account().then(setView, setError)} hasImage=${!!profile.image} />
          </section>
          <${Tokens} />
          <${Usage} />
          <${Memories} />
          <${Houses} />
        </div>`}
  </section>`;
}

/** The longest name the studio keeps, in characters. */
const NAME_MAX = 200;

/**
 * The person's name: "Change name" opens a field; saved, it shows everywhere at once (the
 * header's name too).
 * @param {{current: string | null, onSaved: (v: import('../api.js').AccountView) => void}} props
 */
function Name({ current, onSaved }) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const id = useId('name');
  /** @param {SubmitEvent} e */
  const save = async (e) => {
    e.preventDefault();
    const name = String(new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)).get('name') ?? '').trim();
    setError(null);
    setNote('');
    if (!name || [...name].length > NAME_MAX) {
      setError(new Error(`A name is 1 to ${NAME_MAX} characters.`));
      return;
    }
    setBusy(true);
    try {
      onSaved(await api.updateAccount({ name }));
      setEditing(false);
      setNote('Your name is changed.');
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  if (!editing) {
    return html`<div class="stack">
      <p class="row">
        <button type="button" onClick=${() => {
          setNote('');
          setError(null);
          setEditing(true);
        }}>${current ? 'Change name' : 'Add your name'}</button>
      </p>
      ${note && html`<p aria-live="polite">${note}</p>`}
      <${Refusal} error=${error} />
    </div>`;
  }
  return html`<form class="stack" onSubmit=${save} aria-label="Your name">
    <div class="field">
      <label for=${id}>Name</label>
      <input id=${id} name="name" value=${current ?? ''} required maxlength=${NAME_MAX} autocomplete="name" />
    </div>
    <div class="row">
      <button type="submit" class="primary" disabled=${busy}>Save name</button>
      <button type="button" onClick=${() => setEditing(false)}>Cancel</button>
    </div>
    <${Refusal} error=${error} />
  </form>`;
}

/** @param {{onChanged: () => void, hasImage: boolean}} props */
function Avatar({ onChanged, hasImage }) {
  const [error, setError] = useState(/** @type {unknown} */ (null));
  /** @param {Event} e */
  const upload = async (e) => {
    const input = /** @type {HTMLInputElement} */ (e.currentTarget);
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    setError(null);
    try {
      await api.uploadAvatar(file);
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async () => {
    try {
      await api.deleteAvatar();
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return html`<div class="stack">
    <div class="row">
      <input id="avatar-file" class="upload-input" type="file" accept="image/png,image/jpeg,image/webp" onChange=${upload} />
      <label for="avatar-file" class="button">${hasImage ? 'Change avatar' : 'Add an avatar'}</label>
      ${hasImage && html`<button type="button" onClick=${remove}>Remove avatar</button>`}
    </div>
    <p class="hint">A square WebP, PNG or JPEG of at most 512 KB.</p>
    <${Refusal} error=${error} />
  </div>`;
}

function Tokens() {
  const store = useStore();
  const powers = can();
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [owner, setOwner] = useState(/** @type {string | null} */ (null));
  const b = store.balance;
  const packs = store.catalog?.packs ?? [];
  const billing = !!store.catalog?.provider;
  useEffect(() => {
    if (powers.pay) return;
    api.seats().then((s) => {
      const o = s.seats.find((x) => x.role === 'owner');
      setOwner(o ? o.name || o.email : null);
    }, () => {});
  }, [powers.pay]);
  const buy = async (/** @type {string} */ pack) => {
    setError(null);
    try {
      const res = await api.checkoutTopup(pack);
      // The checkout is the provider's page (this server's own in test mode).
      location.assign(res.url);
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card" id="tokens" aria-labelledby="tokens-title">
    <h2 id="tokens-title">Tokens</h2>
    ${b
      ? html`<dl class="meta">
          <dt>Spendable</dt><dd>${tokens(b.balance)}</dd>
          <dt>Granted</dt><dd>${tokens(b.grant)}</dd>
          <dt>Bought</dt><dd>${tokens(b.topup)}</dd>
          <dt>On hold</dt><dd>${tokens(b.held)}</dd>
        </dl>`
      : html`<${Loading} />`}
    <h3>Getting more</h3>
    ${billing && powers.pay
      ? html`<div class="row">
          ${packs.map(
            (p) => html`<button type="button" onClick=${() => buy(p.slug)}>Buy ${tokens(p.tokens)} · $${p.priceUsd}</button>`,
          )}
        </div>`
      : billing
        ? html`<p>Only the house's owner buys tokens${owner ? html`: ask <strong>${owner}</strong>` : ''}.</p>`
        : html`<p>This studio does not sell tokens: ask its operator${owner ? html` or the house's owner, <strong>${owner}</strong>,` : ''} for a grant.</p>`}
    <${Refusal} error=${error} />
  </section>`;
}

function Houses() {
  const store = useStore();
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const houses = store.me?.houses ?? [];
  const go = async (/** @type {string} */ id) => {
    setError(null);
    try {
      await api.switchHouse(id);
      await houseChanged();
      navigate('/library');
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card" aria-labelledby="houses-title">
    <h2 id="houses-title">Houses</h2>
    <ul class="list">
      ${houses.map(
        (h) => html`<li key=${h.organizationId}>
          <span class="grow" id=${`house-${h.organizationId}`}><strong>${h.name}</strong> <span class="muted">${h.role}${h.founder ? ', yours' : ''}</span></span>
          ${h.active
            ? html`<span class="state">Acting for it</span>`
            : html`<button type="button" aria-describedby=${`house-${h.organizationId}`} onClick=${() => go(h.organizationId)}>Switch</button>`}
        </li>`,
      )}
    </ul>
    <${Refusal} error=${error} />
  </section>`;
}
