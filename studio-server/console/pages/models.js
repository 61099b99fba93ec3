// @ts-check
/**
 * Models: the casting board (the house's own models and what it holds, then the catalog's free,
 * sale and exclusive faces) with covers and tiers; keep a model of the house's own frames; the
 * catalog (explore) to take a free face or buy one when billing is configured. One model's page
 * (`/models/{id}`): identity frames, traits (editable for the house's own), buy (the owner's
 * checkout), and cast into a develop or a look.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { navigate } from '../router.js';
import { can, useStore } from '../store.js';
import { Loading, PageTitle, Refusal, useId, useTitle } from '../ui/common.js';
import { Thumb, remember } from '../ui/assets.js';
import { coverOf, small } from '../ui/models.js';

/** "$12.00", or "free". */
const money = (/** @type {number} */ cents, /** @type {string} */ currency) =>
  cents ? new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100) : 'free';

/** @param {import('../router.js').PageProps} props */
export default function Models({ rest }) {
  if (rest[0]) return html`<${ModelPage} key=${rest[0]} id=${rest[0]} />`;
  return html`<${Board} />`;
}

function Board() {
  useTitle('Models');
  const store = useStore();
  const powers = can();
  const [models, setModels] = useState(/** @type {import('../api.js').Model[] | null} */ (null));
  const [offerings, setOfferings] = useState(/** @type {import('../api.js').Offering[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [tick, setTick] = useState(0);
  const billing = !!store.catalog?.provider;
  useEffect(() => {
    api.listModels().then((r) => setModels(r.models), setError);
    if (billing) api.explore().then((r) => setOfferings(r.offerings), setError);
  }, [tick, billing]);
  const take = async (/** @type {import('../api.js').Offering} */ o) => {
    setError(null);
    try {
      const res = await api.takeOffering(o.kind, o.id);
      if (res.pending && res.url) location.assign(res.url);
      else setTick((n) => n + 1);
    } catch (e) {
      setError(e);
    }
  };
  return html`<div class="sections">
    <div class="toolbar"><${PageTitle}>Models<//></div>
    <${Refusal} error=${error} />
    <section class="card wide" aria-labelledby="board-title">
      <h2 id="board-title">Casting board</h2>
      ${models === null
        ? html`<${Loading} />`
        : models.length === 0
          ? html`<p class="muted">No models yet: keep one of your own frames below${billing ? ', or take one from the catalog' : ''}.</p>`
          : html`<ul class="grid" aria-label="Casting board">
              ${models.map(
                (m) => html`<li class="tile" key=${m.id}>
                  <a href=${`/models/${encodeURIComponent(m.id)}`} aria-label=${m.name}>
                    <img src=${coverOf(m)} alt="" width="256" height="256" loading="lazy" />
                    <span class="name">${m.name}</span>
                  </a>
                  <span class="tile-meta small muted">${m.tier}${m.mine ? ' · the house’s own' : m.owned ? ' · held' : ` · ${money(m.priceCents, m.currency)}`}${m.usable ? '' : ' · not castable yet'}</span>
                </li>`,
              )}
            </ul>`}
    </section>
    ${powers.write && html`<${OwnModel} onKept=${(/** @type {string} */ id) => navigate(`/models/${encodeURIComponent(id)}`)} />`}
    ${billing &&
    html`<section class="card wide" aria-labelledby="explore-title">
      <h2 id="explore-title">Catalog</h2>
      ${offerings === null
        ? html`<${Loading} />`
        : offerings.length === 0
          ? html`<p class="muted">The catalog is empty.</p>`
          : html`<ul class="grid" aria-label="Catalog">
              ${offerings.map(
                (o) => html`<li class="tile" key=${o.id}>
                  <img src=${small(o.previewUrl)} alt=${o.name} width="256" height="256" loading="lazy" />
                  <span class="name">${o.name}</span>
                  <span class="tile-meta small muted">${o.kind} · ${money(o.priceCents, o.currency)}${o.exclusive ? ' · exclusive' : ''}</span>
                  ${o.owned
                    ? html`<span class="tile-meta"><span class="state state-done">Yours</span></span>`
                    : (o.priceCents ? powers.pay : powers.write) &&
                      html`<span class="tile-meta"><button type="button" onClick=${() => take(o)}>${o.priceCents ? `Buy ${o.name} · ${money(o.priceCents, o.currency)}` : `Take ${o.name}`}</button></span>`}
                </li>`,
              )}
            </ul>`}
    </section>`}
  </div>`;
}

