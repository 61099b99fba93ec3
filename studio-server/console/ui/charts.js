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

/** Bars beyond this many are drawn as columns (a series by day), fewer as labelled rows. */
const MAX_ROWS = 12;

/**
 * A bar chart: its title, then a row per bar (label, bar, value), so each bar reads on its own at
 * any width; a long series (days) is drawn as columns with its first and last label and its
 * largest value. One `img` whose accessible name carries every figure in words.
 * @param {{title: string, bars: {label: string, value: number}[], unit?: string}} props
 */
export function BarChart({ title, bars, unit = '' }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const words = `${title}: ${bars.map((b) => `${b.label} ${b.value}${unit}`).join(', ') || 'nothing yet'}`;
  if (bars.length === 0) {
    return html`<figure class="chart"><figcaption><strong>${title}</strong></figcaption>
      <p class="muted small" role="img" aria-label=${words}>Nothing yet.</p></figure>`;
  }
  if (bars.length > MAX_ROWS) {
    const w = 100 / bars.length;
    const top = bars.reduce((a, b) => (b.value > a.value ? b : a), bars[0]);
    return html`<figure class="chart">
      <figcaption><strong>${title}</strong> <span class="muted small">(highest: ${top.label}, ${top.value}${unit})</span></figcaption>
      <svg class="chart-columns" viewBox="0 0 100 50" preserveAspectRatio="none" role="img" aria-label=${words}>
        ${bars.map((b, i) => html`<rect class="bar" x=${i * w + w * 0.12} y=${50 - (b.value / max) * 48} width=${w * 0.76} height=${(b.value / max) * 48} />`)}
      </svg>
      <div class="chart-axis small muted" aria-hidden="true"><span>${bars[0].label}</span><span>${bars[bars.length - 1].label}</span></div>
    </figure>`;
  }
  return html`<figure class="chart">
    <figcaption><strong>${title}</strong></figcaption>
    <div class="chart-rows" role="img" aria-label=${words}>
      ${bars.map(
        (b) => html`<div class="chart-row" key=${b.label}>
          <span class="chart-label">${b.label}</span>
          <svg class="chart-track" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect class="bar" x="0" y="0" width=${b.value > 0 ? Math.max(0.8, (b.value / max) * 100) : 0} height="10" />
          </svg>
          <span class="chart-value">${b.value}${unit}</span>
        </div>`,
      )}
    </div>
  </figure>`;
}
