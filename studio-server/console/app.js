// @ts-check
/**
 * The console's entry: reads the session, then routes by path (router.js) to one page module,
 * loaded when first needed. Signed-out visitors see only the public pages (sign in, sign up,
 * the letters' pages); a signed-in person is framed by the shell (ui/shell.js).
 */

import { render } from './vendor/preact.mjs';
import { useEffect, useState } from './vendor/hooks.mjs';
import { html } from './html.js';
import { PAGES, navigate, useLocation } from './router.js';
import { loadSession, useStore } from './store.js';
import { Shell } from './ui/shell.js';
import { Loading, Refusal } from './ui/common.js';
import { prefetchFirstPage, takeFirstPage } from './ui/assets.js';

/** @typedef {import('./router.js').PageProps} PageProps */

/** @type {Map<string, (props: PageProps) => any>} */
const loaded = new Map();

/**
 * The page module for a segment, loaded once.
 * @param {string} page
 */
function usePage(page) {
  const [, tick] = useState(0);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const entry = PAGES[page];
  useEffect(() => {
    if (!entry || loaded.has(page)) return;
    let live = true;
    entry.load().then(
      (m) => {
        loaded.set(page, m.default);
        if (live) tick((n) => n + 1);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [page]);
  return { Page: loaded.get(page), error };
}

function App() {
  const store = useStore();
  const where = useLocation();
  const entry = PAGES[where.page];
  const signedIn = !!store.session;

  // Where a visitor belongs: `/` and guest pages lead a signed-in person on; private pages
  // lead a signed-out one to sign in (and back afterwards).
  let redirect = null;
  if (store.ready) {
    if (where.page === '') redirect = signedIn ? '/library' : '/sign-in';
    else if (entry?.guest && signedIn) redirect = safeNext(where.query.get('next')) ?? '/library';
    else if (entry && !entry.public && !signedIn) redirect = `/sign-in?next=${encodeURIComponent(where.path)}`;
  }
  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);

  const { Page, error } = usePage(entry ? where.page : '');
  if (!store.ready || redirect) return html`<main id="main" class="bare"><${Loading} /></main>`;

  const body = !entry
    ? html`<${NotFound} />`
    : error
      ? html`<${Refusal} error=${error} />`
      : Page
        ? html`<${Page} key=${`${store.session?.organization.id ?? ''}:${where.page}`} ...${where} />`
        : html`<${Loading} />`;
  if (signedIn && !entry?.guest) return html`<${Shell} page=${where.page}>${body}</${Shell}>`;
  return html`<div class="bare-frame">
    <a class="skip" href="#main">Skip to content</a>
    <header class="bare-top"><a class="brand" href=${signedIn ? '/library' : '/sign-in'}>Studio</a></header>
    <main id="main" tabindex="-1" class="bare">${body}</main>
  </div>`;
}

/** A `next` that stays on this origin's console. */
export function safeNext(/** @type {string | null} */ next) {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : null;
}

function NotFound() {
  return html`<section class="card narrow">
    <h1>Nothing here</h1>
    <p>This page does not exist. <a href="/library">Go to the library</a>.</p>
  </section>`;
}

// The library is the page most visits open: ask for its first page alongside the session.
if (location.pathname === '/library' && !location.search) prefetchFirstPage(100);

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
render(html`<${App} />`, root);
loadSession().then(
  (session) => {
    // Signed out: the early page was refused; the library asks again after sign-in.
    if (!session) takeFirstPage();
  },
  () => {
    // Shown by the pages that need the session; the public ones work without it.
  },
);
