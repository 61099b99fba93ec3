// @ts-check
/** `html`: htm bound to Preact's `h`, the console's one way to write markup (no build step). */

import htm from './vendor/htm.mjs';
import { h } from './vendor/preact.mjs';

/** @type {(strings: TemplateStringsArray, ...values: any[]) => any} */
export const html = htm.bind(h);
