// @ts-check
/**
 * Develop: pick a tool from the price book (every quality's price shown before anything is
 * spent), inputs by role from the library or a fresh file, options; "Develop · N tokens" holds
 * the price. `/develop/{jobId}` follows one develop live from the jobs socket (queued, running,
 * done or failed, no reload), shows the result beside its input with a before/after slider, and
 * offers take again, duplicate and cancel.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { feed } from '../socket.js';
import { navigate } from '../router.js';
import { Loading, PageTitle, Refusal, tokens, useId, useTitle } from '../ui/common.js';
import { Thumb, findAsset, remember } from '../ui/assets.js';
import { Compare } from '../ui/compare.js';
import { coverOf } from '../ui/models.js';

/** @typedef {import('../api.js').Asset} Asset */
/**
 * One chosen input: a library asset, a fresh file, or a kept model cast by its `mdl_…` id
 * (`?model=` from a model's page; the studio resolves it to the model's reference frame).
 * @typedef {{role: string, asset?: Asset, file?: File, model?: {id: string, name: string, cover: string}}} Chosen
 */

/**
 * The input roles of a tool, from the price book: the ones it requires, in order.
 * @param {import('../api.js').ToolPrice | undefined} entry
 * @returns {{role: string, label: string, optional?: boolean}[]}
 */
export function rolesFor(entry) {
  const label = (/** @type {string} */ role) => role.charAt(0).toUpperCase() + role.slice(1).replace(/[-_]/g, ' ');
  return (entry?.roles ?? []).map((role) => ({ role, label: label(role) }));
}

