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
 *   approvedAt: string | null, createdAt: string, provenance?: AssetProvenance | null}} Asset
 */
/** @typedef {'trusted' | 'valid' | 'invalid'} CredentialValidation */
/**
 * An asset's content credentials (C2PA) in one line: on every asset.
 * @typedef {{hasCredentials: boolean, digitalSourceType: string | null, signer: string | null,
 *   validation: CredentialValidation | null}} AssetProvenance
 */
/** @typedef {{action: string, digitalSourceType: string | null, softwareAgent: string | null, parameters: any}} ProvenanceAction */
/**
 * @typedef {{title: string | null, relationship: string | null, format: string | null, hasCredentials: boolean,
 *   validation: CredentialValidation | null}} ProvenanceIngredient
 */
/**
 * The manifest read from an asset's file now: the summary, its actions, ingredients and findings.
 * @typedef {AssetProvenance & {title: string | null, claimGenerator: string | null, issuer: string | null,
 *   signedAt: string | null, house: string | null, actions: ProvenanceAction[], ingredients: ProvenanceIngredient[],
 *   findings: {code: string, explanation: string | null}[], error: string | null}} ProvenanceReport
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
/** @returns {Promise<ProvenanceReport>} */
export const assetProvenance = (/** @type {string} */ id) => get(`/api/toolkit/assets/${enc(id)}/provenance`);

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

// Looks (the lookbook) and the factory.

/**
 * @typedef {{assetId: string, role: string}} LookItem
 * @typedef {{kind: 'preset', value: string} | {kind: 'asset', assetId: string}} Background
 * @typedef {{id: string, name: string, modelAssetId: string, itemAssetIds: LookItem[],
 *   backgroundAssetId: string | null, preset: {aesthetic: string, background: Background},
 *   status: 'draft' | 'locked', lookBaseAssetId: string | null, lookBaseJobId: string | null,
 *   batchId: string | null, plannedVariationKeys: string[] | null, plannedQuality: string | null,
 *   createdAt: string, updatedAt: string}} Look
 * @typedef {{key: string, framing: string, jobId: string, assetId?: string | null, locked: boolean,
 *   status: string, error?: string | null}} LookVariation
 * @typedef {{look: Look, variations: LookVariation[], lockDevelop: {id: string, status: string,
 *   resultAssetId?: string | null, error?: string | null} | null}} LookDetail
 * @typedef {{key: string, name: string, note: string}} VocabularyEntry
 * @typedef {{itemRoles: string[], maxItemsPerLook: number, aesthetics: VocabularyEntry[],
 *   backgrounds: VocabularyEntry[], variations: VocabularyEntry[], maxVariationFrames: number,
 *   destinations: VocabularyEntry[]}} Vocabulary
 * @typedef {{destination?: string, width?: number, height?: number}} OutputRequest
 * @typedef {{destination: string, width: number, height: number, tierTokens: number,
 *   restorationTokens: number, tokensPerFrame: number}} OutputPlan
 * @typedef {{name: string, itemAssetIds: LookItem[], background: Background, variationKeys: string[],
 *   groupedBy: string}} PlannedLook
 * @typedef {{preset: {aesthetic: string, background: Background, modelAssetId?: string | null,
 *   quality: string, variationKeys: string[]}, looks: PlannedLook[], truncated: boolean,
 *   modelReady: boolean, cost: {perFrame: number, framesPerLook: number, frames: number, total: number,
 *   quality: string}, balance: number}} FactoryPlan
 */

/** @returns {Promise<{looks: Look[]}>} */
export const listLooks = () => get('/api/toolkit/lookbook/looks');
/** @returns {Promise<{look: Look}>} */
export const createLook = (/** @type {Record<string, any>} */ req) => post('/api/toolkit/lookbook/looks', req);
/** @returns {Promise<LookDetail>} */
export const lookDetail = (/** @type {string} */ id) => get(`/api/toolkit/lookbook/looks/${enc(id)}`);
/** @returns {Promise<{jobId: string, tokensHeld: number, output: OutputPlan}>} */
export const developLock = (/** @type {string} */ id, /** @type {string} */ quality, /** @type {OutputRequest | null} */ output, /** @type {string} */ idempotencyKey) =>
  post(`/api/toolkit/lookbook/looks/${enc(id)}/develop-lock`, { quality, output, idempotencyKey });
