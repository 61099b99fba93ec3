// @ts-check
/**
 * Figures as pictures, drawn as inline SVG (no library): a progress strip (a run's line, one
 * segment per state) and a bar chart (usage and costs). Each carries its figures in words too,
 * for assistive technology and for whoever would rather read.
 */

import { html } from '../html.js';

/**
 * A strip of done / failed / cancelled / still active, proportional to the counts.
 * @param {{label: string, counts: {done: number, failed: number, cancelled: number, active: number, total: number}}} props
 */
export function ProgressStrip({ label, counts }) {
  const total = Math.max(1, counts.total);
  const parts = /** @type {[string, number][]} */ ([
    ['done', counts.done],
    ['failed', counts.failed],
    ['cancelled', counts.cancelled],
    ['active', counts.active],
  ]);
  let x = 0;
  const words = `${label}: ${counts.done} of ${counts.total} done${counts.failed ? `, ${counts.failed} failed` : ''}${counts.cancelled ? `, ${counts.cancelled} cancelled` : ''}${counts.active ? `, ${counts.active} to go` : ''}`;
  return html`<div class="strip">
    <svg viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label=${words}>
      ${parts.map(([state, n]) => {
        const w = (n / total) * 100;
        const rect = html`<rect class=${`strip-${state}`} x=${x} y="0" width=${w} height="6" />`;
        x += w;
        return rect;
      })}
    </svg>
    <span class="small muted" aria-hidden="true">${words}</span>
  </div>`;
}

/**
 * Vertical bars with their values, labels under them.
 * @param {{title: string, bars: {label: string, value: number}[], unit?: string}} props
 */
export function BarChart({ title, bars, unit = '' }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const w = 100 / Math.max(1, bars.length);
  return html`<figure class="chart">
    <svg viewBox="0 0 100 50" preserveAspectRatio="none" role="img" aria-label=${`${title}: ${bars.map((b) => `${b.label} ${b.value}${unit}`).join(', ') || 'nothing yet'}`}>
      ${bars.map(
        (b, i) => html`<rect class="bar" x=${i * w + w * 0.15} y=${50 - (b.value / max) * 46} width=${w * 0.7} height=${(b.value / max) * 46} />`,
      )}
    </svg>
    <figcaption>
      <strong>${title}</strong>
      <ul class="chart-legend">
        ${bars.map((b) => html`<li>${b.label}: ${b.value}${unit}</li>`)}
      </ul>
    </figcaption>
  </figure>`;
}
