// @ts-check
/**
 * The frame of every signed-in page: the house (and its switcher when the person has several),
 * the main navigation, the search box, the balance (always in view), the assistant panel (open
 * from every page) and sign-out.
 */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, houseChanged, signedOut, useStore } from '../store.js';
import { navigate } from '../router.js';
import { wordsOf } from './common.js';
import { Assistant } from './assistant.js';

/**
 * @param {{page: string, children: any}} props
 */
export function Shell({ page, children }) {
  const store = useStore();
  const powers = can();
  const session = store.session;
  /** @type {[string, string][]} */
  const links = [
    ['library', 'Library'],
    ...(powers.spend ? /** @type {[string, string][]} */ ([['develop', 'Develop']]) : []),
    ['runs', 'Runs'],
    ['looks', 'Looks'],
    ['pipelines', 'Pipelines'],
    ['brand', 'Brand'],
    ['models', 'Models'],
    ['house', 'House'],
    ['support', 'Support'],
    // Platform admins only; the server refuses everyone else anyway.
    ...(store.me?.admin ? /** @type {[string, string][]} */ ([['admin', 'Admin']]) : []),
  ];
  const current = page === 'assets' ? 'library' : page;
  const [assistant, setAssistant] = useState(false);
  return html`<div class="app">
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <div class="top-row">
        <a class="brand" href="/library">Studio</a>
        <${HouseSwitch} />
        <nav aria-label="Main" class="nav">
          <ul>
            ${links.map(
              ([slug, label]) =>
                html`<li><a href=${`/${slug}`} aria-current=${current === slug ? 'page' : undefined}>${label}</a></li>`,
            )}
          </ul>
        </nav>
        <${SearchBox} />
        <div class="wallet">
          <div class="balance" role="group" aria-label="Balance">
            <span class="balance-figure">${store.balance ? store.balance.balance : '…'}</span>
            <span class="balance-unit"> tokens</span>
          </div>
          <a class="get-tokens" href="/account#tokens">Get tokens</a>
        </div>
        <div class="who">
          <a href="/account" class="who-name">${session?.user.name || session?.user.email || 'Account'}</a>
          <button type="button" class="link-button" aria-expanded=${assistant} onClick=${() => setAssistant(!assistant)}>Assistant</button>
          <button type="button" class="link-button" onClick=${signOutNow}>Sign out</button>
        </div>
      </div>
    </header>
    <main id="main" tabindex="-1">${children}</main>
    ${assistant && html`<${Assistant} onClose=${() => setAssistant(false)} />`}
  </div>`;
}

async function signOutNow() {
  try {
    await api.signOut();
  } catch {
    // Signed out already, or the server is away: forget the session here either way.
  }
  signedOut();
  navigate('/sign-in', { replace: true });
}

/** The search box: submits to the search page. */
function SearchBox() {
  const q = location.pathname === '/search' ? new URLSearchParams(location.search).get('q') ?? '' : '';
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const value = String(new FormData(form).get('q') ?? '').trim();
    if (value) navigate(`/search?q=${encodeURIComponent(value)}`);
  };
  return html`<form role="search" class="search" onSubmit=${submit}>
    <input type="search" name="q" aria-label="Search" placeholder="Search the house" value=${q} key=${q} />
  </form>`;
}

/** The house the session acts for, and a switcher when the person sits in several. */
function HouseSwitch() {
  const store = useStore();
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const houses = store.me?.houses ?? [];
  const active = store.session?.organization;
  if (houses.length < 2) return html`<span class="house-name">${active?.name ?? ''}</span>`;
  /** @param {Event} e */
  const change = async (e) => {
    const id = /** @type {HTMLSelectElement} */ (e.currentTarget).value;
    setError(null);
    try {
      await api.switchHouse(id);
      await houseChanged();
      navigate('/library');
    } catch (err) {
      setError(err);
    }
  };
  return html`<div class="house-switch">
    <label for="house-switch" class="visually-hidden">Switch house</label>
    <select id="house-switch" onChange=${change} value=${active?.id}>
      ${houses.map((h) => html`<option value=${h.organizationId}>${h.name} (${h.role})</option>`)}
    </select>
    ${error && html`<span role="alert" class="refusal-inline">${wordsOf(error)}</span>`}
  </div>`;
}
