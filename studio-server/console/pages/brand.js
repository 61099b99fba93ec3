// @ts-check
/**
 * Brand: the house's profile (vision, vibe, palette, signature details, whether develops carry
 * it, and the colour space and metadata its outputs are written with) with the exact clause it
 * produces; the DNA read from dropped or picked images, its price
 * shown first (the house's first read is free); the marks (logo renditions) of the house and of
 * each collection (library folder).
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { Loading, PageTitle, Refusal, tokens, useId, useTitle } from '../ui/common.js';
import { Thumb, remember } from '../ui/assets.js';
import { MoreTokens } from './develop.js';

/** The price of a read after the first (docs/brand.md). */
const DNA_PRICE = 2;

const list = (/** @type {string} */ s) => s.split(',').map((x) => x.trim()).filter(Boolean);

export default function Brand() {
  useTitle('Brand');
  useStore();
  const powers = can();
  const [profile, setProfile] = useState(/** @type {import('../api.js').BrandProfile | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    api.brand().then((r) => setProfile(r.profile), setError);
  }, []);
  return html`<div class="sections">
    <div class="toolbar"><${PageTitle}>Brand<//></div>
    <${Refusal} error=${error} />
    ${profile === null
      ? html`<${Loading} />`
      : html`<${ProfileForm} key=${profile.dnaRuns} profile=${profile} onSaved=${setProfile} write=${powers.write} />
          <section class="card" aria-labelledby="clause-title">
            <h2 id="clause-title">The clause develops carry</h2>
            ${profile.clause
              ? html`<blockquote class="clause" aria-label="Clause">${profile.clause}</blockquote>`
              : html`<p class="muted" aria-label="Clause">${profile.injectEnabled ? 'Empty: fill the profile or read the DNA.' : 'Off: develops carry no clause.'}</p>`}
          </section>
          ${powers.spend && html`<${DnaRead} profile=${profile} onRead=${setProfile} />`}`}
    <${Marks} write=${powers.write} />
  </div>`;
}

/**
 * @param {{profile: import('../api.js').BrandProfile, onSaved: (p: import('../api.js').BrandProfile) => void, write: boolean}} props
 */
function ProfileForm({ profile, onSaved, write }) {
  const [vision, setVision] = useState(profile.visionEn);
  const [vibe, setVibe] = useState(profile.vibe.join(', '));
  const [palette, setPalette] = useState(profile.palette.join(', '));
  const [details, setDetails] = useState(profile.signatureKeywords.map((k) => `${k.category}: ${k.phrase}`).join('\n'));
  const [carry, setCarry] = useState(profile.injectEnabled);
  const [colour, setColour] = useState(profile.colour.output);
  const [metadata, setMetadata] = useState(profile.metadata.output);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [saved, setSaved] = useState(false);
  const id = useId('brand');
  const submit = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      const res = await api.updateBrand({
        visionEn: vision,
        vibe: list(vibe),
        palette: list(palette),
        signatureKeywords: details
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => {
            const at = l.indexOf(':');
            return at > 0 ? { category: l.slice(0, at).trim(), phrase: l.slice(at + 1).trim() } : { category: '', phrase: l };
          }),
        injectEnabled: carry,
        colour: { output: colour },
        metadata: { output: metadata },
      });
      onSaved(res.profile);
      setSaved(true);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card" aria-labelledby="profile-title">
    <h2 id="profile-title">Profile</h2>
    <form class="stack" onSubmit=${submit}>
      <fieldset disabled=${!write} class="stack plain">
        <div class="field"><label for=${`${id}-vision`}>Vision</label>
          <textarea id=${`${id}-vision`} rows="2" maxlength="500" value=${vision} onInput=${(/** @type {any} */ e) => setVision(e.currentTarget.value)}></textarea></div>
        <div class="field"><label for=${`${id}-vibe`}>Vibe</label>
          <input id=${`${id}-vibe`} value=${vibe} aria-describedby=${`${id}-vibe-hint`} onInput=${(/** @type {any} */ e) => setVibe(e.currentTarget.value)} />
          <p class="hint" id=${`${id}-vibe-hint`}>Words separated by commas, at most 8.</p></div>
        <div class="field"><label for=${`${id}-palette`}>Palette</label>
          <input id=${`${id}-palette`} value=${palette} aria-describedby=${`${id}-palette-hint`} onInput=${(/** @type {any} */ e) => setPalette(e.currentTarget.value)} />
          <p class="hint" id=${`${id}-palette-hint`}>Colours as #rrggbb or names, separated by commas.</p>
          <ul class="swatches" aria-label="Palette swatches">
            ${profile.palette.map((c) => html`<li><span class="swatch" data-colour=${c} ref=${paint}></span>${c}</li>`)}
          </ul></div>
        <div class="field"><label for=${`${id}-details`}>Signature details</label>
          <textarea id=${`${id}-details`} rows="3" value=${details} aria-describedby=${`${id}-details-hint`} onInput=${(/** @type {any} */ e) => setDetails(e.currentTarget.value)}></textarea>
          <p class="hint" id=${`${id}-details-hint`}>One a line, as category: phrase (cut: raw hems).</p></div>
        <label class="row"><input type="checkbox" checked=${carry} onChange=${() => setCarry(!carry)} /> Develops carry the clause</label>
        <div class="field"><label for=${`${id}-colour`}>Colour space of outputs</label>
          <select id=${`${id}-colour`} value=${colour} aria-describedby=${`${id}-colour-hint`} onChange=${(/** @type {any} */ e) => setColour(e.currentTarget.value)}>
            <option value="srgb">sRGB</option>
            <option value="keep">The input’s own</option>
          </select>
          <p class="hint" id=${`${id}-colour-hint`}>Develops and packs’ resized images. “The input’s own” keeps Adobe RGB or Display P3; an input in CMYK or without a profile comes out in sRGB either way.</p></div>
        <div class="field"><label for=${`${id}-metadata`}>Metadata outputs keep</label>
          <select id=${`${id}-metadata`} value=${metadata} aria-describedby=${`${id}-metadata-hint`} onChange=${(/** @type {any} */ e) => setMetadata(e.currentTarget.value)}>
            <option value="rights">Rights and credit only</option>
            <option value="all">Everything the input carries</option>
            <option value="none">Nothing</option>
          </select>
          <p class="hint" id=${`${id}-metadata-hint`}>Rights and credit: creator, copyright, credit line and usage terms; location and camera serials are left out.</p></div>
      </fieldset>
      <${Refusal} error=${error} />
      ${saved && html`<p class="notice" role="status">The profile is saved.</p>`}
      ${write && html`<button type="submit" class="primary">Save profile</button>`}
    </form>
  </section>`;
}

/** A swatch's colour, set through the CSSOM (the policy allows no inline style attribute). */
function paint(/** @type {HTMLElement | null} */ el) {
  if (el) el.style.background = el.dataset.colour ?? '';
}

/**
 * The DNA read: images dropped or picked, the vibe and products as hints, the price first.
 * @param {{profile: import('../api.js').BrandProfile, onRead: (p: import('../api.js').BrandProfile) => void}} props
 */
function DnaRead({ profile, onRead }) {
  const [files, setFiles] = useState(/** @type {File[]} */ ([]));
  const [products, setProducts] = useState('');
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [done, setDone] = useState('');
  const id = useId('dna');
  const price = profile.dnaRuns === 0 ? 0 : DNA_PRICE;
  const add = (/** @type {FileList | null | undefined} */ list) => {
    if (list) setFiles((f) => [...f, ...Array.from(list)].slice(0, 10));
  };
  const read = async () => {
    setError(null);
    setDone('');
    setBusy(true);
    try {
      const res = await api.readBrandDna(files, profile.vibe, products);
      onRead(res.profile);
      setDone(`Read. ${res.charged ? `Charged ${tokens(res.charged)}.` : 'Nothing was charged.'}`);
      setFiles([]);
    } catch (e) {
      setError(e);
    }
    setBusy(false);
  };
  return html`<section class="card" aria-labelledby="dna-title">
    <h2 id="dna-title">Read the DNA from images</h2>
    <p class="muted">The reader looks at 1 to 10 of the house's images and fills the profile. ${profile.dnaRuns === 0 ? 'The first read is free.' : `Each read after the first costs ${tokens(DNA_PRICE)}; a failed read costs nothing.`}</p>
    <div class=${over ? 'drop over' : 'drop'} role="region" aria-label="Images to read"
      onDragOver=${(/** @type {DragEvent} */ e) => { e.preventDefault(); setOver(true); }}
      onDragLeave=${() => setOver(false)}
      onDrop=${(/** @type {DragEvent} */ e) => { e.preventDefault(); setOver(false); add(e.dataTransfer?.files); }}>
      <input id=${id} class="upload-input" type="file" multiple accept="image/jpeg,image/png,image/webp,image/gif" onChange=${(/** @type {any} */ e) => { add(e.currentTarget.files); e.currentTarget.value = ''; }} />
      <label for=${id} class="button">Images for the DNA read</label>
      <span class="muted"> or drop them here. ${files.length ? `${files.length} chosen: ${files.map((f) => f.name).join(', ')}` : ''}</span>
    </div>
    <div class="field"><label for=${`${id}-products`}>Products (optional)</label>
      <input id=${`${id}-products`} value=${products} onInput=${(/** @type {any} */ e) => setProducts(e.currentTarget.value)} /></div>
    <${Refusal} error=${error}>${error instanceof api.ApiError && error.code === 'INSUFFICIENT_TOKENS' && html`<${MoreTokens} />`}<//>
    ${done && html`<p class="notice" role="status">${done}</p>`}
    <button type="button" class="primary" disabled=${busy || files.length === 0} onClick=${read}>Read the DNA · ${price ? tokens(price) : 'free'}</button>
  </section>`;
}

/** The marks of the house, and of one collection (a library folder), which rides over the house's when it has any. */
function Marks({ write }) {
  const [folders, setFolders] = useState(/** @type {import('../api.js').Folder[]} */ ([]));
  const [collection, setCollection] = useState('');
  const [marks, setMarks] = useState(/** @type {{house: import('../api.js').Mark[], collection: import('../api.js').Mark[], riding: string} | null} */ (null));
  const [assets, setAssets] = useState(/** @type {import('../api.js').Asset[]} */ ([]));
  const [asset, setAsset] = useState('');
  const [material, setMaterial] = useState('');
  const [placement, setPlacement] = useState('');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [tick, setTick] = useState(0);
  const id = useId('marks');
  useEffect(() => {
    api.listFolders().then((r) => setFolders(r.folders), setError);
    api.listAssetsPage({ limit: 60 }).then((p) => {
      remember(p.assets);
      setAssets(p.assets);
    }, setError);
  }, []);
  useEffect(() => {
    api.listMarks(collection || null).then(setMarks, setError);
  }, [collection, tick]);
  const add = async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    setError(null);
    try {
      await api.createMark({ assetId: asset, material, placement: placement || null, collectionId: collection || null });
      setMaterial('');
      setPlacement('');
      setTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (/** @type {string} */ markId) => {
    setError(null);
    try {
      await api.deleteMark(markId);
      setTick((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const shown = marks ? (collection ? marks.collection : marks.house) : [];
  return html`<section class="card" aria-labelledby="marks-title">
    <h2 id="marks-title">Marks</h2>
    <div class="field"><label for=${`${id}-where`}>Marks of</label>
      <select id=${`${id}-where`} value=${collection} onChange=${(/** @type {any} */ e) => setCollection(e.currentTarget.value)}>
        <option value="">the house</option>
        ${folders.map((f) => html`<option value=${f.id}>the collection ${f.name}</option>`)}
      </select></div>
    ${marks && collection && html`<p class="muted">Develops in this collection carry ${marks.riding === 'collection' ? 'its own marks' : 'the house’s marks (it has none of its own)'}.</p>`}
    ${marks === null
      ? html`<${Loading} />`
      : shown.length === 0
        ? html`<p class="muted">No marks here yet.</p>`
        : html`<ul class="list" aria-label="Marks">
            ${shown.map((m) => html`<li key=${m.id}><${Thumb} id=${m.assetId} className="run-thumb" />
              <div class="grow"><strong>${m.filename}</strong> <span class="muted">${m.material}${m.placement ? ` · ${m.placement}` : ''}</span></div>
              ${write && html`<button type="button" aria-label=${`Remove the mark ${m.filename}`} onClick=${() => remove(m.id)}>Remove</button>`}</li>`)}
          </ul>`}
    ${write &&
    html`<form class="row" onSubmit=${add} aria-label="Add a mark">
      <div class="field"><label for=${`${id}-asset`}>Mark image</label>
        <select id=${`${id}-asset`} value=${asset} required onChange=${(/** @type {any} */ e) => setAsset(e.currentTarget.value)}>
          <option value="">choose a library image</option>
          ${assets.map((a) => html`<option value=${a.id}>${a.name}</option>`)}
        </select></div>
      <div class="field"><label for=${`${id}-material`}>Material</label>
        <input id=${`${id}-material`} value=${material} required placeholder="woven label" onInput=${(/** @type {any} */ e) => setMaterial(e.currentTarget.value)} /></div>
      <div class="field"><label for=${`${id}-placement`}>Placement (optional)</label>
        <input id=${`${id}-placement`} value=${placement} onInput=${(/** @type {any} */ e) => setPlacement(e.currentTarget.value)} /></div>
      <button type="submit">Add mark</button>
    </form>`}
    <${Refusal} error=${error} />
  </section>`;
}
