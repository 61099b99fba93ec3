// @ts-check
/**
 * What every page shares: who is signed in (the session and its seat role), their houses, the
 * balance, the price book and the billing catalog. A tiny observable; `useStore` re-renders a
 * component when it changes.
 */

import { useEffect, useState } from './vendor/hooks.mjs';
import * as api from './api.js';
import { feed } from './socket.js';

/**
 * @typedef {{
 *   ready: boolean,
 *   session: import('./api.js').SessionInfo | null,
 *   me: import('./api.js').MeView | null,
 *   balance: import('./api.js').Balance | null,
 *   prices: import('./api.js').PriceBook | null,
 *   catalog: import('./api.js').BillingCatalog | null,
 * }} State
 */

/** @type {State} */
let state = { ready: false, session: null, me: null, balance: null, prices: null, catalog: null };
/** @type {Set<() => void>} */
const listeners = new Set();

export function getState() {
  return state;
}

/** @param {Partial<State>} patch */
export function setState(patch) {
  state = { ...state, ...patch };
  for (const fn of [...listeners]) fn();
}

/** The shared state, re-rendering the caller on change. */
export function useStore() {
  const [, tick] = useState(0);
  useEffect(() => {
    const fn = () => tick((n) => n + 1);
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  return state;
}

/** The seat's powers: what the console offers (the server still decides). */
export function can() {
  const role = state.session?.role;
  return {
    /** Develop, take again, duplicate, cancel: every role but viewer. */
    spend: !!role && role !== 'viewer',
    /** Upload, rename, move, delete, folders: every role but viewer. */
    write: !!role && role !== 'viewer',
    /** Keys and seats: owner and admin. */
    manage: role === 'owner' || role === 'admin',
    /** Checkouts: the owner. */
    pay: role === 'owner',
  };
}

/** Read the session; signed out when the server says so. */
export async function loadSession() {
  try {
    const session = await api.session();
    setState({ session, ready: true });
    feed.start();
    void refreshBalance();
    void loadShared();
    return session;
  } catch (e) {
    if (e instanceof api.ApiError && e.status === 401) {
      feed.stop();
      setState({ session: null, me: null, balance: null, ready: true });
      return null;
    }
    setState({ ready: true });
    throw e;
  }
}

async function loadShared() {
  const [me, prices, catalog] = await Promise.allSettled([api.me(), api.prices(), api.billingCatalog()]);
  setState({
    me: me.status === 'fulfilled' ? me.value : null,
    prices: prices.status === 'fulfilled' ? prices.value : null,
    catalog: catalog.status === 'fulfilled' ? catalog.value : null,
  });
}

let balanceSeq = 0;

/** Read the balance again (after a spend, a job's end, a top-up). */
export async function refreshBalance() {
  if (!state.session) return;
  const seq = ++balanceSeq;
  try {
    const balance = await api.balance();
    if (seq === balanceSeq) setState({ balance });
  } catch {
    // The shell keeps the last figure; the next change reads again.
  }
}

/**
 * The session now acts for another house (switch, accepted seat): read it again, restart the
 * feed for that house. The session stays set meanwhile, so no page sends the person to sign in.
 */
export async function houseChanged() {
  feed.stop();
  setState({ balance: null });
  return loadSession();
}

/**
 * The person's name changed (PATCH /api/account): show it at once wherever the session's person
 * or profile is shown (the header among them).
 * @param {string | null} name
 */
export function nameChanged(name) {
  const { session, me } = state;
  setState({
    session: session ? { ...session, user: { ...session.user, name } } : session,
    me: me ? { ...me, profile: { ...me.profile, name } } : me,
  });
}

/** Forget everything of the session (sign-out). */
export function signedOut() {
  feed.stop();
  setState({ session: null, me: null, balance: null });
}

// A spend or a job's end moves the balance: read it again.
api.onWrite((method, path) => {
  if (/\/(jobs|takes|develops|billing|assets\/upload|seats\/accept|switch-house|lookbook|pipelines|chat\/apply|brand\/dna)/.test(path)) void refreshBalance();
});
/** @type {ReturnType<typeof setTimeout> | undefined} */
let soon;
feed.subscribe((m) => {
  if (m.type !== 'job') return;
  // A backfill delivers many changes at once: read the balance once after them.
  clearTimeout(soon);
  soon = setTimeout(() => void refreshBalance(), 100);
});
