// @ts-check
/** A page of part 2 (looks, pipelines, brand, models, support, admin) before it is built. */

import { html } from '../html.js';
import { PageTitle, useTitle } from '../ui/common.js';

/** @param {import('../router.js').PageProps} props */
export default function Later({ page }) {
  const title = page.charAt(0).toUpperCase() + page.slice(1);
  useTitle(title);
  return html`<section class="card">
    <${PageTitle}>${title}<//>
    <p>This part of the studio is not in the console yet. Everything it does is in the API (<a href="/docs">/docs</a>) and the command-line tool.</p>
  </section>`;
}