/** Keep a model of the house's own frames (free). */
function OwnModel({ onKept }) {
  const [assets, setAssets] = useState(/** @type {import('../api.js').Asset[] | null} */ (null));
  const [picked, setPicked] = useState(/** @type {string[]} */ ([]));
  const [name, setName] = useState('');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const nameId = useId('model-name');
  useEffect(() => {
    api.listAssetsPage({ limit: 60 }).then((p) => {
      remember(p.assets);
      setAssets(p.assets);
    }, setError);
  }, []);
  const submit = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    try {
      const res = await api.ownModel({ name: name.trim(), assetIds: picked });
      onKept(res.model.id);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card wide" aria-labelledby="own-title">
    <h2 id="own-title">Keep a model of your own frames</h2>
    <form class="stack" onSubmit=${submit}>
      <div class="field"><label for=${nameId}>Model name</label>
        <input id=${nameId} value=${name} required onInput=${(/** @type {any} */ e) => setName(e.currentTarget.value)} /></div>
      ${assets === null
        ? html`<${Loading} />`
        : html`<ul class="pick-grid" aria-label="Library images">
            ${assets.map(
              (a) => html`<li key=${a.id} class=${picked.includes(a.id) ? 'picked' : ''}>
                <${Thumb} id=${a.id} alt="" />
                <label class="row small"><input type="checkbox" checked=${picked.includes(a.id)}
                  onChange=${() => setPicked(picked.includes(a.id) ? picked.filter((x) => x !== a.id) : [...picked, a.id])} /> Frame ${a.name}</label>
              </li>`,
            )}
          </ul>`}
      <${Refusal} error=${error} />
      <button type="submit" class="primary" disabled=${picked.length === 0}>Keep model</button>
      <p class="hint">Free. The first frame picked is the model's reference.</p>
    </form>
  </section>`;
}

/** @param {{id: string}} props */
function ModelPage({ id }) {
  const store = useStore();
  const powers = can();
  const [model, setModel] = useState(/** @type {import('../api.js').Model | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [traits, setTraits] = useState('');
  const [saved, setSaved] = useState(false);
  const traitsId = useId('traits');
  useTitle(model ? model.name : 'Model');
  useEffect(() => {
    api.getModel(id).then((r) => {
      setModel(r.model);
      setTraits(Object.entries(r.model.traits ?? {}).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(', ') : v}`).join('\n'));
    }, setError);
  }, [id]);
  if (!model) return html`<section class="card"><${PageTitle}>Model<//>${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  const billing = !!store.catalog?.provider;
  const saveTraits = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    /** @type {Record<string, string>} */
    const out = {};
    for (const line of traits.split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    try {
      setModel((await api.patchModel(model.id, { traits: out })).model);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  const buy = async () => {
    setError(null);
    try {
      const res = await api.checkoutModel(model.id);
      if (res.url) location.assign(res.url);
    } catch (err) {
      setError(err);
    }
  };
  const reference = model.identityAssetIds[0] ?? model.assetIds[0];
  return html`<div class="sections">
    <section class="card">
      <p class="muted small"><a href="/models">Models</a></p>
      <${PageTitle}>${model.name}<//>
      <p class="muted">${model.tier}${model.mine ? ' · the house’s own' : model.owned ? ' · held by the house' : ` · ${money(model.priceCents, model.currency)}`}${model.note ? ` · ${model.note}` : ''}</p>
      <ul class="contact-sheet" aria-label="Identity frames">
        ${model.previewUrls.map((u, i) => html`<li key=${u}><img src=${small(u)} alt=${`${model.name}, identity frame ${i + 1}`} width="256" height="256" loading="lazy" /></li>`)}
      </ul>
      ${model.usable && powers.spend &&
      html`<div class="row">
        <a class="button primary" href=${`/develop?model=${encodeURIComponent(model.id)}`}>Cast into a develop</a>
        ${reference && html`<a class="button" href=${`/looks/new?model=${encodeURIComponent(reference)}`}>Cast into a look</a>`}
      </div>`}
      ${!model.usable && !model.mine && !model.owned && billing && model.priceCents > 0 && powers.pay &&
      html`<button type="button" class="primary" onClick=${buy}>Buy ${model.name} · ${money(model.priceCents, model.currency)}</button>`}
      ${!model.usable && !billing && html`<p class="muted">This face is sold through the studio's billing, which is not configured here.</p>`}
      <${Refusal} error=${error} />
    </section>
    <section class="card" aria-labelledby="traits-title">
      <h2 id="traits-title">Traits</h2>
      ${model.mine && powers.write
        ? html`<form class="stack" onSubmit=${saveTraits}>
            <label for=${traitsId}>Traits, one a line as name=value</label>
            <textarea id=${traitsId} rows="4" value=${traits} onInput=${(/** @type {any} */ e) => setTraits(e.currentTarget.value)}></textarea>
            ${saved && html`<p class="notice" role="status">The traits are saved.</p>`}
            <button type="submit">Save traits</button>
          </form>`
        : Object.keys(model.traits ?? {}).length
          ? html`<dl class="meta">${Object.entries(model.traits).map(([k, v]) => html`<dt>${k}</dt><dd>${Array.isArray(v) ? v.join(', ') : String(v)}</dd>`)}</dl>`
          : html`<p class="muted">No traits noted.</p>`}
    </section>
  </div>`;
}
