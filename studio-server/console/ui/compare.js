// @ts-check
/**
 * Before and after: the input and the result stacked, with a slider that uncovers the result
 * (a range input, so it works by keyboard), and both side by side below for a plain look.
 */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';

/**
 * @param {{before: string, after: string, beforeLabel: string, afterLabel: string}} props
 */
export function Compare({ before, after, beforeLabel, afterLabel }) {
  const [split, setSplit] = useState(50);
  // The clip is written through the CSSOM (Preact sets style properties), which the strict CSP allows.
  const clip = { clipPath: `inset(0 0 0 ${split}%)` };
  return html`<figure class="compare-figure">
    <div class="compare">
      <img class="before" src=${before} alt=${beforeLabel} />
      <img class="after" src=${after} alt=${afterLabel} style=${clip} />
    </div>
    <label for="compare-range" class="visually-hidden">Before and after</label>
    <input
      id="compare-range"
      class="compare-range"
      type="range"
      min="0"
      max="100"
      value=${split}
      aria-valuetext=${`${split}% before, ${100 - split}% after`}
      onInput=${(/** @type {any} */ e) => setSplit(Number(e.currentTarget.value))}
    />
    <figcaption class="muted">Slide to compare: before on the left, after on the right.</figcaption>
  </figure>`;
}
