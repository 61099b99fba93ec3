// @ts-check
/** Runs: the house's develops grouped into runs, newest first, live from the jobs socket. */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { feed } from '../socket.js';
import { Loading, PageTitle, Refusal, formatWhen, tokens, useTitle } from '../ui/common.js';
import { Thumb } from '../ui/assets.js';

export default function Runs() {
  useTitle('Runs');
  useStore();
  const powers = can();
  const [runs, setRuns] = useState(/** @type {import('../api.js').DevelopRun[] | null} */ (null));
  const [activeOnly, setActiveOnly] = useState(false);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api.listRuns(activeOnly, 50).then((r) => {
      setRuns(r.runs);
      setError(null);
    }, setError);
  }, [activeOnly, reload]);

  // Any job change may move a run: read the list again (at most twice a second).
  useEffect(() => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let soon;
    const off = feed.subscribe((m) => {
      if (m.type !== 'job') return;
      clearTimeout(soon);
      soon = setTimeout(() => setReload((n) => n + 1), 500);
    });
    return () => {
      off();
      clearTimeout(soon);
    };
  }, []);

  const cancel = async (/** @type {string} */ id) => {
    try {
      await api.cancelRun(id);
      setReload((n) => n + 1);
    } catch (e) {
      setError(e);
    }
  };

  return html`<section>
    <div class="toolbar">
      <${PageTitle}>Runs<//>
      <label class="row"><input type="checkbox" checked=${activeOnly} onChange=${() => setActiveOnly(!activeOnly)} /> Only runs still developing</label>
    </div>
    <${Refusal} error=${error} />
    ${runs === null
      ? html`<${Loading} what="Loading runs" />`
      : runs.length === 0
        ? html`<p class="empty">No develops yet.${powers.spend ? html` <a href="/develop">Start one</a>.` : ''}</p>`
        : html`<ul class="list" aria-label="Runs">
            ${runs.map(
              (r) => html`<li key=${r.id}>
                ${r.thumbAssetId ? html`<${Thumb} id=${r.thumbAssetId} className="run-thumb" />` : html`<span class="run-thumb" aria-hidden="true"></span>`}
                <div class="grow">
                  <strong>${r.title}</strong>
                  <div class="muted">
                    ${r.tool} · ${r.counts.total} ${r.counts.total === 1 ? 'frame' : 'frames'}: ${r.counts.done} done${r.counts.failed ? `, ${r.counts.failed} failed` : ''}${r.counts.cancelled ? `, ${r.counts.cancelled} cancelled` : ''}${r.counts.active ? `, ${r.counts.active} developing` : ''} · ${formatWhen(r.createdAt)}
                  </div>
                  <div class="row">
                    ${r.jobIds.map((id, i) => html`<a href=${`/develop/${encodeURIComponent(id)}`} title=${id}>Frame ${i + 1}</a>`).slice(-8)}
                  </div>
                </div>
                <span class=${`state state-${r.state}`}>${r.state}</span>
                ${powers.spend && r.counts.active > 0 && html`<button type="button" onClick=${() => cancel(r.id)} aria-label=${`Cancel ${r.title}`}>Cancel</button>`}
                ${r.againCost > 0 && html`<span class="muted">All again: ${tokens(r.againCost)}</span>`}
              </li>`,
            )}
          </ul>`}
  </section>`;
}
