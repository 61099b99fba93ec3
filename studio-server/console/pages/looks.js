// @ts-check
/**
 * Looks: the house's looks (newest first), a new look from library picks (a model, items by
 * role, a background, an aesthetic), the shot templates, and the ways on: one look's page
 * (pages/look.js, `/looks/{id}`) and the factory (pages/factory.js, `/looks/factory`).
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { navigate } from '../router.js';
import { can, useStore } from '../store.js';
import { Loading, PageTitle, Refusal, formatWhen, useId, useTitle } from '../ui/common.js';
import { Thumb, remember } from '../ui/assets.js';
import Look from './look.js';
import Factory from './factory.js';

/** @param {import('../router.js').PageProps} props */
export default function Looks(props) {
  const sub = props.rest[0];
  if (sub === 'factory') return html`<${Factory} />`;
  if (sub === 'new') return html`<${NewLook} model=${props.query.get('model')} />`;
  if (sub) return html`<${Look} key=${sub} id=${sub} />`;
  return html`<${LookList} />`;
}

function LookList() {
  useTitle('Looks');
  useStore();
  const powers = can();
  const [looks, setLooks] = useState(/** @type {import('../api.js').Look[] | null} */ (null));
  const [templates, setTemplates] = useState(/** @type {import('../api.js').ShotTemplate[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    api.listLooks().then((r) => setLooks(r.looks), setError);
    api.lookTemplates().then((r) => setTemplates(r.templates), () => setTemplates([]));
  }, []);
  return html`<section class="stack">
    <div class="toolbar">
      <${PageTitle}>Looks<//>
      ${powers.write &&
      html`<div class="row">
        <a class="button primary" href="/looks/new">New look</a>
        <a class="button" href="/looks/factory">Factory</a>
      </div>`}
    </div>
    <${Refusal} error=${error} />
    ${looks === null
      ? html`<${Loading} what="Loading looks" />`
      : looks.length === 0
        ? html`<p class="empty">No looks yet. A look puts pieces of the library on a model; develop it once, lock the frame you like, then vary it.</p>`
        : html`<ul class="grid" aria-label="Looks">
            ${looks.map(
              (l) => html`<li class="tile" key=${l.id}>
                <a href=${`/looks/${encodeURIComponent(l.id)}`} aria-label=${l.name}>
                  <${Thumb} id=${l.lookBaseAssetId ?? l.modelAssetId} />
                  <span class="name">${l.name}</span>
                </a>
                <span class="tile-meta muted small">${l.status} · ${l.itemAssetIds.length} pieces · ${formatWhen(l.createdAt)}</span>
              </li>`,
            )}
          </ul>`}
    <section class="card" aria-labelledby="templates-title">
      <h2 id="templates-title">Shot templates</h2>
      <p class="muted">A template is a set of shots. On a locked look, under Variations, “Use template” selects the frames its shots need; nothing is held until you develop them.</p>
      ${templates === null
        ? html`<${Loading} />`
        : templates.length === 0
          ? html`<p class="muted">No templates.</p>`
          : html`<ul class="list" aria-label="Templates">
              ${templates.map(
                (t) => html`<li key=${t.id}><strong>${t.name}</strong>
                  <span class="muted">${t.shot_count} shots${t.slots.length ? ` for ${t.slots.join(', ')}` : ''}${t.organizationId ? ' · the house’s own' : ' · built in'}</span></li>`,
              )}
            </ul>`}
    </section>
  </section>`;
}

/**
 * The new-look form: every library image of the newest page with a role select; `?model=` (a
 * model's page casting it) starts with that asset as the model.
 * @param {{model: string | null}} props
 */
function NewLook({ model: cast }) {
  useTitle('New look');
  useStore();
  const powers = can();
  const [assets, setAssets] = useState(/** @type {import('../api.js').Asset[] | null} */ (null));
  const [vocabulary, setVocabulary] = useState(/** @type {import('../api.js').Vocabulary | null} */ (null));
  const [roles, setRoles] = useState(/** @type {Record<string, string>} */ (cast ? { [cast]: 'model' } : {}));
  const [name, setName] = useState('');
  const [ground, setGround] = useState('white');
  const [aesthetic, setAesthetic] = useState('editorial');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const nameId = useId('look-name');
  const groundId = useId('ground');
  const aestheticId = useId('aesthetic');
  useEffect(() => {
    api.listAssetsPage({ limit: 60 }).then((p) => {
      remember(p.assets);
      setAssets(p.assets);
    }, setError);
    api.lookVocabulary().then(setVocabulary, setError);
  }, []);
  if (!powers.write) return html`<section class="card"><${PageTitle}>New look<//><p>Your seat is a viewer's: it cannot make looks.</p></section>`;

  const picked = Object.entries(roles).filter(([, r]) => r);
  const model = picked.find(([, r]) => r === 'model')?.[0];
  const background = picked.find(([, r]) => r === 'background')?.[0];
  const items = picked.filter(([, r]) => r !== 'model' && r !== 'background').map(([assetId, role]) => ({ assetId, role }));

  /** @param {SubmitEvent} e */
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const res = await api.createLook({
        name: name.trim() || null,
        modelAssetId: model ?? null,
        itemAssetIds: items,
        background: background ? { kind: 'asset', assetId: background } : { kind: 'preset', value: ground },
        aesthetic,
      });
      navigate(`/looks/${encodeURIComponent(res.look.id)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  /** @param {string} id @param {string} role */
  const setRole = (id, role) =>
    setRoles((all) => {
      const copy = { ...all };
      // One model and one background: choosing another moves the role.
      if (role === 'model' || role === 'background') for (const k of Object.keys(copy)) if (copy[k] === role) copy[k] = '';
      copy[id] = role;
      return copy;
    });

  return html`<section class="card">
    <${PageTitle}>New look<//>
    <p class="muted">Nothing develops and nothing is charged: a look is its picks until you develop it.</p>
    <form class="stack" onSubmit=${submit} aria-label="New look">
      <div class="field"><label for=${nameId}>Look name</label>
        <input id=${nameId} value=${name} onInput=${(/** @type {any} */ e) => setName(e.currentTarget.value)} required /></div>
      <fieldset class="role-input">
        <legend>Picks from the library: one model, up to ${vocabulary?.maxItemsPerLook ?? 8} pieces by role</legend>
        ${assets === null
          ? html`<${Loading} />`
          : assets.length === 0
            ? html`<p class="muted">The library is empty: <a href="/library">upload the model and the pieces</a> first.</p>`
            : html`<ul class="pick-grid" aria-label="Library images">
                ${assets.map(
                  (a) => html`<li key=${a.id} class=${roles[a.id] ? 'picked' : ''}>
                    <${Thumb} id=${a.id} alt="" />
                    <label class="small" for=${`role-${a.id}`}>Role of ${a.name}</label>
                    <select id=${`role-${a.id}`} value=${roles[a.id] ?? ''} onChange=${(/** @type {any} */ e) => setRole(a.id, e.currentTarget.value)}>
                      <option value="">not in the look</option>
                      <option value="model">model</option>
                      <option value="background">background</option>
                      ${(vocabulary?.itemRoles ?? []).map((r) => html`<option value=${r}>${r}</option>`)}
                    </select>
                  </li>`,
                )}
              </ul>`}
      </fieldset>
      <div class="row">
        <div class="field"><label for=${groundId}>Background</label>
          <select id=${groundId} value=${ground} disabled=${!!background} onChange=${(/** @type {any} */ e) => setGround(e.currentTarget.value)}>
            ${(vocabulary?.backgrounds ?? []).map((b) => html`<option value=${b.key}>${b.name}</option>`)}
          </select></div>
        <div class="field"><label for=${aestheticId}>Aesthetic</label>
          <select id=${aestheticId} value=${aesthetic} onChange=${(/** @type {any} */ e) => setAesthetic(e.currentTarget.value)}>
            ${(vocabulary?.aesthetics ?? []).map((a) => html`<option value=${a.key}>${a.name}: ${a.note}</option>`)}
          </select></div>
      </div>
      <p class="hint">${model ? 'A model' : 'No model yet'}, ${items.length} ${items.length === 1 ? 'piece' : 'pieces'}${background ? ', a background from the library' : ''}.</p>
      <${Refusal} error=${error} />
      <button type="submit" class="primary" disabled=${busy || !model || items.length === 0}>Create look</button>
    </form>
  </section>`;
}
