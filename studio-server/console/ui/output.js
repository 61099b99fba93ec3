// @ts-check
/**
 * Where a look's frame goes and what it costs: the quality and destination fields of a
 * develop-lock or a variation run, and the price the console shows before anything is held,
 * computed as the studio prices it (docs/lookbook.md): the lookbook tool's price at the quality,
 * plus, at 4k, a restoration pass priced as a 4k upscale when the place needs more pixels than the
 * frame gives. A quality too low for the place is not offered (the studio would refuse it).
 */

import { html } from '../html.js';
import { tokens, useId } from './common.js';

/** The pixels on the frame's long edge at each quality. */
const EDGE = /** @type {Record<string, number>} */ ({ '1k': 1024, '2k': 2048, '4k': 4096 });
/** The named places' pixels (the vocabulary's names say the same). */
const PLACES = /** @type {Record<string, [number, number]>} */ ({
  'web-tile': [1200, 1500],
  story: [1080, 1920],
  square: [1080, 1080],
  banner: [1920, 1080],
  'a4-print': [2480, 3508],
  'a3-print': [3508, 4961],
});
/** The A-series prints are composed at 2:3 and trimmed by this share of the frame. */
const PRINT_TRIM = 0.057;

/**
 * @typedef {{quality: string, destination: string, width: string, height: string}} OutputChoice
 */

/** The request's `output` for a choice (null: the bare frame). */
export function outputOf(/** @type {OutputChoice} */ c) {
  if (c.destination === 'frame') return null;
  if (c.destination === 'custom') return { destination: 'custom', width: Number(c.width), height: Number(c.height) };
  return { destination: c.destination };
}

/**
 * One frame's price for a choice, or why it cannot be had.
 * @param {import('../api.js').PriceBook | null} book
 * @param {OutputChoice} c
 * @returns {{perFrame: number, restoration: number} | {refused: string} | null}
 */
export function framePrice(book, c) {
  const tier = book?.tools.find((t) => t.tool === 'lookbook')?.prices.find((p) => p.resolution === c.quality)?.tokens;
  if (tier === undefined) return null;
  let need = 0;
  let trim = 0;
  if (c.destination === 'custom') {
    const w = Number(c.width);
    const h = Number(c.height);
    if (!(w >= 1 && h >= 1 && w <= 8192 && h <= 8192)) return { refused: 'Give a width and a height of 1 to 8,192 pixels.' };
    need = Math.max(w, h);
  } else if (PLACES[c.destination]) {
    need = Math.max(...PLACES[c.destination]);
    if (c.destination.endsWith('-print')) trim = PRINT_TRIM;
  }
  const gives = Math.floor(EDGE[c.quality] * (1 - trim));
  if (need <= gives) return { perFrame: tier, restoration: 0 };
  if (c.quality !== '4k') return { refused: `${c.quality} gives ${gives} px; this place needs ${need}: choose 4k.` };
  const upscale = book?.tools.find((t) => t.tool === 'upscale')?.prices.find((p) => p.resolution === '4k')?.tokens ?? 13;
  return { perFrame: tier + upscale, restoration: upscale };
}

/**
 * Quality and destination fields.
 * @param {{book: import('../api.js').PriceBook | null, vocabulary: import('../api.js').Vocabulary | null,
 *   value: OutputChoice, onChange: (c: OutputChoice) => void, legend: string}} props
 */
export function OutputFields({ book, vocabulary, value, onChange, legend }) {
  const qualityId = useId('quality');
  const destId = useId('destination');
  const tiers = book?.tools.find((t) => t.tool === 'lookbook')?.prices ?? [];
  const set = (/** @type {Partial<OutputChoice>} */ p) => onChange({ ...value, ...p });
  return html`<fieldset class="role-input">
    <legend>${legend}</legend>
    <div class="row">
      <div class="field">
        <label for=${qualityId}>Quality</label>
        <select id=${qualityId} value=${value.quality} onChange=${(/** @type {any} */ e) => set({ quality: e.currentTarget.value })}>
          ${tiers.map((p) => html`<option value=${p.resolution}>${p.resolution} · ${tokens(p.tokens)} a frame</option>`)}
        </select>
      </div>
      <div class="field">
        <label for=${destId}>Destination</label>
        <select id=${destId} value=${value.destination} onChange=${(/** @type {any} */ e) => set({ destination: e.currentTarget.value })}>
          <option value="frame">The frame itself (4:5)</option>
          ${(vocabulary?.destinations ?? []).map(
            (d) => html`<option value=${d.key}>${d.key === 'custom' ? 'Custom size' : `${d.key}: ${d.name}`}</option>`,
          )}
        </select>
      </div>
      ${value.destination === 'custom' &&
      html`<div class="field"><label for=${`${destId}-w`}>Width</label>
          <input id=${`${destId}-w`} type="number" min="1" max="8192" value=${value.width} onInput=${(/** @type {any} */ e) => set({ width: e.currentTarget.value })} /></div>
        <div class="field"><label for=${`${destId}-h`}>Height</label>
          <input id=${`${destId}-h`} type="number" min="1" max="8192" value=${value.height} onInput=${(/** @type {any} */ e) => set({ height: e.currentTarget.value })} /></div>`}
    </div>
  </fieldset>`;
}