/** @returns {Promise<{look: Look}>} */
export const lockLook = (/** @type {string} */ id, /** @type {string} */ assetId) =>
  post(`/api/toolkit/lookbook/looks/${enc(id)}/lock`, { assetId });
/** @returns {Promise<{look: Look}>} */
export const unlockLook = (/** @type {string} */ id) => post(`/api/toolkit/lookbook/looks/${enc(id)}/unlock`);
/** @returns {Promise<{jobs: {key: string, jobId: string}[], tokensHeld: number, output: OutputPlan}>} */
export const lookVariations = (/** @type {string} */ id, /** @type {string[]} */ keys, /** @type {string} */ quality, /** @type {OutputRequest | null} */ output, /** @type {string} */ idempotencyKey) =>
  post(`/api/toolkit/lookbook/looks/${enc(id)}/variations`, { keys, quality, output, idempotencyKey });
/**
 * @typedef {{id: string, name: string, organizationId?: string | null, slots: string[], shot_count: number,
 *   created_at: string, updated_at: string}} ShotTemplate
 * @typedef {{id: string, type: string, framing: string, pose: string, expression: string, sort_order: number}} TemplateShot
 */
/** @returns {Promise<{templates: ShotTemplate[]}>} */
export const lookTemplates = () => get('/api/toolkit/lookbook/templates');
/** @returns {Promise<{template: ShotTemplate, shots: TemplateShot[]}>} */
export const lookTemplate = (/** @type {string} */ id) => get(`/api/toolkit/lookbook/templates/${enc(id)}`);
/** @returns {Promise<Vocabulary>} */
export const lookVocabulary = () => get('/api/toolkit/lookbook/vocabulary');
/** @returns {Promise<FactoryPlan>} */
export const factoryPlan = (/** @type {string[]} */ assetIds, /** @type {string | null} */ quality) =>
  post('/api/toolkit/factory/plan', { assetIds, quality });
/** @returns {Promise<{batchId: string, quality: string, looks: {id: string, name: string, variationKeys: string[]}[]}>} */
export const factoryRun = (/** @type {Record<string, any>} */ req) => post('/api/toolkit/factory/run', req);

// Pipelines.

/**
 * @typedef {{item?: string | null, node?: string | null}} InputSource
 * @typedef {{id: string, tool: string, quality?: string | null, params?: Record<string, string>,
 *   inputs: Record<string, InputSource>, sinkFolderId?: string | null}} PlanNode
 * @typedef {{id?: string | null, name: string, sinkFolderId?: string | null, nodes: PlanNode[]}} Plan
 * @typedef {{id: string, name: string, nodes: PlanNode[], sinkFolderId?: string | null, createdAt: string,
 *   updatedAt: string}} PipelinePreset
 * @typedef {{node: string, tool: string, quality: string, tokensEach: number, frames: number, tokens: number}} NodeCost
 * @typedef {{name: string, items: number, frames: number, framesSkipped: number, tokens: number, nodes: NodeCost[],
 *   steps: any[], skipped: {item: number, node: string, reason: string}[]}} CompiledLine
 * @typedef {{done: number, failed: number, cancelled: number, active: number, total: number}} StepCounts
 * @typedef {{id: string, name: string, developId: string, status: string, framesPlanned: number,
 *   framesSkipped: number, tokensPlanned: number, tokensSpent: number, tokensHeld: number, steps: StepCounts,
 *   line: {node: string, tool: string, steps: StepCounts}[], cancelRequested: boolean, createdAt: string,
 *   finishedAt?: string | null}} PipelineRun
 * @typedef {{id: string, index: number, item: number, node: string, tool: string, quality: string, status: string,
 *   tokens: number, jobId?: string | null, resultAssetId?: string | null, error?: string | null}} RunStep
 */

/** @returns {Promise<{presets: PipelinePreset[]}>} */
export const listPresets = () => get('/api/toolkit/pipelines/presets');
/** @returns {Promise<{preset: PipelinePreset}>} */
export const savePreset = (/** @type {Plan} */ plan) => post('/api/toolkit/pipelines/presets', { plan });
/** @returns {Promise<{preset: PipelinePreset}>} */
export const updatePreset = (/** @type {string} */ id, /** @type {Plan} */ plan) =>
  patch(`/api/toolkit/pipelines/presets/${enc(id)}`, { plan });
