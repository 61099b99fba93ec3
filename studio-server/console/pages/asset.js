// @ts-check
/**
 * One asset: the image (the 1024 rendition), its metadata, where it came from (the develop that
 * made it and, when this browser submitted it, its inputs), and what may be done with it.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { feed } from '../socket.js';
import { navigate } from '../router.js';
import { Loading, PageTitle, Refusal, formatBytes, formatWhen, useTitle } from '../ui/common.js';
import { Thumb, findAsset, forget, remember } from '../ui/assets.js';
import { inputsOf, jobOfResult } from '../ui/provenance.js';

/** @param {import('../router.js').PageProps} props */
export default function AssetPage({ rest }) {
  useStore();
  const powers = can();
  const id = rest[0] ?? '';
  const [asset, setAsset] = useState(/** @type {import('../api.js').Asset | null | undefined} */ (undefined));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [, tick] = useState(0);
  useTitle(asset ? asset.name : 'Asset');

  useEffect(() => {
    setAsset(undefined);
    findAsset(id).then(setAsset, setError);
  }, [id]);
  // The job that made it arrives with the socket's backfill.
  useEffect(() => feed.subscribe(() => tick((n) => n + 1)), []);

  if (error) return html`<${Refusal} error=${error} />`;
  if (asset === undefined) return html`<${Loading} what="Loading the asset" />`;
  if (asset === null)
    return html`<section class="card"><${PageTitle}>Not found<//><p>No such asset in this house. <a href="/library">Back to the library</a>.</p></section>`;

  const job = jobOfResult(asset.id);
  const inputs = job ? inputsOf(job.id) : null;

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
      ${!asset.tool
        ? html`<p>Uploaded to the library.</p>`
        : html`<p>
            Developed with <strong>${asset.tool}</strong>${job
              ? html` by <a href=${`/develop/${encodeURIComponent(job.id)}`}>develop ${job.id}</a>`
              : ''}.
          </p>
          ${inputs
            ? html`<ul class="list">
                ${inputs.map(
                  (i) => html`<li>
                    ${i.assetId ? html`<${Thumb} id=${i.assetId} className="run-thumb" />` : ''}
                    <span class="grow">${i.role}: ${i.assetId ? html`<a href=${`/assets/${encodeURIComponent(i.assetId)}`}>${i.name}</a>` : i.name}</span>
                  </li>`,
                )}
              </ul>`
            : html`<p class="muted">Its inputs are not known here (the API does not list a develop's inputs).</p>`}`}
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
