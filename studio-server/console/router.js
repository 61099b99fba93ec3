// @ts-check
/**
 * The console's router: one page per first path segment, history API, no hash. Links to
 * console pages are followed in the page (no reload); everything else is left to the browser.
 */

import { useEffect, useState } from './vendor/hooks.mjs';

/**
 * The page table: first path segment → how to load the page. Keep it in step with `PAGES` in
 * `studio-server/src/console.rs`, which answers `index.html` for each of these segments.
 * `public` pages are open without a session; `guest` pages send a signed-in person onwards.
 * @type {Record<string, {load: () => Promise<{default: (props: PageProps) => any}>, public?: boolean,
 *   guest?: boolean}>}
 */
export const PAGES = {
  'sign-in': { load: () => import('./pages/sign-in.js'), public: true, guest: true },
  'sign-up': { load: () => import('./pages/sign-up.js'), public: true, guest: true },
  'forgot-password': { load: () => import('./pages/forgot-password.js'), public: true, guest: true },
  'reset-password': { load: () => import('./pages/reset-password.js'), public: true },
  'verify-email': { load: () => import('./pages/verify-email.js'), public: true },
  join: { load: () => import('./pages/join.js') },
  library: { load: () => import('./pages/library.js') },
  assets: { load: () => import('./pages/asset.js') },
  develop: { load: () => import('./pages/develop.js') },
  runs: { load: () => import('./pages/runs.js') },
  house: { load: () => import('./pages/house.js') },
  account: { load: () => import('./pages/account.js') },
  search: { load: () => import('./pages/search.js') },
  // Part 2: looks (and the factory), pipelines, brand, models, support, the admin console.
  looks: { load: () => import('./pages/looks.js') },
  pipelines: { load: () => import('./pages/pipelines.js') },
  brand: { load: () => import('./pages/brand.js') },
  models: { load: () => import('./pages/models.js') },
  support: { load: () => import('./pages/support.js') },
  admin: { load: () => import('./pages/admin.js') },
};

/**
 * What a page is given: its segment, the rest of the path and the query.
 * @typedef {{page: string, rest: string[], query: URLSearchParams, path: string}} PageProps
 */

/** @type {Set<() => void>} */
const listeners = new Set();

function notify() {
  for (const fn of [...listeners]) fn();
}

/**
 * Go to a console path without reloading.
 * @param {string} to  path (and query) of this origin
 * @param {{replace?: boolean}} [options]
 */
export function navigate(to, options = {}) {
  const current = location.pathname + location.search;
  if (to === current && !options.replace) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  notify();
}

addEventListener('popstate', notify);

/** Whether a same-origin path is a console page (else the browser follows it). */
export function isPage(/** @type {string} */ path) {
  const first = path.split('/')[1] ?? '';
  return path === '/' || Object.hasOwn(PAGES, first);
}

// Follow console links in the page: a plain left click on a same-origin link to a console page.
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
  if (!(a instanceof HTMLAnchorElement) || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || !isPage(url.pathname)) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

/** The current location, re-rendering the caller when it changes. */
export function useLocation() {
  const [, tick] = useState(0);
  useEffect(() => {
    const fn = () => tick((n) => n + 1);
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  const segments = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  return {
    path: location.pathname + location.search,
    page: segments[0] ?? '',
    rest: segments.slice(1),
    query: new URLSearchParams(location.search),
  };
}
