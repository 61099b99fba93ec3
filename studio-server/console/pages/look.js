// @ts-check
/**
 * One look (`/looks/{id}`): its picks; develop-lock with destination and quality, its whole price
 * on the button before anything is held; each frame's state live from the jobs socket; lock a
 * landed frame as the look's base, unlock; variations as a grid of keys with the total price
 * (a shot template selects the keys its shots frame), and the frames as a contact sheet.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { feed } from '../socket.js';
import { Loading, PageTitle, Refusal, tokens, useId, useTitle } from '../ui/common.js';
import { Thumb } from '../ui/assets.js';
import { OutputFields, framePrice, outputOf } from '../ui/output.js';
import { MoreTokens } from './develop.js';

/** @typedef {import('../ui/output.js').OutputChoice} OutputChoice */

/** @param {{id: string}} props */
export default function Look({ id }) {
  const store = useStore();
  const powers = can();
  const [detail, setDetail] = useState(/** @type {import('../api.js').LookDetail | null} */ (null));
  const [vocabulary, setVocabulary] = useState(/** @type {import('../api.js').Vocabulary | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [tick, setTick] = useState(0);
  useTitle(detail ? detail.look.name : 'Look');

  useEffect(() => {
    api.lookDetail(id).then(setDetail, setError);
  }, [id, tick]);
  useEffect(() => {
    api.lookVocabulary().then(setVocabulary, setError);
  }, []);
  // A change of one of this look's jobs: read the look again.
  useEffect(() => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let soon;
    const off = feed.subscribe((m) => {
      if (m.type !== 'job' || m.job.tool !== 'lookbook') return;
      clearTimeout(soon);
      soon = setTimeout(() => setTick((n) => n + 1), 150);
    });
    return () => {
      off();
      clearTimeout(soon);
    };
  }, []);

  if (!detail) return html`<section class="card"><${PageTitle}>Look<//>${error ? html`<${Refusal} error=${error} />` : html`<${Loading} />`}</section>`;
  const { look, variations, lockDevelop } = detail;
  const reload = () => setTick((n) => n + 1);
  const inFlight = [lockDevelop, ...variations].some((f) => f && (f.status === 'queued' || f.status === 'running'));
  /** @param {() => Promise<any>} fn */
  const act = async (fn) => {
    setError(null);
    try {
      await fn();
      reload();
    } catch (e) {
      setError(e);
    }
  };

  /** Every frame of the look: the develop-lock's, then the variations. */
  const frames = [
    ...(lockDevelop ? [{ key: 'base', label: 'Base frame', jobId: lockDevelop.id, status: lockDevelop.status, assetId: lockDevelop.resultAssetId ?? null, error: lockDevelop.error ?? null }] : []),
    ...variations.map((v) => ({ key: v.key, label: vocabulary?.variations.find((x) => x.key === v.key)?.name ?? v.key, jobId: v.jobId, status: v.status, assetId: v.assetId ?? null, error: v.error ?? null })),
  ];

  return html`<div class="sections">
    <section class="card">
      <p class="muted small"><a href="/looks">Looks</a></p>
      <${PageTitle}>${look.name}<//>
      <p>
        <span class=${`state state-${look.status === 'locked' ? 'done' : 'queued'}`}>${look.status}</span>
        <span class="muted"> · ${look.preset.aesthetic} · ${look.preset.background.kind === 'preset' ? look.preset.background.value : 'a library background'}</span>
      </p>
      <ul class="pick-row" aria-label="Picks">
        <li><${Thumb} id=${look.modelAssetId} alt="" /><span class="small">model</span></li>
        ${look.itemAssetIds.map((i) => html`<li key=${i.assetId}><${Thumb} id=${i.assetId} alt="" /><span class="small">${i.role}</span></li>`)}
      </ul>
      ${look.status === 'locked' && powers.write &&
      html`<button type="button" disabled=${inFlight} onClick=${() => act(() => api.unlockLook(look.id))}>Unlock</button>`}
      <${Refusal} error=${error} />
    </section>
    ${powers.spend && look.status === 'draft' &&
    html`<${SpendForm} kind="lock" look=${look} book=${store.prices} vocabulary=${vocabulary} onDone=${reload} />`}
    ${powers.spend && look.status === 'locked' &&
    html`<${SpendForm} kind="variations" look=${look} book=${store.prices} vocabulary=${vocabulary} onDone=${reload} />`}
    <section class="card" aria-labelledby="frames-title">
      <h2 id="frames-title">Frames</h2>
      ${frames.length === 0
        ? html`<p class="muted">No frame yet: develop the look to see it.</p>`
        : html`<ul class="contact-sheet" aria-label="Frames">
            ${frames.map(
              (f) => html`<li key=${f.jobId} aria-label=${f.label}>
                <figure>
                  ${f.assetId ? html`<a href=${`/assets/${encodeURIComponent(f.assetId)}`} aria-label=${`Open ${f.label}`}><${Thumb} id=${f.assetId} w=${512} alt="" /></a>` : html`<span class="thumb-box" aria-hidden="true"></span>`}
                  <figcaption>
                    <strong>${f.label}</strong>
                    <span role="status" aria-label=${`State of ${f.label}`} class=${`state state-${f.status}`}>${f.status}</span>
                    ${look.lookBaseAssetId && f.assetId === look.lookBaseAssetId ? html`<span class="small">the look’s base</span>` : ''}
                    ${f.error && html`<span class="small">${f.error}</span>`}
                  </figcaption>
                </figure>
                ${powers.write && f.status === 'done' && f.assetId && f.assetId !== look.lookBaseAssetId &&
                html`<button type="button" disabled=${inFlight} onClick=${() => act(() => api.lockLook(look.id, /** @type {string} */ (f.assetId)))}>Lock on ${f.label}</button>`}
              </li>`,
            )}
          </ul>`}
    </section>
  </div>`;
}

/**
 * Develop-lock (one base frame) or variations (one frame per key): quality and destination, the
 * whole price on the button, held only on the click.
 * @param {{kind: 'lock' | 'variations', look: import('../api.js').Look, book: import('../api.js').PriceBook | null,
 *   vocabulary: import('../api.js').Vocabulary | null, onDone: () => void}} props
 */
function SpendForm({ kind, look, book, vocabulary, onDone }) {
  const [choice, setChoice] = useState(/** @type {OutputChoice} */ ({ quality: look.plannedQuality ?? '1k', destination: 'frame', width: '', height: '' }));
  const [keys, setKeys] = useState(/** @type {string[]} */ (look.plannedVariationKeys ?? []));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [held, setHeld] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);
  const [idem, setIdem] = useState(api.newIdempotencyKey());
  const price = framePrice(book, choice);
  const count = kind === 'lock' ? 1 : keys.length;
  const total = price && 'perFrame' in price ? price.perFrame * count : null;
  const label = kind === 'lock' ? 'Develop look' : `Develop ${count} ${count === 1 ? 'variation' : 'variations'}`;

  const submit = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    setHeld(null);
    setBusy(true);
    try {
      const res =
        kind === 'lock'
          ? await api.developLock(look.id, choice.quality, outputOf(choice), idem)
          : await api.lookVariations(look.id, keys, choice.quality, outputOf(choice), idem);
      setHeld(`Held ${tokens(res.tokensHeld)}: charged as each frame lands, returned if it fails.`);
      setIdem(api.newIdempotencyKey());
      onDone();
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return html`<section class="card" aria-labelledby=${`${kind}-title`}>
    <h2 id=${`${kind}-title`}>${kind === 'lock' ? 'Develop the look' : 'Variations'}</h2>
    <form class="stack" onSubmit=${submit}>
      ${kind === 'variations' && html`<${TemplatePicker} vocabulary=${vocabulary} onApply=${setKeys} />`}
      ${kind === 'variations' &&
      html`<fieldset class="role-input"><legend>Frames to make</legend>
        <ul class="key-grid">
          ${(vocabulary?.variations ?? []).map(
            (v) => html`<li key=${v.key}><label class="row">
              <input type="checkbox" checked=${keys.includes(v.key)} onChange=${() => setKeys(keys.includes(v.key) ? keys.filter((k) => k !== v.key) : [...keys, v.key])} />
              <span><strong>${v.name}</strong><br /><span class="small muted">${v.note}</span></span>
            </label></li>`,
          )}
        </ul></fieldset>`}
      <${OutputFields} legend="Quality and destination" book=${book} vocabulary=${vocabulary} value=${choice} onChange=${setChoice} />
      ${price && 'refused' in price && html`<p class="hint" role="alert">${price.refused}</p>`}
      ${price && 'perFrame' in price &&
      html`<p class="muted">${count} ${count === 1 ? 'frame' : 'frames'} × ${tokens(price.perFrame)}${price.restoration ? ` (with a ${tokens(price.restoration)} restoration pass)` : ''}: held before anything develops.</p>`}
      <${Refusal} error=${error}>${error instanceof api.ApiError && error.code === 'INSUFFICIENT_TOKENS' && html`<${MoreTokens} />`}<//>
      ${held && html`<p class="notice">${held}</p>`}
      <button type="submit" class="primary" disabled=${busy || total === null || count === 0}>
        ${total === null ? label : `${label} · ${tokens(total)}`}
      </button>
    </form>
  </section>`;
}

/**
 * A shot template for the variations grid: its shots' framings become the selected keys (a
 * framing the vocabulary lacks is left out, one framed twice is one frame), so the grid's total
 * price follows. Nothing is held: the variations button still develops them.
 * @param {{vocabulary: import('../api.js').Vocabulary | null, onApply: (keys: string[]) => void}} props
 */
function TemplatePicker({ vocabulary, onApply }) {
  const [templates, setTemplates] = useState(/** @type {import('../api.js').ShotTemplate[] | null} */ (null));
  const [chosen, setChosen] = useState('');
  const [applied, setApplied] = useState(/** @type {{name: string, shots: import('../api.js').TemplateShot[], keys: string[]} | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const id = useId('template');
  useEffect(() => {
    api.lookTemplates().then((r) => {
      setTemplates(r.templates);
      setChosen(r.templates[0]?.id ?? '');
    }, setError);
  }, []);
  const name = (/** @type {string} */ key) => vocabulary?.variations.find((v) => v.key === key)?.name ?? key;
  const apply = async () => {
    if (!chosen || !vocabulary) return;
    setError(null);
    setBusy(true);
    try {
      const r = await api.lookTemplate(chosen);
      const known = vocabulary.variations.map((v) => v.key);
      const shots = [...r.shots].sort((a, b) => a.sort_order - b.sort_order);
      /** @type {string[]} */
      const keys = [];
      for (const s of shots) if (known.includes(s.framing) && !keys.includes(s.framing)) keys.push(s.framing);
      onApply(keys);
      setApplied({ name: r.template.name, shots, keys });
    } catch (e) {
      setError(e);
    }
    setBusy(false);
  };
  if (templates !== null && templates.length === 0) return null;
  return html`<div class="template-pick">
    <div class="row">
      <div class="field grow"><label for=${id}>Shot template</label>
        <select id=${id} value=${chosen} disabled=${!templates} onChange=${(/** @type {any} */ e) => setChosen(e.currentTarget.value)}>
          ${(templates ?? []).map((t) => html`<option key=${t.id} value=${t.id}>${t.name} (${t.shot_count} shots${t.organizationId ? ', the house’s own' : ''})</option>`)}
        </select></div>
      <button type="button" disabled=${busy || !chosen || !vocabulary} onClick=${apply}>Use template</button>
    </div>
    ${applied &&
    html`<p class="hint" role="status">${applied.name}: ${applied.shots.length} ${applied.shots.length === 1 ? 'shot' : 'shots'}, ${applied.keys.length} ${applied.keys.length === 1 ? 'frame' : 'frames'} selected (${applied.keys.map(name).join(', ')}). Nothing is held until you develop them.</p>
      <ol class="shot-list small" aria-label=${`Shots of ${applied.name}`}>
        ${applied.shots.map((s) => html`<li key=${s.id}><strong>${name(s.framing)}</strong> · ${s.pose}, ${s.expression}${s.type === 'motion' ? ' (a motion shot, made here as a still frame)' : ''}</li>`)}
      </ol>`}
    <${Refusal} error=${error} />
  </div>`;
}
