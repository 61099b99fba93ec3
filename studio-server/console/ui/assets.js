// @ts-check
/**
 * Assets on screen: thumbnails from `w` renditions, and a cache of the assets the console has
 * listed (the API has no JSON read of one asset, so a detail page first looks here and
 * otherwise walks the pages of the library).
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
 * One asset's metadata: from the cache, else from the library's pages (newest first, at most
 * `maxPages` pages of 200).
 * @param {string} id
 * @returns {Promise<Asset | null>}
 */
export async function findAsset(id, maxPages = 10) {
  const hit = known.get(id);
  if (hit) return hit;
  /** @type {string | null | undefined} */
  let cursor = null;
  for (let i = 0; i < maxPages; i++) {
    const page = await api.listAssetsPage({ limit: 200, cursor });
    remember(page.assets);
    const found = page.assets.find((a) => a.id === id);
    if (found) return found;
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return null;
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
