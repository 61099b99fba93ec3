// @ts-check
/**
 * Assets on screen: thumbnails from `w` renditions, and a cache of the assets the console has
 * listed (a picker's preselection looks here before it reads the asset).
 */

import { html } from '../html.js';
import * as api from '../api.js';

/** @typedef {import('../api.js').Asset} Asset */

/** @type {Map<string, Asset>} */
const known = new Map();

/** @type {Promise<import('../api.js').AssetList> | null} */
let early = null;

/** Ask for the library's first page now (at boot, alongside the session), for the page to take. */
export function prefetchFirstPage(/** @type {number} */ limit) {
  early = api.listAssetsPage({ limit });
  early.catch(() => {});
}

/** The prefetched first page, once (null when there is none). */
export function takeFirstPage() {
  const page = early;
  early = null;
  return page;
}

/** Remember listed or uploaded assets. */
export function remember(/** @type {Asset[]} */ assets) {
  for (const a of assets) known.set(a.id, a);
}

/** Forget deleted assets. */
export function forget(/** @type {string[]} */ ids) {
  for (const id of ids) known.delete(id);
}

/**
 * One asset's metadata: from the assets the console has listed, else the asset's own read (null
 * when the house has no such asset).
 * @param {string} id
 * @returns {Promise<Asset | null>}
 */
export async function findAsset(id) {
  const hit = known.get(id);
  if (hit) return hit;
  try {
    const detail = await api.assetDetail(id);
    remember([detail.asset]);
    return detail.asset;
  } catch (e) {
    if (e instanceof api.ApiError && e.status === 404) return null;
    throw e;
  }
}

/**
 * A thumbnail: the asset's rendition no wider than `w`, loaded lazily.
 * @param {{id: string, w?: 256 | 512 | 1024, alt?: string, className?: string, eager?: boolean}} props
 */
export function Thumb({ id, w = 256, alt = '', className, eager }) {
  return html`<img
    src=${api.assetFileUrl(id, w)}
    alt=${alt}
    class=${className}
    width=${w}
    height=${w}
    loading=${eager ? 'eager' : 'lazy'}
    decoding="async"
  />`;
}
