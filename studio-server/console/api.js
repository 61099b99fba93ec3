// @ts-check
/**
 * The console's one way to the API: a thin layer over `fetch`, one function per operation of
 * `/openapi.json`, named as the typed client (`studio-client`) names them. Requests go to this
 * origin only, with the browser's session cookie (`credentials: 'same-origin'`); bodies are JSON
 * unless a file travels (multipart). A refusal becomes an {@link ApiError} carrying the envelope
 * `{error, message, ...extra}` and a sentence for people ({@link ApiError#words}).
 */

/** @typedef {'owner' | 'admin' | 'member' | 'viewer'} SeatRole */
/** @typedef {{id: string, email: string, name: string | null, createdAt: string}} User */
/** @typedef {{id: string, name: string, createdAt: string}} Organization */
/** @typedef {{user: User, organization: Organization, role: SeatRole}} SessionInfo */
/** @typedef {{user: User, organization: Organization}} SignUpResponse */
/**
 * @typedef {{id: string, name: string | null, email: string, emailVerified: boolean, image: string | null,
 *   joinedAt: string}} Profile
 */
/** @typedef {{organizationId: string, name: string, role: SeatRole, active: boolean, founder: boolean}} MyHouse */
/** @typedef {{profile: Profile, houses: MyHouse[], admin: boolean}} MeView */
/** @typedef {{organizationId: string, organizationName: string, role: SeatRole}} ActiveHouse */
/** @typedef {{balance: number, grant: number, topup: number, held: number, holds: {id: string, amount: number, generationId: string | null, createdAt: string}[]}} Balance */
/** @typedef {{resolution: string, tokens: number}} Price */
/**
 * A tool of the price book: its price at each quality, and the input roles it requires (in
 * order) and may take.
 * @typedef {{tool: string, prices: Price[], roles?: string[]}} ToolPrice
 */
/** @typedef {{tools: ToolPrice[], note: string}} PriceBook */
/** @typedef {{slug: string, tokens: number, priceUsd: number}} TokenPack */
/** @typedef {{provider: string | null, tiers: any[], packs: TokenPack[]}} BillingCatalog */
/** @typedef {{id: string, name: string, parentId: string | null, createdAt: string}} Folder */
/**
 * @typedef {{id: string, name: string, sku: string | null, kind: string, url: string, folderId: string | null,
 *   groupId: string | null, fit: string | null, wearer: string | null, mime: string, tool: string | null,
 *   bytes: number, width: number | null, height: number | null, sha256: string, approvedBy: string | null,
 *   approvedAt: string | null, createdAt: string}} Asset
 */
/** @typedef {{assets: Asset[], nextCursor?: string}} AssetList */
/**
 * One input of the develop that made an asset: a library asset (`assetId`, `name`, `url`), a
 * library asset since deleted (`assetId` only), or a fresh upload (all three null).
 * @typedef {{role: string, assetId: string | null, name: string | null, url: string | null}} OriginInput
 */
/**
 * @typedef {{jobId: string, tool: string, quality: string, status: JobStatus, createdAt: string,
 *   inputs: OriginInput[]}} AssetOrigin
 */
/** @typedef {{asset: Asset, origin: AssetOrigin | null}} AssetDetail */
/** @typedef {{id: string, deleted: boolean, movedAssets: number, movedFolders: number}} FolderDeleted */
/** @typedef {{asset: Asset}} UploadResponse */
/**
 * @typedef {{packId: string, status: string, filename: string, href?: string | null, frames?: number,
 *   bytes?: number | null, error?: string | null}} Pack
 */
/** @typedef {'queued' | 'running' | 'done' | 'failed' | 'cancelled'} JobStatus */
/**
 * @typedef {{id: string, tool: string, status: JobStatus, resultUrl: string | null, resultAssetId: string | null,
 *   error: string | null, brandId: string | null, createdAt: string, eventSeq: number}} Job
 */
/**
 * @typedef {{jobId: string, tool: string, status: JobStatus, resultUrl: string | null,
 *   resultAssetId: string | null, error: string | null, tokensEstimated: number,
 *   tokensSettled: number | null, createdAt: string, finishedAt: string | null}} DevelopStatus
 */