export const deletePreset = (/** @type {string} */ id) => del(`/api/toolkit/pipelines/presets/${enc(id)}`);
/** @returns {Promise<{compiled: CompiledLine, spendable: number, affordable: boolean}>} */
export const previewPipeline = (/** @type {Plan} */ plan, /** @type {Record<string, string>[]} */ items) =>
  post('/api/toolkit/pipelines/preview', { plan, items });
/** @returns {Promise<{runId: string, developId: string, started: number, compiled: CompiledLine}>} */
export const startPipeline = (/** @type {Plan} */ plan, /** @type {Record<string, string>[]} */ items, /** @type {string} */ idempotencyKey) =>
  post('/api/toolkit/pipelines/runs', { plan, items, idempotencyKey });
/** @returns {Promise<{runs: PipelineRun[]}>} */
export const listPipelineRuns = () => get('/api/toolkit/pipelines/runs');
/** @returns {Promise<{run: PipelineRun, steps: RunStep[], plan: Plan}>} */
export const pipelineRun = (/** @type {string} */ id) => get(`/api/toolkit/pipelines/runs/${enc(id)}`);
/** @returns {Promise<{cancelled: boolean, tokensReleased: number, stillRendering: string[], run: PipelineRun}>} */
export const cancelPipeline = (/** @type {string} */ id) => post(`/api/toolkit/pipelines/runs/${enc(id)}/cancel`);

// Brand.

/**
 * @typedef {{visionEn: string, vibe: string[], palette: string[], signatureKeywords: {category: string, phrase: string}[],
 *   injectEnabled: boolean, dnaRuns: number, clause: string, colour: {output: 'srgb' | 'keep'},
 *   metadata: {output: 'rights' | 'all' | 'none'}}} BrandProfile
 * @typedef {{id: string, assetId: string, collectionId?: string | null, material: string, placement?: string | null,
 *   note?: string | null, sortOrder: number, filename: string, createdAt: string}} Mark
 */

/** @returns {Promise<{profile: BrandProfile}>} */
export const brand = () => get('/api/toolkit/brand');
/** @returns {Promise<{profile: BrandProfile}>} */
export const updateBrand = (/** @type {Partial<BrandProfile>} */ changes) => patch('/api/toolkit/brand', changes);
/**
 * The brand DNA read from images (the house's first read is free, later ones 2 tokens).
 * @param {File[]} files
 * @param {string[]} vibe
 * @param {string} products
 * @returns {Promise<{profile: BrandProfile, charged: number}>}
 */
export function readBrandDna(files, vibe, products) {
  const form = new FormData();
  for (const f of files) form.append('image', f, f.name);
  if (vibe.length) form.append('vibe', JSON.stringify(vibe));
  if (products) form.append('products', products);
  return call('POST', '/api/toolkit/brand/dna', { form });
}
/** @returns {Promise<{house: Mark[], collection: Mark[], riding: string}>} */
export const listMarks = (/** @type {string | null} */ collectionId = null) =>
  get(`/api/toolkit/brand/marks${query({ collectionId })}`);
/** @returns {Promise<{mark: Mark}>} */
export const createMark = (/** @type {Record<string, any>} */ req) => post('/api/toolkit/brand/marks', req);
export const deleteMark = (/** @type {string} */ id) => del(`/api/toolkit/brand/marks/${enc(id)}`);

// Models: the casting board, own models, the catalog.

/**
 * @typedef {{id: string, name: string, tier: string, priceCents: number, currency: string, coverUrl: string,
 *   previewUrls: string[], owned: boolean, mine: boolean, usable: boolean, exclusiveYours: boolean, note: string,
 *   assetIds: string[], sheetAssetIds: string[], collageAssetId?: string | null, identityAssetIds: string[],
 *   traits: Record<string, any>, createdAt: string}} Model
 * @typedef {{kind: string, id: string, name: string, note: string, previewUrl: string, priceCents: number,
 *   currency: string, owned: boolean, exclusive: boolean}} Offering
 */

