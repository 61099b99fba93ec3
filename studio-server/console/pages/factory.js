// @ts-check
/**
 * The factory (`/looks/factory`): select pieces of the library, plan (the looks it proposes,
 * their cost and whether a model is ready; nothing is held), then confirm to draft them all in one
 * batch (nothing is spent either: each look is developed from its own page).
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { Loading, PageTitle, Refusal, tokens, useId, useTitle } from '../ui/common.js';
import { Thumb, remember } from '../ui/assets.js';

export default function Factory() {
  useTitle('Factory');
  const store = useStore();
  const powers = can();
  const [assets, setAssets] = useState(/** @type {import('../api.js').Asset[] | null} */ (null));
  const [selected, setSelected] = useState(/** @type {string[]} */ ([]));
  const [quality, setQuality] = useState('1k');
  const [plan, setPlan] = useState(/** @type {import('../api.js').FactoryPlan | null} */ (null));
  const [model, setModel] = useState('');
  const [drafted, setDrafted] = useState(/** @type {{id: string, name: string}[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const qualityId = useId('quality');
  const modelId = useId('model');
  useEffect(() => {
    api.listAssetsPage({ limit: 60 }).then((p) => {
      remember(p.assets);
      setAssets(p.assets);
    }, setError);
  }, []);
  const tiers = store.prices?.tools.find((t) => t.tool === 'lookbook')?.prices ?? [];

  const makePlan = async () => {
    setError(null);
    setDrafted(null);
    try {
      setPlan(await api.factoryPlan(selected, quality));
    } catch (e) {
      setError(e);
    }
  };
  const draft = async () => {
    if (!plan) return;
    setError(null);
    try {
      const res = await api.factoryRun({
        quality: plan.cost.quality,
        aesthetic: plan.preset.aesthetic || null,
        modelAssetId: plan.modelReady ? null : model || null,
        looks: plan.looks.map((l) => ({ name: l.name, itemAssetIds: l.itemAssetIds, background: l.background, variationKeys: l.variationKeys })),
      });
      setDrafted(res.looks);
      setPlan(null);
    } catch (e) {
      setError(e);
    }
  };

  return html`<section class="card">
    <p class="muted small"><a href="/looks">Looks</a></p>
    <${PageTitle}>Factory<//>
    <p class="muted">Select pieces; the factory groups them into looks (by hand-made group, then SKU) and prices them. Planning holds nothing.</p>
    ${assets === null
      ? html`<${Loading} />`
      : html`<ul class="pick-grid" aria-label="Library images">
          ${assets.map(
            (a) => html`<li key=${a.id} class=${selected.includes(a.id) ? 'picked' : ''}>
              <${Thumb} id=${a.id} alt="" />
              <label class="row small"><input type="checkbox" checked=${selected.includes(a.id)}
                onChange=${() => setSelected(selected.includes(a.id) ? selected.filter((s) => s !== a.id) : [...selected, a.id])} /> Select ${a.name}</label>
            </li>`,
          )}
        </ul>`}
    <div class="row">
      <div class="field"><label for=${qualityId}>Quality</label>
        <select id=${qualityId} value=${quality} onChange=${(/** @type {any} */ e) => setQuality(e.currentTarget.value)}>
          ${tiers.map((p) => html`<option value=${p.resolution}>${p.resolution} · ${tokens(p.tokens)} a frame</option>`)}
        </select></div>
      <button type="button" disabled=${selected.length === 0} onClick=${makePlan}>Plan</button>
    </div>
    <${Refusal} error=${error} />
    ${plan &&
    html`<section aria-label="Plan" class="stack">
      <h2>${plan.looks.length} ${plan.looks.length === 1 ? 'look' : 'looks'} proposed${plan.truncated ? ' (the first 50)' : ''}</h2>
      <ul class="list" aria-label="Proposed looks">
        ${plan.looks.map(
          (l) => html`<li key=${l.name}><strong>${l.name}</strong>
            <span class="muted">${l.itemAssetIds.map((i) => i.role).join(', ')} · grouped by ${l.groupedBy} · ${l.variationKeys.length} variations</span></li>`,
        )}
      </ul>
      <p>Developing them all: ${plan.cost.frames} frames × ${tokens(plan.cost.perFrame)} = <strong>${tokens(plan.cost.total)}</strong> at ${plan.cost.quality}; you have ${tokens(plan.balance)}.</p>
      ${plan.modelReady
        ? html`<p class="muted">The standing preset names a model.</p>`
        : html`<div class="field"><label for=${modelId}>Model</label>
            <select id=${modelId} value=${model} onChange=${(/** @type {any} */ e) => setModel(e.currentTarget.value)}>
              <option value="">choose the model</option>
              ${(assets ?? []).map((a) => html`<option value=${a.id}>${a.name}</option>`)}
            </select>
            <p class="hint">No model is set in the standing preset: choose one for these looks.</p></div>`}
      ${powers.write && html`<button type="button" class="primary" disabled=${!plan.modelReady && !model} onClick=${draft}>Draft ${plan.looks.length} ${plan.looks.length === 1 ? 'look' : 'looks'}</button>`}
      <p class="hint">Drafting spends nothing; each look is developed from its page.</p>
    </section>`}
    ${drafted &&
    html`<div class="notice" role="status"><p>Drafted ${drafted.length} ${drafted.length === 1 ? 'look' : 'looks'}:</p>
      <ul>${drafted.map((l) => html`<li key=${l.id}><a href=${`/looks/${encodeURIComponent(l.id)}`}>${l.name}</a></li>`)}</ul></div>`}
  </section>`;
}