/** @typedef {{jobId: string, status: JobStatus, tokensHeld: number, replayed?: boolean}} SubmitResponse */
/**
 * @typedef {{id: string, kind: string, tool: string, title: string, stage: string | null, lookId: string | null,
 *   state: string, counts: {total: number, done: number, failed: number, cancelled: number, active: number},
 *   createdAt: string, finishedAt: string | null, thumbAssetId: string | null, jobIds: string[],
 *   againCost: number}} DevelopRun
 */
/**
 * @typedef {{id: string, name: string, role: 'viewer' | 'member', prefix: string, lastUsedAt: string | null,
 *   revokedAt: string | null, createdAt: string, key?: string | null}} ApiKey
 */
/** @typedef {{userId: string, email: string, name: string | null, role: SeatRole, joinedAt: string}} Seat */
/**
 * @typedef {{id: string, email: string, role: SeatRole, organizationId: string, organizationName: string,
 *   expiresAt: string, url: string}} SeatInvitation
 */
/** @typedef {{organizationId: string, seats: Seat[], invitations: SeatInvitation[]}} SeatList */
/**
 * @typedef {{kind: string, id: string, title: string, highlight: {field: string, text: string,
 *   ranges: {start: number, end: number}[]}, score: number, createdAt: string, url?: string | null,
 *   assetKind?: string | null, sku?: string | null, folderId?: string | null, folder?: string | null,
 *   status?: string | null, scope?: string | null}} SearchResult
 */
/** @typedef {{results: SearchResult[], nextCursor?: string | null}} SearchResults */
/** @typedef {{profile: Profile, plan: any, tokens: any, invoices: any[], billing: any}} AccountView */

/** A refusal by the server (the shared envelope), or a request that got no answer (status 0). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {Record<string, any>} [extra]
   */
  constructor(status, code, message, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }

  /** The refusal in words for people: what was needed and what was there. */
  get words() {
    const x = this.extra;
    switch (this.code) {
      case 'INSUFFICIENT_TOKENS':
        if (typeof x.need === 'number' && typeof x.spendable === 'number') {
          return `Not enough tokens: this needs ${x.need}, you have ${x.spendable}. Nothing was held.`;
        }
        return `Not enough tokens. ${this.message}`;
      case 'IMAGE_TOO_LARGE':
        return typeof x.maxMb === 'number' ? `Too large: each image is at most ${x.maxMb} MB.` : this.message;
      case 'UNSUPPORTED_TYPE':
      case 'EMPTY_FILE':
      case 'BAD_IMAGE':
        return this.message;
      case 'UNAUTHORIZED':
        return 'You are signed out. Sign in again.';
      case 'FORBIDDEN':
        return `Your seat cannot do this. ${this.message}`;
      case 'BAD_ORIGIN':
        return 'The request came from another site and was refused.';
      case 'RATE_LIMITED':
        return typeof x.retryAfter === 'number'
          ? `Too many tries: wait ${x.retryAfter} seconds and try again.`
          : 'Too many tries: wait a moment and try again.';
      case 'NETWORK':
        return this.message;
      default:
        return this.message || `The studio refused (${this.status}).`;
    }
  }
}

/**
 * Turn an answer into its JSON, or throw the refusal it carries.
 * @param {Response} res
 * @returns {Promise<any>}
 */
async function read(res) {
  const text = await res.text();
  /** @type {any} */
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (res.ok) return body;
  if (body && typeof body.error === 'string') {
    const { error, message, ...extra } = body;
    throw new ApiError(res.status, error, String(message ?? ''), extra);
  }
  throw new ApiError(res.status, `HTTP_${res.status}`, text.slice(0, 300) || res.statusText);
}

/**
 * One call to the API.
 * @param {string} method
 * @param {string} path  a path of this origin, query included
 * @param {{json?: any, form?: FormData}} [body]
 * @returns {Promise<any>}
 */
