// @ts-check
/** Small pieces every page uses: refusals in words, titles, labelled fields, formats. */

import { useEffect, useRef } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import { ApiError } from '../api.js';

/**
 * A refusal (or any failure) in words, announced to assistive technology.
 * @param {{error: unknown, children?: any}} props
 */
export function Refusal({ error, children }) {
  if (!error) return null;
  const words = error instanceof ApiError ? error.words : error instanceof Error ? error.message : String(error);
  return html`<div class="refusal" role="alert"><p>${words}</p>${children}</div>`;
}

/** The refusal's words as a string. */
export function wordsOf(/** @type {unknown} */ error) {
  return error instanceof ApiError ? error.words : error instanceof Error ? error.message : String(error);
}

/**
 * Set the document's title and move focus to the page's heading when the page changes, so a
 * keyboard or screen-reader user starts at the new page.
 * @param {string} title
 */
export function useTitle(title) {
  useEffect(() => {
    document.title = title ? `${title} · Studio` : 'Studio';
  }, [title]);
}

/**
 * The page's heading; takes focus when the page opens (not on every render).
 * @param {{children: any, focus?: boolean}} props
 */
export function PageTitle({ children }) {
  const ref = useRef(/** @type {HTMLHeadingElement | null} */ (null));
  useEffect(() => {
    const active = document.activeElement;
    if (!active || active === document.body || !document.contains(active)) ref.current?.focus({ preventScroll: true });
  }, []);
  return html`<h1 tabindex="-1" ref=${ref}>${children}</h1>`;
}

let fieldSeq = 0;
/** A stable unique id for a label and its control. */
export function useId(/** @type {string} */ prefix = 'f') {
  const ref = useRef(/** @type {string | null} */ (null));
  if (!ref.current) ref.current = `${prefix}-${++fieldSeq}`;
  return ref.current;
}

/**
 * A labelled input.
 * @param {{label: string, name: string, type?: string, value?: string, required?: boolean,
 *   autocomplete?: string, hint?: string, minlength?: number, onInput?: (v: string) => void}} props
 */
export function Field({ label, name, type = 'text', value, required, autocomplete, hint, minlength, onInput }) {
  const id = useId(name);
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input
      id=${id}
      name=${name}
      type=${type}
      value=${value}
      required=${required}
      minlength=${minlength}
      autocomplete=${autocomplete}
      aria-describedby=${hint ? `${id}-hint` : undefined}
      onInput=${onInput ? (/** @type {any} */ e) => onInput(e.currentTarget.value) : undefined}
    />
    ${hint && html`<p class="hint" id=${`${id}-hint`}>${hint}</p>`}
  </div>`;
}

/** Bytes for people. */
export function formatBytes(/** @type {number} */ n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A date and time for people. */
export function formatWhen(/** @type {string | null | undefined} */ iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "1 token", "9 tokens". */
export function tokens(/** @type {number} */ n) {
  return `${n} ${n === 1 ? 'token' : 'tokens'}`;
}

/** A loading line. */
export function Loading({ what = 'Loading' }) {
  return html`<p class="muted" aria-live="polite">${what}…</p>`;
}