/** @returns {Promise<{models: Model[]}>} */
export const listModels = () => get('/api/toolkit/models');
/** @returns {Promise<{model: Model}>} */
export const getModel = (/** @type {string} */ id) => get(`/api/toolkit/models/${enc(id)}`);
/** @returns {Promise<{model: Model}>} */
export const ownModel = (/** @type {{name: string, assetIds: string[], traits?: Record<string, string> | null}} */ req) =>
  post('/api/toolkit/models/own', req);
/** @returns {Promise<{model: Model}>} */
export const patchModel = (/** @type {string} */ id, /** @type {{traits?: Record<string, string>, sheetAssetIds?: string[]}} */ req) =>
  patch(`/api/toolkit/models/${enc(id)}`, req);
/** @returns {Promise<{url: string, pending: boolean, already: boolean}>} */
export const checkoutModel = (/** @type {string} */ id) => post(`/api/toolkit/models/${enc(id)}/checkout`);
/** @returns {Promise<{offerings: Offering[]}>} */
export const explore = () => get('/api/toolkit/explore');
/** @returns {Promise<{ok: boolean, url: string, pending: boolean}>} */
export const takeOffering = (/** @type {string} */ kind, /** @type {string} */ id) =>
  post(`/api/toolkit/explore/${enc(kind)}/${enc(id)}/take`);

// Support.

/**
 * @typedef {{id: string, status: string, summary: string, messageCount: number, unreadCount: number,
 *   createdAt: string, lastMessageAt: string}} Ticket
 * @typedef {{id: string, content: string, author: string, authorName: string, createdAt: string}} ThreadMessage
 */

/** @returns {Promise<{tickets: Ticket[], nextCursor?: string | null}>} */
export const listTickets = () => get('/api/toolkit/support/tickets?limit=50');
/** @returns {Promise<Ticket>} */
export const raiseTicket = (/** @type {Record<string, any>} */ req) => post('/api/toolkit/support/tickets', req);
/** @returns {Promise<{status: string, messages: ThreadMessage[]}>} */
export const ticketThread = (/** @type {string} */ id) => get(`/api/toolkit/support/tickets/${enc(id)}`);
/** @returns {Promise<{id: string, url: string, expiresAt: string}>} */
export function uploadScreenshot(/** @type {File} */ file) {
  const form = new FormData();
  form.append('file', file, file.name || 'screenshot.png');
  return call('POST', '/api/toolkit/support/screenshots', { form });
}

// The admin console (platform admins only; the server refuses everyone else with 403).

/** @returns {Promise<any>} */
export const adminOverview = () => get('/api/toolkit/admin/overview');
/** @returns {Promise<{develops: any[], nextCursor?: string | null}>} */
export const adminDevelops = (/** @type {string | null} */ status = null) => get(`/api/toolkit/admin/develops${query({ status, limit: 50 })}`);
/** @returns {Promise<any>} */
export const adminDevelopAction = (/** @type {string} */ jobId, /** @type {'cancel' | 'retry'} */ action) =>
  post('/api/toolkit/admin/develops/action', { jobId, action });
/** @returns {Promise<{groups: any[], totalFailed: number}>} */
export const adminFailures = () => get('/api/toolkit/admin/failures?since=30');
/** @returns {Promise<any>} */
export const adminAiCosts = (/** @type {number} */ since) => get(`/api/toolkit/admin/ai-costs?since=${since}`);
/** @returns {Promise<any>} */
export const adminTokenomics = (/** @type {number} */ since) => get(`/api/toolkit/admin/tokenomics?since=${since}&bucket=day`);
/** @returns {Promise<any>} */
export const adminPayments = () => get('/api/toolkit/admin/payments?limit=50');
/**
 * A house's holding as the admin reads it (`AdminHolding`: the holding, its house, and its revocation).
 * @typedef {{id: string, kind: string, offeringId: string, name: string, source: string, priceCents: number,
 *   currency: string, paymentRef?: string | null, exclusive: boolean, acquiredAt: string, organizationId: string,
 *   revokedAt?: string | null, revokeReason?: string | null}} AdminHolding
 * A payment that could not become a holding (`refunded`, or `review`: a person must refund it).
 * @typedef {{id: string, reference: string, organizationId: string, paymentId?: string | null, amountCents: number,
 *   currency: string, reason: string, status: string, createdAt: string}} PaymentCase
 */