export async function call(method, path, body = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  /** @type {BodyInit | undefined} */
  let payload;
  if (body.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body.form) {
    payload = body.form;
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The studio could not be reached. Check the connection and try again.');
  }
  const value = await read(res);
  for (const hook of afterWrite) if (method !== 'GET') hook(method, path);
  return value;
}

/** @type {((method: string, path: string) => void)[]} */
const afterWrite = [];

/**
 * Be told after every write that succeeded (the shell refreshes the balance after spends).
 * @param {(method: string, path: string) => void} hook
 */
export function onWrite(hook) {
  afterWrite.push(hook);
}

const get = (/** @type {string} */ path) => call('GET', path);
const post = (/** @type {string} */ path, /** @type {any} */ json = {}) => call('POST', path, { json });
const patch = (/** @type {string} */ path, /** @type {any} */ json) => call('PATCH', path, { json });
const del = (/** @type {string} */ path) => call('DELETE', path);

/** Percent-encode a path segment (ids are opaque). */
export const enc = encodeURIComponent;

/**
 * A query string from the pairs that have a value.
 * @param {Record<string, string | number | null | undefined>} pairs
 */
export function query(pairs) {
  const parts = Object.entries(pairs)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

// Accounts and sessions.

/** @returns {Promise<SignUpResponse>} */
export const signUp = (/** @type {string} */ email, /** @type {string} */ password, /** @type {string | null} */ name) =>
  post('/api/auth/sign-up', { email, password, name: name || null });
/** @returns {Promise<SignUpResponse>} */
export const signIn = (/** @type {string} */ email, /** @type {string} */ password) =>
  post('/api/auth/sign-in', { email, password });
/** @returns {Promise<{signedOut: boolean}>} */
export const signOut = () => post('/api/auth/sign-out');
/** @returns {Promise<SessionInfo>} */
export const session = () => get('/api/auth/session');
/** @returns {Promise<MeView>} */
export const me = () => get('/api/me');
/** @returns {Promise<ActiveHouse>} */
export const switchHouse = (/** @type {string} */ organizationId) => post('/api/auth/switch-house', { organizationId });
/** @returns {Promise<any>} */
export const verifyEmail = (/** @type {string} */ token) => post('/api/auth/verify-email', { token });
/** @returns {Promise<any>} */
export const resendVerification = () => post('/api/auth/verify-email/resend');
/** @returns {Promise<{ok: boolean}>} */
export const requestPasswordReset = (/** @type {string} */ email) => post('/api/auth/password-reset', { email });
/** @returns {Promise<any>} */
export const confirmPasswordReset = (/** @type {string} */ token, /** @type {string} */ password) =>
  post('/api/auth/password-reset/confirm', { token, password });
/** @returns {Promise<AccountView>} */
export const account = () => get('/api/account');
/** @returns {Promise<AccountView>} */
export const updateAccount = (/** @type {{name: string}} */ changes) => patch('/api/account', changes);
/** @returns {Promise<any>} */
export function uploadAvatar(/** @type {File} */ file) {
  const form = new FormData();
  form.append('file', file, file.name);
  return call('POST', '/api/account/avatar', { form });
}
/** @returns {Promise<any>} */
export const deleteAvatar = () => del('/api/account/avatar');

// Keys and seats.

/** @returns {Promise<{keys: ApiKey[]}>} */
export const listKeys = () => get('/api/keys');
/** @returns {Promise<ApiKey>} */
export const mintKey = (/** @type {string} */ name, /** @type {'viewer' | 'member'} */ role) =>
  post('/api/keys', { name, role });
/** @returns {Promise<{revoked: boolean, id: string}>} */
export const revokeKey = (/** @type {string} */ id) => del(`/api/keys/${enc(id)}`);
/** @returns {Promise<SeatList>} */
export const seats = () => get('/api/toolkit/org/seats');
/** @returns {Promise<SeatInvitation>} */
export const inviteSeat = (/** @type {string} */ email, /** @type {SeatRole} */ role) =>
  post('/api/toolkit/org/seats/invite', { email, role });
/** @returns {Promise<ActiveHouse>} */
export const acceptSeat = (/** @type {string} */ invitationId) => post('/api/toolkit/org/seats/accept', { invitationId });
/** @returns {Promise<any>} */
export const setSeatRole = (/** @type {string} */ userId, /** @type {SeatRole} */ role) =>
  post('/api/toolkit/org/seats/role', { userId, role });
/** @returns {Promise<any>} */
export const removeSeat = (/** @type {string} */ userId) => del(`/api/toolkit/org/seats/${enc(userId)}`);

// Tokens and money.

/** @returns {Promise<Balance>} */
export const balance = () => get('/api/toolkit/ai/billing/balance');
/** @returns {Promise<PriceBook>} */
export const prices = () => get('/api/toolkit/ai/billing/prices');
/** @returns {Promise<BillingCatalog>} */
export const billingCatalog = () => get('/api/toolkit/ai/billing/catalog');
/** @returns {Promise<{url: string}>} */
export const checkoutTopup = (/** @type {string} */ pack) => post('/api/toolkit/ai/billing/checkout/topup', { pack });

// The library.

/** @returns {Promise<{folders: Folder[]}>} */
export const listFolders = () => get('/api/toolkit/folders');
/** @returns {Promise<{folder: Folder}>} */
export const createFolder = (/** @type {string} */ name, /** @type {string | null} */ parentId = null) =>
  post('/api/toolkit/folders', { name, parentId });
/** @returns {Promise<{folder: Folder}>} */
export const renameFolder = (/** @type {string} */ id, /** @type {string} */ name) =>
  patch(`/api/toolkit/folders/${enc(id)}`, { name });
/**
 * Delete a folder: its assets and sub-folders move up to its parent (the root when it has
 * none); no asset is deleted.
 * @returns {Promise<FolderDeleted>}
 */
export const deleteFolder = (/** @type {string} */ id) => del(`/api/toolkit/folders/${enc(id)}`);

/**
 * One page of assets, newest first.
 * @param {{folderId?: string | null, limit?: number, cursor?: string | null}} q
 * @returns {Promise<AssetList>}
 */
export const listAssetsPage = (q) =>
  get(`/api/toolkit/assets${query({ folderId: q.folderId, limit: q.limit ?? 100, cursor: q.cursor })}`);

/**
 * One asset as JSON, with the develop that made it and that develop's inputs (`origin`, null
 * for an upload).
 * @returns {Promise<AssetDetail>}
 */
export const assetDetail = (/** @type {string} */ id) => get(`/api/toolkit/assets/${enc(id)}/detail`);

/** The widths the file route renders thumbnails at. */
export const WIDTHS = /** @type {const} */ ([256, 512, 1024]);

/**
 * The file route of an asset: its original, or a rendition no wider than `w`.
 * @param {string} id
 * @param {256 | 512 | 1024} [w]
 */
export const assetFileUrl = (id, w) => `/api/toolkit/assets/${enc(id)}/file${w ? `?w=${w}` : ''}`;

/**
 * Upload one file, reporting progress. XMLHttpRequest, because fetch cannot report an upload's
 * progress; same origin, same cookie, same envelope as every other call.
 * @param {File} file
 * @param {{folderId?: string | null, name?: string}} options
 * @param {(sent: number, total: number) => void} [progress]
 * @returns {Promise<UploadResponse>}
 */
export function uploadAsset(file, options, progress) {
  const form = new FormData();
  if (options.folderId) form.append('folderId', options.folderId);
  if (options.name) form.append('name', options.name);
  form.append('file', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/toolkit/assets/upload');
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => progress?.(e.loaded, e.total || file.size);
    xhr.onerror = () =>
      reject(new ApiError(0, 'NETWORK', 'The upload did not reach the studio. Check the connection and try again.'));
    xhr.onload = () => {
      const res = new Response(xhr.responseText, { status: xhr.status });
      read(res).then((value) => {
        for (const hook of afterWrite) hook('POST', '/api/toolkit/assets/upload');
        resolve(value);
      }, reject);
    };
    xhr.send(form);
  });
}