/** @param {import('../router.js').PageProps} props */
export default function Develop({ rest, query }) {
  const store = useStore();
  const powers = can();
  const jobId = rest[0] ?? null;
  useTitle(jobId ? `Develop ${jobId}` : 'Develop');
  return html`<div class="develop">
    <section class="card" aria-labelledby="develop-title">
      <h1 id="develop-title" tabindex="-1">Develop</h1>
      ${powers.spend
        ? store.prices
          ? html`<${DevelopForm} prices=${store.prices} initial=${query.get('image')} model=${query.get('model')} />`
          : html`<${Loading} what="Reading the price book" />`
        : html`<p>Your seat is a viewer's: it can look at develops but not start one. Ask the house's owner or an admin for a member's seat.</p>`}
    </section>
    <section class=${jobId ? 'card job-card' : 'card'} aria-label="This develop">
      ${jobId ? html`<${JobView} key=${jobId} jobId=${jobId} />` : html`<p class="muted">Pick a tool and its inputs; the price shows on the button before anything is held. Past develops are under <a href="/runs">Runs</a>.</p>`}
    </section>
  </div>`;
}

/**
 * @param {{prices: import('../api.js').PriceBook, initial: string | null, model?: string | null}} props
 */
function DevelopForm({ prices, initial, model }) {
  const store = useStore();
  const tools = prices.tools;
  const [tool, setTool] = useState(tools.find((t) => t.tool === 'upscale')?.tool ?? tools[0]?.tool ?? '');
  const entry = tools.find((t) => t.tool === tool);
  const [quality, setQuality] = useState('');
  const [chosen, setChosen] = useState(/** @type {Record<string, Chosen>} */ ({}));
  const [runId, setRunId] = useState('');
  const [options, setOptions] = useState('');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState(api.newIdempotencyKey());
  const toolId = useId('tool');
  const qualityId = useId('quality');
  const runIdId = useId('run');
  const optionsId = useId('options');

  // The quality defaults to the tool's first tier; a tool change keeps it when the tool has it.
  useEffect(() => {
    if (!entry) return;
    if (!entry.prices.some((p) => p.resolution === quality)) setQuality(entry.prices[0]?.resolution ?? '');
  }, [tool]);

  // `?image=` preselects a library asset for the image role.
  useEffect(() => {
    if (!initial) return;
    findAsset(initial).then((asset) => {
      if (asset) setChosen((c) => ({ ...c, image: { role: 'image', asset } }));
    });
  }, [initial]);

  // `?model=` casts a kept model: the first tool that takes a model, with the model in that role.
  useEffect(() => {
    if (!model) return;
    const withModel = tools.find((t) => t.roles?.includes('model'));
    if (withModel) setTool(withModel.tool);
    api.getModel(model).then(
      (r) => setChosen((c) => ({ ...c, model: { role: 'model', model: { id: r.model.id, name: r.model.name, cover: coverOf(r.model) } } })),
      setError,
    );
  }, [model]);

  const price = entry?.prices.find((p) => p.resolution === quality)?.tokens ?? null;
  const roles = rolesFor(entry);
  const missing = roles.filter((r) => !r.optional && !chosen[r.role]);
  const spendable = store.balance?.balance ?? null;

  /** @param {SubmitEvent} e */
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    /** @type {Record<string, string>} */
    const params = {};
    if (runId.trim()) params.runId = runId.trim();
    for (const line of options.split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) params[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    const inputs = roles
      .map((r) => chosen[r.role])
      .filter(Boolean)
      .map((c) => ({ role: c.role, asset: c.asset?.id ?? c.model?.id, file: c.file }));
    setBusy(true);
    try {
      const res = await api.submitDevelop({ tool, quality, params, inputs, idempotencyKey: key });
      // A fresh file is shown from this page's memory until the page closes.
      for (const c of Object.values(chosen)) {
        if (c.file) previews.set(`${res.jobId}:${c.role}`, { url: URL.createObjectURL(c.file), name: c.file.name });
      }
      setKey(api.newIdempotencyKey());
      navigate(`/develop/${encodeURIComponent(res.jobId)}`);
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };

  if (!tools.length) return html`<p>This studio offers no tools right now.</p>`;
  return html`<form class="stack" onSubmit=${submit}>
    <div class="field">
      <label for=${toolId}>Tool</label>
      <select id=${toolId} value=${tool} onChange=${(/** @type {any} */ e) => setTool(e.currentTarget.value)}>
        ${tools.map((t) => html`<option value=${t.tool}>${t.tool}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for=${qualityId}>Quality</label>
      <select id=${qualityId} value=${quality} onChange=${(/** @type {any} */ e) => setQuality(e.currentTarget.value)}>
        ${(entry?.prices ?? []).map((p) => html`<option value=${p.resolution}>${p.resolution} · ${tokens(p.tokens)}</option>`)}
      </select>
    </div>
    ${roles.map(
      (r) => html`<${RoleInput}
        key=${`${tool}-${r.role}`}
        role=${r.role}
        label=${r.label}
        optional=${!!r.optional}
        value=${chosen[r.role]}
        onChange=${(/** @type {Chosen | null} */ c) =>
          setChosen((all) => {
            const copy = { ...all };
            if (c) copy[r.role] = c;
            else delete copy[r.role];
            return copy;
          })}
      />`,
    )}
    <div class="field">
      <label for=${runIdId}>Run name (optional)</label>
      <input id=${runIdId} value=${runId} onInput=${(/** @type {any} */ e) => setRunId(e.currentTarget.value)} aria-describedby=${`${runIdId}-hint`} />
      <p class="hint" id=${`${runIdId}-hint`}>Develops with the same run name are grouped under Runs.</p>
    </div>
    <div class="field">
      <label for=${optionsId}>Options (optional)</label>
      <textarea id=${optionsId} rows="2" value=${options} onInput=${(/** @type {any} */ e) => setOptions(e.currentTarget.value)} aria-describedby=${`${optionsId}-hint`}></textarea>
      <p class="hint" id=${`${optionsId}-hint`}>One option a line, as name=value; the studio checks them.</p>
    </div>
    ${price !== null &&
    html`<p class="muted">
      Holds ${tokens(price)} while it develops; charged when the frame lands, returned if it fails.
      ${spendable !== null && ` You have ${tokens(spendable)}.`}
    </p>`}
    ${missing.length > 0 && html`<p class="hint">Choose ${missing.map((m) => m.label.toLowerCase()).join(' and ')} to develop.</p>`}
    <${Refusal} error=${error}>
      ${error instanceof api.ApiError && error.code === 'INSUFFICIENT_TOKENS' && html`<${MoreTokens} />`}
    <//>
    <button type="submit" class="primary" disabled=${busy || missing.length > 0 || price === null}>
      ${price === null ? 'Develop' : `Develop · ${tokens(price)}`}
    </button>
  </form>`;
}

/** The way to get more tokens: a top-up for the owner when billing is on, else whom to ask. */
export function MoreTokens() {
  const store = useStore();
  const powers = can();
  if (store.catalog?.provider && powers.pay) return html`<p><a href="/account#tokens">Top up tokens</a></p>`;
  return html`<p>Ask the house's owner to top up tokens${store.catalog?.provider ? '' : ' (this studio sells none: an operator grants them)'}.</p>`;
}

/**
 * Fresh files this page submitted, by `jobId:role`: the studio keeps no library image of them,
 * so their before image is shown from this page's memory while it lives.
 * @type {Map<string, {url: string, name: string}>}
 */
const previews = new Map();

/**
 * One input role: a library asset (picked from the newest) or a fresh file.
 * @param {{role: string, label: string, optional: boolean, value: Chosen | undefined,
 *   onChange: (c: Chosen | null) => void}} props
 */
function RoleInput({ role, label, optional, value, onChange }) {
  const [picking, setPicking] = useState(false);
  const fileId = useId(`file-${role}`);
  return html`<fieldset class="role-input">
    <legend>${label}${optional ? ' (optional)' : ''}</legend>
    ${value
      ? html`<div class="chosen">
          ${value.asset ? html`<${Thumb} id=${value.asset.id} />` : value.model ? html`<img src=${value.model.cover} alt="" width="256" height="256" />` : html`<span aria-hidden="true">📄</span>`}
          <span>${value.asset ? value.asset.name : value.model ? `the model ${value.model.name}` : value.file?.name}</span>
          <button type="button" class="link-button" onClick=${() => onChange(null)} aria-label=${`Remove ${label.toLowerCase()}`}>Remove</button>
        </div>`
      : html`<p class="muted">None chosen.</p>`}
    <div class="row">
      <button type="button" aria-expanded=${picking} onClick=${() => setPicking(!picking)}>
        ${picking ? 'Close the library' : `Choose ${label.toLowerCase()} from the library`}
      </button>
      <input
        id=${fileId}
        class="upload-input"
        type="file"
        accept="image/jpeg,image/png,image/webp,image/gif"
        onChange=${(/** @type {any} */ e) => {
          const file = e.currentTarget.files?.[0];
          if (file) onChange({ role, file });
          e.currentTarget.value = '';
        }}
      />
      <label for=${fileId} class="button">Upload ${label.toLowerCase()}</label>
    </div>
    ${picking &&
    html`<${Picker}
      label=${label}
      current=${value?.asset?.id}
      onPick=${(/** @type {Asset} */ asset) => {
        onChange({ role, asset });
        setPicking(false);
      }}
    />`}
  </fieldset>`;
}

/**
 * The newest assets of the library as buttons (one page; the library page finds older ones).
 * @param {{label: string, current: string | undefined, onPick: (a: Asset) => void}} props
 */
function Picker({ label, current, onPick }) {
  const [assets, setAssets] = useState(/** @type {Asset[] | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    api.listAssetsPage({ limit: 60 }).then((p) => {
      remember(p.assets);
      setAssets(p.assets);
    }, setError);
  }, []);
  if (error) return html`<${Refusal} error=${error} />`;
  if (!assets) return html`<${Loading} />`;
  if (!assets.length) return html`<p class="muted">The library is empty: upload a file instead.</p>`;
  return html`<ul class="picker" aria-label=${`Library images for ${label.toLowerCase()}`}>
    ${assets.map(
      (a) => html`<li key=${a.id}>
        <button type="button" aria-pressed=${a.id === current} onClick=${() => onPick(a)} aria-label=${`Use ${a.name}`} title=${a.name}>
          <${Thumb} id=${a.id} />
        </button>
      </li>`,
    )}
  </ul>`;
}

/**
 * One develop, live: its state from the socket, its hold, the result beside its input.
 * @param {{jobId: string}} props
 */
function JobView({ jobId }) {
  const powers = can();
  const [status, setStatus] = useState(/** @type {import('../api.js').DevelopStatus | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [actionError, setActionError] = useState(/** @type {unknown} */ (null));
  const [note, setNote] = useState('');
  const [origin, setOrigin] = useState(/** @type {import('../api.js').AssetOrigin | null} */ (null));
  const [originUnread, setOriginUnread] = useState(false);

  useEffect(() => {
    let live = true;
    api.job(jobId).then((s) => live && setStatus(s), (e) => live && setError(e));
    const off = feed.subscribe((m) => {
      if (m.type !== 'job' || m.job.id !== jobId) return;
      const j = m.job;
      setStatus((s) =>
        s
          ? { ...s, status: j.status, resultAssetId: j.resultAssetId, resultUrl: j.resultUrl, error: j.error }
          : s,
      );
      // The settled figure comes with the job's read; ask once it ends.
      if (j.status === 'done' || j.status === 'failed' || j.status === 'cancelled') {
        api.job(jobId).then((s) => live && setStatus(s), () => {});
      }
    });
    // Without a live socket (it reconnects by itself), look now and then.
    const timer = setInterval(() => {
      if (feed.state !== 'live') api.job(jobId).then((s) => live && setStatus(s), () => {});
    }, 4000);
    return () => {
      live = false;
      off();
      clearInterval(timer);
    };
  }, [jobId]);

  // The develop's inputs are the origin of its result (the result's detail read).
  const resultId = status?.resultAssetId ?? null;
  useEffect(() => {
    if (!resultId) return;
    let live = true;
    setOriginUnread(false);
    api.assetDetail(resultId).then(
      (d) => live && setOrigin(d.origin),
      () => live && setOriginUnread(true),
    );
    return () => {
      live = false;
    };
  }, [resultId]);

  if (error) return html`<${Refusal} error=${error} />`;
  if (!status) return html`<${Loading} what="Reading the develop" />`;

  const ended = status.status === 'done' || status.status === 'failed' || status.status === 'cancelled';
  const inputs = origin?.inputs ?? [];
  const image = inputs.find((i) => i.role === 'image') ?? inputs[0] ?? null;
  const fresh = image && !image.assetId ? previews.get(`${jobId}:${image.role}`) ?? null : null;
  const before = image?.assetId && image.name !== null ? api.assetFileUrl(image.assetId, 1024) : fresh?.url ?? null;
  const beforeName = image?.name ?? fresh?.name ?? null;
  const unknownInput = !origin
    ? originUnread
      ? 'The input could not be read.'
      : 'Reading the input…'
    : !image
      ? 'This develop took no input image.'
      : image.assetId
        ? 'The input was a library image, since deleted.'
        : 'The input was a fresh upload, not kept in the library.';
  const after = status.resultAssetId ? api.assetFileUrl(status.resultAssetId, 1024) : null;

  const act = async (/** @type {() => Promise<void>} */ fn) => {
    setActionError(null);
    setNote('');
    try {
      await fn();
    } catch (e) {
      setActionError(e);
    }
  };
  const again = () =>
    act(async () => {
      const res = await api.takeAgain([jobId]);
      const take = res.jobs[0];
      if (take) {
        navigate(`/develop/${encodeURIComponent(take.jobId)}`);
      }
    });
  const duplicate = () =>
    act(async () => {
      const res = await api.duplicateJob(jobId);
      navigate(`/develop/${encodeURIComponent(res.jobId)}`);
    });
  const cancel = () =>
    act(async () => {
      const res = await api.cancelJob(jobId);
      setNote(
        res.cancelled
          ? `Cancelled: ${tokens(res.tokensReleased)} returned.`
          : res.reason === 'ALREADY_RENDERING'
            ? 'It is already rendering: it finishes and is charged.'
            : 'It had already ended.',
      );
    });

  return html`<div class="stack">
    <h2>${status.tool} <span class="muted">${jobId}</span></h2>
    <div class="row">
      <span>State:</span>
      <p role="status" class=${`state state-${status.status}`}>${status.status}</p>
    </div>
    <p>
      ${ended
        ? status.status === 'done'
          ? `Charged ${tokens(status.tokensSettled ?? status.tokensEstimated)}.`
          : `Nothing charged: the ${tokens(status.tokensEstimated)} held were returned.`
        : `Holding ${tokens(status.tokensEstimated)} until the frame lands.`}
    </p>
    ${status.status === 'failed' && status.error && html`<p class="refusal">${status.error}</p>`}
    ${after &&
    html`<div class="pair">
        <figure>
          ${before ? html`<img src=${before} alt=${`Input: ${beforeName ?? image?.role ?? ''}`} />` : html`<p class="muted">${unknownInput}</p>`}
          <figcaption>
            Input${beforeName ? `: ${beforeName}` : ''}${image?.assetId && image.name !== null
              ? html` · <a href=${`/assets/${encodeURIComponent(image.assetId)}`}>open the input</a>`
              : ''}
          </figcaption>
        </figure>
        <figure>
          <img src=${after} alt="Result" />
          <figcaption>Result · <a href=${`/assets/${encodeURIComponent(status.resultAssetId ?? '')}`}>open the asset</a></figcaption>
        </figure>
      </div>
      ${before && html`<${Compare} before=${before} after=${after} beforeLabel="Before" afterLabel="After" />`}`}
    ${powers.spend &&
    html`<div class="row">
      ${status.status === 'queued' && html`<button type="button" onClick=${cancel}>Cancel</button>`}
      ${status.status === 'done' && html`<button type="button" onClick=${again}>Take again · ${tokens(status.tokensEstimated)}</button>`}
      ${ended && html`<button type="button" onClick=${duplicate}>Duplicate · ${tokens(status.tokensEstimated)}</button>`}
    </div>`}
    ${note && html`<p aria-live="polite">${note}</p>`}
    <${Refusal} error=${actionError}>
      ${actionError instanceof api.ApiError && actionError.code === 'INSUFFICIENT_TOKENS' && html`<${MoreTokens} />`}
    <//>
  </div>`;
}