/** @returns {Promise<{holdings: AdminHolding[], nextCursor?: string | null, cases: PaymentCase[]}>} */
export const adminEntitlements = (/** @type {string | null} */ cursor = null) =>
  get(`/api/toolkit/admin/entitlements${query({ limit: 50, cursor })}`);
/** @returns {Promise<{users: any[]}>} */
export const adminUsers = (/** @type {string} */ q) => get(`/api/toolkit/admin/users${query({ q, limit: 50 })}`);
/** @returns {Promise<any>} */
export const adminGrantTokens = (/** @type {string} */ userId, /** @type {number} */ tokens, /** @type {string} */ reason) =>
  post('/api/toolkit/admin/grant-tokens', { userId, tokens, reason });
/** @returns {Promise<{tickets: any[]}>} */
export const adminTickets = () => get('/api/toolkit/admin/support?limit=50');
/** @returns {Promise<any>} */
export const adminTicket = (/** @type {string} */ id) => get(`/api/toolkit/admin/support/${enc(id)}`);
/** @returns {Promise<any>} */
export const adminReply = (/** @type {string} */ id, /** @type {string} */ content) =>
  post(`/api/toolkit/admin/support/${enc(id)}/reply`, { content });
/** @returns {Promise<any>} */
export const adminNote = (/** @type {string} */ id, /** @type {string} */ content) =>
  post(`/api/toolkit/admin/support/${enc(id)}/notes`, { content });
/** @returns {Promise<any>} */
export const adminTicketStatus = (/** @type {string} */ id, /** @type {string} */ status) =>
  patch(`/api/toolkit/admin/support/${enc(id)}`, { status });

// The assistant (chat).

/**
 * @typedef {{id: string, title: string, status: string, turns: number, turnLimit: number, ticketId?: string | null,
 *   escalationReason?: string | null, createdAt: string, updatedAt: string}} ChatSession
 * @typedef {{id: string, kind: string, summary: string, request: any, price: number, status: string, result?: any,
 *   appliedAt?: string | null}} ChatAction
 * @typedef {{id: string, seq: number, role: string, text: string, actions: ChatAction[], actionId?: string | null,
 *   escalation?: {reason: string, ticketId?: string | null} | null, tokens: number, createdAt: string}} ChatTurn
 */

/** @returns {Promise<{sessions: ChatSession[]}>} */
export const chatSessions = () => get('/api/toolkit/chat/sessions?limit=20');
/** @returns {Promise<ChatSession>} */
export const newChatSession = () => post('/api/toolkit/chat/sessions', {});
/** @returns {Promise<{session: ChatSession, turns: ChatTurn[], nextAfter?: number | null}>} */
export const chatTurns = (/** @type {string} */ id, /** @type {number} */ after = 0) =>
  get(`/api/toolkit/chat/sessions/${enc(id)}/turns?after=${after}&limit=100`);
/** @returns {Promise<{session: ChatSession, turns: ChatTurn[]}>} */
export const sendChat = (/** @type {string} */ id, /** @type {string} */ message, /** @type {boolean} */ toPerson = false) =>
  post(`/api/toolkit/chat/sessions/${enc(id)}/turns`, { message, toPerson });
/** @returns {Promise<{action: ChatAction, turn: ChatTurn, replayed: boolean}>} */
export const applyChat = (/** @type {string} */ sessionId, /** @type {string} */ actionId) =>
  post('/api/toolkit/chat/apply', { sessionId, actionId });

// Account: usage and the house's memories.

/**
 * @typedef {{id: string, scope: 'house' | 'person', memoryClass: string, kind: string, statement: string,
 *   confidence: number, status: string, evidenceCount: number, supersedesId?: string | null, createdAt: string,
 *   updatedAt: string}} Memory
 */

/** @returns {Promise<AccountView>} */
export const accountFor = (/** @type {7 | 30 | 90} */ days) => get(`/api/account?days=${days}`);
/** @returns {Promise<{memories: Memory[]}>} */
export const memories = () => get('/api/account/memory');
/** @returns {Promise<Memory>} */
export const remember = (/** @type {Record<string, any>} */ req) => post('/api/account/memory', req);
/** @returns {Promise<Memory>} */
export const retireMemory = (/** @type {string} */ id) => del(`/api/account/memory/${enc(id)}`);