/** @returns {Promise<{deleted: number}>} */
export const deleteAssets = (/** @type {string[]} */ assetIds) => post('/api/toolkit/assets/batch/delete', { assetIds });
/** @returns {Promise<{asset: Asset}>} */
export const patchAsset = (/** @type {string} */ id, /** @type {Record<string, any>} */ changes) =>
  patch(`/api/toolkit/assets/${enc(id)}`, changes);
/** @returns {Promise<{updated: number}>} */
export const patchAssetsBatch = (/** @type {Record<string, any>} */ req) => patch('/api/toolkit/assets/batch', req);

/** @returns {Promise<Pack>} */
export const createPack = (/** @type {string[]} */ assetIds, /** @type {string | undefined} */ name = undefined) =>
  post('/api/toolkit/assets/pack', { assetIds, name });
/** @returns {Promise<Pack>} */
export const getPack = (/** @type {string} */ id) => get(`/api/toolkit/packs/${enc(id)}`);
export const packFileUrl = (/** @type {string} */ id) => `/api/toolkit/packs/${enc(id)}/file`;

// Develops.

/**
 * Submit a develop: the tool, its quality, options, and inputs by role (a library asset's id
 * or a fresh file). Always keyed, so a repeated click holds nothing twice.
 * @param {{tool: string, quality: string, params?: Record<string, string>,
 *   inputs: {role: string, asset?: string, file?: File}[], idempotencyKey?: string}} d
 * @returns {Promise<SubmitResponse>}
 */
