// @ts-check
/** Search: one box (in the shell) over the house's search route; each result links to its page. */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { Loading, PageTitle, Refusal, formatWhen, useTitle } from '../ui/common.js';
import { Thumb } from '../ui/assets.js';

/** @typedef {import('../api.js').SearchResult} SearchResult */

/** The console page of a result. */
export function pageOf(/** @type {SearchResult} */ r) {
  const id = encodeURIComponent(r.id);
  switch (r.kind) {
    case 'asset':
      return `/assets/${id}`;
    case 'look':
      return `/looks/${id}`;
    case 'model':
      return `/models/${id}`;
    case 'ticket':
      return `/support/${id}`;
    case 'preset':
      return `/pipelines/${id}`;
    default:
      return '/account';
  }
}

/** The highlighted snippet: the matched ranges in `mark`. */
function Highlight({ h }) {
  /** @type {any[]} */
  const parts = [];
  let at = 0;
  const chars = [...h.text];
  for (const r of h.ranges) {
    parts.push(chars.slice(at, r.start).join(''));
    parts.push(html`<mark>${chars.slice(r.start, r.end).join('')}</mark>`);
    at = r.end;
  }
  parts.push(chars.slice(at).join(''));
  return html`<span>${parts}</span>`;
}

/** @param {import('../router.js').PageProps} props */
export default function Search({ query }) {
  const q = query.get('q') ?? '';
  useTitle(q ? `Search: ${q}` : 'Search');
  const [results, setResults] = useState(/** @type {SearchResult[] | null} */ (null));
  const [next, setNext] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    setResults(null);
    setError(null);
    if (!q) return;
    api.search(q).then((r) => {
      setResults(r.results);
      setNext(r.nextCursor ?? null);
    }, setError);
  }, [q]);
  const more = async () => {
    if (!next) return;
    try {
      const r = await api.search(q, next);
      setResults((old) => [...(old ?? []), ...r.results]);
      setNext(r.nextCursor ?? null);
    } catch (e) {
      setError(e);
    }
  };
  return html`<section>
    <${PageTitle}>${q ? `Results for “${q}”` : 'Search'}<//>
    ${!q && html`<p class="muted">Type in the search box at the top: assets, looks, models, memories, tickets and presets of the house.</p>`}
    <${Refusal} error=${error} />
    ${q && !error && results === null && html`<${Loading} what="Searching" />`}
    ${results &&
    (results.length === 0
      ? html`<p class="empty">Nothing matches “${q}”.</p>`
      : html`<ul class="list" aria-label="Results">
          ${results.map(
            (r) => html`<li key=${`${r.kind}-${r.id}`}>
              ${r.kind === 'asset' ? html`<${Thumb} id=${r.id} className="run-thumb" />` : ''}
              <div class="grow">
                <a href=${pageOf(r)}>${r.title}</a> <span class="muted">${r.kind}${r.folder ? ` in ${r.folder}` : ''}</span>
                ${r.highlight?.text && html`<div class="muted"><${Highlight} h=${r.highlight} /></div>`}
              </div>
              <span class="muted">${formatWhen(r.createdAt)}</span>
            </li>`,
          )}
        </ul>`)}
    ${next && html`<p><button type="button" onClick=${more}>More results</button></p>`}
  </section>`;
}
