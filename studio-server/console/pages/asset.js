// @ts-check
/**
 * One asset: the image (the 1024 rendition), its metadata, where it came from (the asset's
 * detail read: the develop that made it, its tool and quality, and each of its inputs), what its
 * content credentials say (read from its file), and what may be done with it.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { navigate } from '../router.js';
import { Loading, PageTitle, Refusal, formatBytes, formatWhen, useTitle } from '../ui/common.js';
import { Thumb, forget, remember } from '../ui/assets.js';

/** @param {import('../router.js').PageProps} props */
export default function AssetPage({ rest }) {
  useStore();
  const powers = can();
  const id = rest[0] ?? '';
  const [asset, setAsset] = useState(/** @type {import('../api.js').Asset | null | undefined} */ (undefined));
  const [origin, setOrigin] = useState(/** @type {import('../api.js').AssetOrigin | null} */ (null));
  const [credentials, setCredentials] = useState(/** @type {import('../api.js').ProvenanceReport | null | undefined} */ (undefined));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  useTitle(asset ? asset.name : 'Asset');

  useEffect(() => {
    let live = true;
    setAsset(undefined);
    setOrigin(null);
    setCredentials(undefined);
    setError(null);
    // Read apart: a file whose credentials cannot be read still shows the rest of the page.
    api.assetProvenance(id).then(
      (r) => live && setCredentials(r),
      () => live && setCredentials(null),
    );
    api.assetDetail(id).then(
      (d) => {
        if (!live) return;
        remember([d.asset]);
        setAsset(d.asset);
        setOrigin(d.origin);
      },
      (e) => {
        if (!live) return;
        if (e instanceof api.ApiError && e.status === 404) setAsset(null);
        else setError(e);
      },
    );
    return () => {
      live = false;
    };
  }, [id]);

  if (error) return html`<${Refusal} error=${error} />`;
  if (asset === undefined) return html`<${Loading} what="Loading the asset" />`;
  if (asset === null)
    return html`<section class="card"><${PageTitle}>Not found<//><p>No such asset in this house. <a href="/library">Back to the library</a>.</p></section>`;

  /** @param {SubmitEvent} e */
  const rename = async (e) => {
    e.preventDefault();
    const name = String(new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)).get('name') ?? '').trim();
    try {
      const res = await api.patchAsset(asset.id, { name });
      remember([res.asset]);
      setAsset(res.asset);
      setRenaming(false);
    } catch (err) {
      setError(err);
    }
  };
  const remove = async () => {
    try {
      await api.deleteAssets([asset.id]);
      forget([asset.id]);
      navigate('/library');
    } catch (err) {
      setError(err);
    }
  };

  return html`<div class="detail">
    <div>
      <p><a href=${asset.folderId ? `/library?folder=${encodeURIComponent(asset.folderId)}` : '/library'}>← Library</a></p>
      <img class="detail-image" src=${api.assetFileUrl(asset.id, 1024)} alt=${asset.name} />
    </div>
    <section class="card" aria-label="About this asset">
      ${renaming
        ? html`<form class="stack" onSubmit=${rename}>
            <label for="asset-name">Name</label>
            <input id="asset-name" name="name" value=${asset.name} required />
            <div class="row"><button type="submit" class="primary">Save</button><button type="button" onClick=${() => setRenaming(false)}>Cancel</button></div>
          </form>`
        : html`<${PageTitle}>${asset.name}<//>`}
      <dl class="meta">
        <dt>Kind</dt><dd>${asset.kind}</dd>
        ${asset.sku && html`<dt>SKU</dt><dd>${asset.sku}</dd>`}
        <dt>Size</dt><dd>${asset.width && asset.height ? `${asset.width} × ${asset.height} px, ` : ''}${formatBytes(asset.bytes)}</dd>
        <dt>Type</dt><dd>${asset.mime}</dd>
        <dt>Added</dt><dd>${formatWhen(asset.createdAt)}</dd>
        ${asset.approvedBy && html`<dt>Approved</dt><dd>${asset.approvedBy}, ${formatWhen(asset.approvedAt)}</dd>`}
      </dl>
      <h2>Where it came from</h2>
      ${origin
        ? html`<${Origin} origin=${origin} />`
        : asset.tool
          ? html`<p>Developed with <strong>${asset.tool}</strong>; the develop that made it is not on record.</p>`
          : html`<p>Uploaded to the library.</p>`}
      <h2>Content credentials</h2>
      ${credentials === undefined
        ? html`<p class="muted">Reading the file's credentials…</p>`
        : credentials === null
          ? html`<p class="muted">The credentials could not be read just now.</p>`
          : html`<${Credentials} report=${credentials} />`}
      <h2>Actions</h2>
      <div class="row">
        ${powers.spend && html`<a class="button primary" href=${`/develop?image=${encodeURIComponent(asset.id)}`}>Develop from this</a>`}
        <a class="button" href=${api.assetFileUrl(asset.id)} download=${asset.name}>Download original</a>
        ${powers.write && !renaming && html`<button type="button" onClick=${() => setRenaming(true)}>Rename</button>`}
        ${powers.write &&
        (confirming
          ? html`<span class="row" role="group" aria-label="Confirm delete">
              <button type="button" class="danger" onClick=${remove}>Delete for good</button>
              <button type="button" onClick=${() => setConfirming(false)}>Keep</button>
            </span>`
          : html`<button type="button" class="danger" onClick=${() => setConfirming(true)}>Delete</button>`)}
      </div>
    </section>
  </div>`;
}

/**
 * The develop that made an asset and each of its inputs: a library image (its thumbnail, a link
 * to it), a library image since deleted, or a fresh upload that was never kept in the library.
 * @param {{origin: import('../api.js').AssetOrigin}} props
 */
function Origin({ origin }) {
  const develop = html`<a href=${`/develop/${encodeURIComponent(origin.jobId)}`}>develop ${origin.jobId}</a>`;
  return html`<p>
      Made by ${develop}: <strong>${origin.tool}</strong> at ${origin.quality} quality, ${origin.status}, ${formatWhen(origin.createdAt)}.
    </p>
    ${origin.inputs.length === 0
      ? html`<p class="muted">It took no input image.</p>`
      : html`<ul class="list inputs" aria-label="Inputs">
          ${origin.inputs.map(
            (i, n) => html`<li key=${`${i.role}-${n}`}>
              <span class="input-role">${i.role}</span>
              ${i.assetId && i.name !== null
                ? html`<a class="input-link" href=${`/assets/${encodeURIComponent(i.assetId)}`}>
                    <${Thumb} id=${i.assetId} className="run-thumb" />
                    <span>${i.name}</span>
                  </a>`
                : i.assetId
                  ? html`<span class="muted">a library image, since deleted</span>`
                  : html`<span class="muted">a fresh upload (not kept in the library)</span>`}
            </li>`,
          )}
        </ul>`}`;
}

/** The IPTC digital source types Studio writes, in words. */
const SOURCE_WORDS = /** @type {Record<string, string>} */ ({
  algorithmicallyEnhanced: 'a photograph enhanced by an algorithm',
  composite: 'a composite of photographs',
  trainedAlgorithmicMedia: 'made by a trained AI model',
  compositeWithTrainedAlgorithmicMedia: 'photographs combined with the work of a trained AI model',
  digitalCapture: 'a camera capture',
});

/**
 * What an asset's content credentials (C2PA) say: the verdict in a sentence, how the image was
 * made, and the manifest's actions and ingredients (docs/provenance.md).
 * @param {{report: import('../api.js').ProvenanceReport}} props
 */
function Credentials({ report }) {
  if (!report.hasCredentials) return html`<p>No content credentials: the file does not say how it was made.</p>`;
  const signer = report.signer ?? 'an unnamed signer';
  const verdict =
    report.validation === 'trusted'
      ? `Intact, signed by ${signer} (this studio's own signature).`
      : report.validation === 'valid'
        ? `Intact, signed by ${signer}, a signer this studio has no trust list for.`
        : `Altered or malformed: these credentials do not verify${report.error ? ` (${report.error})` : ''}.`;
  const source = report.digitalSourceType;
  return html`<p class=${report.validation === 'invalid' ? 'error' : ''}>${verdict}</p>
    ${source && html`<p>How it was made: ${SOURCE_WORDS[source] ?? source} (<code>${source}</code>).</p>`}
    <ul class="list" aria-label="Credential actions">
      ${report.actions.map(
        (a, n) => html`<li key=${`${a.action}-${n}`}><span><code>${a.action}</code>${a.softwareAgent ? ` by ${a.softwareAgent}` : ''}</span></li>`,
      )}
      ${report.ingredients.map(
        (i, n) => html`<li key=${`ingredient-${n}`}>${i.relationship ?? 'ingredient'}: ${i.title ?? 'untitled'}${
          i.validation ? `, its own credentials ${i.validation}` : ''
        }</li>`,
      )}
    </ul>
    ${report.validation === 'invalid' &&
    html`<ul class="list" aria-label="Findings">
      ${report.findings
        .filter((f) => f.code !== 'signingCredential.untrusted')
        .map((f) => html`<li key=${f.code}><span><code>${f.code}</code> ${f.explanation ?? ''}</span></li>`)}
    </ul>`}`;
}
