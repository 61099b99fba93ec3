// @ts-check
/**
 * One pipeline run (`/pipelines/{runId}`): its state, live from the jobs socket (a change of any
 * job reads the run again), a progress strip per node, each step with its frame, and Cancel
 * with the tokens it released.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can } from '../store.js';
import { feed } from '../socket.js';
import { Loading, PageTitle, Refusal, tokens, useTitle } from '../ui/common.js';
import { Thumb } from '../ui/assets.js';
import { ProgressStrip } from '../ui/charts.js';

/** @param {{id: string}} props */
export default function PipelineRun({ id }) {
  const powers = can();
  const [detail, setDetail] = useState(/** @type {{run: import('../api.js').PipelineRun, steps: import('../api.js').RunStep[]} | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [released, setReleased] = useState(/** @type {string | null} */ (null));
  const [tick, setTick] = useState(0);
  useTitle(detail ? `Pipeline ${detail.run.name}` : 'Pipeline run');
  useEffect(() => {
    api.pipelineRun(id).then(setDetail, setError);
  }, [id, tick]);
  useEffect(() => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let soon;
    const off = feed.subscribe((m) => {
      if (m.type !== 'job') return;
      clearTimeout(soon);
      soon = setTimeout(() => setTick((n) => n + 1), 150);
    });
    return () => {
      off();
      clearTimeout(soon);
    };
  }, []);
  if (!detail) return html`<section class="card"><${PageTitle}>Pipeline run<//>${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  const { run, steps } = detail;
  const cancel = async () => {
    setError(null);
    try {
      const res = await api.cancelPipeline(run.id);
      setReleased(`Cancelled: ${tokens(res.tokensReleased)} released.${res.stillRendering.length ? ` ${res.stillRendering.length} frames were already rendering; they finish and cost.` : ''}`);
      setTick((n) => n + 1);
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card stack">
    <p class="muted small"><a href="/pipelines">Pipelines</a></p>
    <${PageTitle}>${run.name}<//>
    <p><span role="status" aria-label="Run state" class=${`state state-${run.status === 'developing' ? 'running' : run.status}`}>${run.status}</span>
      <span class="muted"> · ${run.framesPlanned} frames · ${tokens(run.tokensPlanned)} planned, ${tokens(run.tokensSpent)} spent, ${tokens(run.tokensHeld)} held</span></p>
    <${ProgressStrip} label="All steps" counts=${run.steps} />
    <ul class="list" aria-label="Nodes">
      ${run.line.map((n) => html`<li key=${n.node}><div class="grow"><strong>${n.node}</strong> <span class="muted">${n.tool}</span>
        <${ProgressStrip} label=${`Node ${n.node}`} counts=${n.steps} /></div></li>`)}
    </ul>
    <ul class="contact-sheet" aria-label="Steps">
      ${steps.map((s) => html`<li key=${s.id}><figure>
        ${s.resultAssetId ? html`<a href=${`/assets/${encodeURIComponent(s.resultAssetId)}`} aria-label=${`Open the frame of ${s.node}, item ${s.item + 1}`}><${Thumb} id=${s.resultAssetId} alt="" /></a>` : html`<span class="thumb-box" aria-hidden="true"></span>`}
        <figcaption><span>${s.node} · item ${s.item + 1}</span> <span class=${`state state-${s.status}`}>${s.status}</span>${s.error && html`<span class="small">${s.error}</span>`}</figcaption>
      </figure></li>`)}
    </ul>
    ${powers.spend && run.steps.active > 0 && !run.cancelRequested && html`<button type="button" onClick=${cancel}>Cancel the run</button>`}
    ${released && html`<p class="notice">${released}</p>`}
    <${Refusal} error=${error} />
  </section>`;
}
