// @ts-check
/**
 * Where a frame came from. The API names a job's result but not its inputs, so the console
 * remembers, in this browser, the inputs of the develops it submitted (by job id), and finds
 * the job of a result among the jobs the socket's backfill delivered.
 */

import { feed } from '../socket.js';

/** @typedef {{role: string, assetId: string | null, name: string}} KnownInput */

const KEY = 'studio.console.inputs';

/** @returns {Record<string, KnownInput[]>} */
function all() {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
}

/**
 * Remember the inputs of a develop this console submitted.
 * @param {string} jobId
 * @param {KnownInput[]} inputs
 */
export function rememberInputs(jobId, inputs) {
  const map = all();
  map[jobId] = inputs;
  const ids = Object.keys(map);
  // Keep the newest 500 develops.
  for (const old of ids.slice(0, Math.max(0, ids.length - 500))) delete map[old];
  try {
    localStorage.setItem(KEY, JSON.stringify(map));
  } catch {
    // Storage full or off: the pages say the inputs are unknown.
  }
}

/** The inputs of a develop, when this browser submitted it. */
export function inputsOf(/** @type {string} */ jobId) {
  return all()[jobId] ?? null;
}

/** The job that made an asset, among the jobs the feed has seen. */
export function jobOfResult(/** @type {string} */ assetId) {
  for (const job of feed.jobs.values()) if (job.resultAssetId === assetId) return job;
  return null;
}
