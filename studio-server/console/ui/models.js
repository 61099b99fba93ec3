// @ts-check
/** Models on screen: a model's cover as a small rendition when it is a library asset. */

/**
 * A picture URL of the board at thumbnail size: library files ask for their 256 rendition; a
 * model's own preview route is used as it is.
 * @param {string} url
 */
export function small(url) {
  return /^\/api\/toolkit\/assets\/[^/]+\/file$/.test(url) ? `${url}?w=256` : url;
}

/** A model's cover, small. */
export function coverOf(/** @type {{coverUrl: string}} */ model) {
  return small(model.coverUrl);
}