export function submitDevelop(d) {
  const form = new FormData();
  form.append('tool', d.tool);
  form.append('idempotencyKey', d.idempotencyKey ?? newIdempotencyKey());
  form.append('quality', d.quality);
  for (const [k, v] of Object.entries(d.params ?? {})) if (v !== '') form.append(k, v);
  for (const input of d.inputs) {
    if (input.file) form.append(input.role, input.file, input.file.name);
    else if (input.asset) form.append(input.role, input.asset);
  }
  return call('POST', '/api/toolkit/jobs/submit', { form });
}

/** A fresh idempotency key. */
export function newIdempotencyKey() {
  return `console-${crypto.randomUUID()}`;
}

/** @returns {Promise<DevelopStatus>} */
export const job = (/** @type {string} */ id) => get(`/api/toolkit/jobs/${enc(id)}`);
/** @returns {Promise<{jobs: Job[]}>} */
export const jobsSince = (/** @type {number} */ since) => get(`/api/toolkit/jobs?since=${since}`);
/** @returns {Promise<{id: string, cancelled: boolean, state: JobStatus, tokensReleased: number, reason: string | null}>} */
export const cancelJob = (/** @type {string} */ id) => post(`/api/toolkit/jobs/${enc(id)}/cancel`);
/** @returns {Promise<{jobId: string, status: JobStatus, cost: number}>} */
export const duplicateJob = (/** @type {string} */ id) =>
  post(`/api/toolkit/jobs/${enc(id)}/duplicate`, { idempotencyKey: newIdempotencyKey() });
/** @returns {Promise<{runs: DevelopRun[]}>} */
export const listRuns = (/** @type {boolean} */ activeOnly = false, /** @type {number} */ limit = 50) =>
  get(`/api/toolkit/develops${query({ state: activeOnly ? 'active' : 'all', limit })}`);
/** @returns {Promise<any>} */
export const cancelRun = (/** @type {string} */ id) => post(`/api/toolkit/develops/${enc(id)}/cancel`);
/** @returns {Promise<{jobs: {jobId: string, sourceJobId: string, tokens: number}[], replayed?: boolean}>} */
export const takeAgain = (/** @type {string[]} */ jobIds, /** @type {string | undefined} */ direction = undefined) =>
  post('/api/toolkit/takes', { jobIds, direction, idempotencyKey: newIdempotencyKey() });

// Search.

/** @returns {Promise<SearchResults>} */
export const search = (/** @type {string} */ q, /** @type {string | null} */ cursor = null) =>
  get(`/api/toolkit/search${query({ q, limit: 30, cursor })}`);
