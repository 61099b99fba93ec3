// @ts-check
/**
 * Pipelines: the house's presets (load one to edit, save, save changes) and the plan editor (the
 * plan as its nodes and their inputs, with the JSON beside it); items picked from the library;
 * Preview prices every node, lists skipped steps and says whether the balance covers it; Run
 * names the price and holds it; the runs list. One run's page is pages/pipeline-run.js.
 */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { navigate } from '../router.js';
import { can, useStore } from '../store.js';
import { Loading, PageTitle, Refusal, formatWhen, tokens, useId, useTitle } from '../ui/common.js';
import { Thumb, remember } from '../ui/assets.js';
import { ProgressStrip } from '../ui/charts.js';
import { MoreTokens } from './develop.js';
import PipelineRun from './pipeline-run.js';

/** @typedef {import('../api.js').Plan} Plan */
/** @typedef {import('../api.js').PlanNode} PlanNode */

const ROLES = ['image', 'garment', 'model', 'mask', 'background'];

/** A first plan: one node over each item's image. */
const STARTER = /** @type {Plan} */ ({ name: 'New pipeline', nodes: [{ id: 'step1', tool: 'upscale', quality: '1k', inputs: { image: { item: 'image' } } }] });

/** @param {import('../router.js').PageProps} props */
export default function Pipelines({ rest }) {
  if (rest[0]) return html`<${PipelineRun} key=${rest[0]} id=${rest[0]} />`;
  return html`<${Editor} />`;
}

function Editor() {
  useTitle('Pipelines');
  const store = useStore();
  const powers = can();
  const [presets, setPresets] = useState(/** @type {import('../api.js').PipelinePreset[] | null} */ (null));
  const [runs, setRuns] = useState(/** @type {import('../api.js').PipelineRun[] | null} */ (null));
  const [assets, setAssets] = useState(/** @type {import('../api.js').Asset[] | null} */ (null));
  const [plan, setPlanRaw] = useState(/** @type {Plan} */ (STARTER));
  const [presetId, setPresetId] = useState(/** @type {string | null} */ (null));
  const [items, setItems] = useState(/** @type {string[]} */ ([]));
  const [json, setJson] = useState(JSON.stringify(STARTER, null, 2));
  const [preview, setPreview] = useState(/** @type {{compiled: import('../api.js').CompiledLine, spendable: number, affordable: boolean} | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [idem, setIdem] = useState(api.newIdempotencyKey());
  const nameId = useId('plan-name');
  const jsonId = useId('plan-json');

  const load = () => {
    api.listPresets().then((r) => setPresets(r.presets), setError);
    api.listPipelineRuns().then((r) => setRuns(r.runs), setError);
  };
  useEffect(() => {
    load();
    api.listAssetsPage({ limit: 60 }).then((p) => {
      remember(p.assets);
      setAssets(p.assets);
    }, setError);
  }, []);

  /** Any change to the plan: the JSON follows, the preview is stale. */
  const setPlan = (/** @type {Plan} */ p) => {
    setPlanRaw(p);
    setJson(JSON.stringify(p, null, 2));
    setPreview(null);
  };
  const setNode = (/** @type {number} */ i, /** @type {Partial<PlanNode>} */ change) =>
    setPlan({ ...plan, nodes: plan.nodes.map((n, k) => (k === i ? { ...n, ...change } : n)) });
  const tools = store.prices?.tools ?? [];
  const itemRows = () => items.map((id) => ({ image: id }));

  /** @param {() => Promise<void>} fn */
  const act = async (fn) => {
    setError(null);
    setNotice('');
    setBusy(true);
    try {
      await fn();
    } catch (e) {
      setError(e);
    }
    setBusy(false);
  };
  const doPreview = () => act(async () => setPreview(await api.previewPipeline(plan, itemRows())));
  const doRun = () =>
    act(async () => {
      const res = await api.startPipeline(plan, itemRows(), idem);
      setIdem(api.newIdempotencyKey());
      navigate(`/pipelines/${encodeURIComponent(res.runId)}`);
    });
  const doSave = () =>
    act(async () => {
      const res = presetId ? await api.updatePreset(presetId, plan) : await api.savePreset(plan);
      setPresetId(res.preset.id);
      setNotice(presetId ? `Saved the changes to ${res.preset.name}.` : `Saved ${res.preset.name} as a preset.`);
      load();
    });
  const applyJson = () => {
    try {
      const p = JSON.parse(json);
      if (!p || typeof p !== 'object' || !Array.isArray(p.nodes)) throw new Error('A plan is {name, nodes: [...]}.');
      setPlan(p);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  const nodeIds = plan.nodes.map((n) => n.id);
  const price = preview?.compiled.tokens ?? null;

  return html`<div class="sections">
    <div class="toolbar"><${PageTitle}>Pipelines<//></div>
    <section class="card wide" aria-labelledby="presets-title">
      <h2 id="presets-title">Presets</h2>
      ${presets === null
        ? html`<${Loading} />`
        : presets.length === 0
          ? html`<p class="muted">No presets yet: save a plan below.</p>`
          : html`<ul class="list" aria-label="Presets">
              ${presets.map(
                (p) => html`<li key=${p.id}>
                  <div class="grow"><strong>${p.name}</strong> <span class="muted">${p.nodes.map((n) => n.tool).join(' → ')}</span></div>
                  <button type="button" aria-label=${`Edit ${p.name}`} onClick=${() => {
                    setPlan({ id: p.id, name: p.name, nodes: p.nodes, sinkFolderId: p.sinkFolderId ?? null });
                    setPresetId(p.id);
                  }}>Edit</button>
                </li>`,
              )}
            </ul>`}
    </section>
    <section class="card wide" aria-labelledby="plan-title">
      <h2 id="plan-title">${presetId ? `Plan (preset ${plan.name})` : 'Plan'}</h2>
      <div class="field"><label for=${nameId}>Plan name</label>
        <input id=${nameId} value=${plan.name} onInput=${(/** @type {any} */ e) => setPlan({ ...plan, name: e.currentTarget.value })} /></div>
      <ol class="node-list" aria-label="Nodes">
        ${plan.nodes.map((n, i) => html`<li key=${i}><${NodeForm} node=${n} index=${i} tools=${tools} earlier=${nodeIds.slice(0, i)}
          onChange=${(/** @type {Partial<PlanNode>} */ c) => setNode(i, c)}
          onRemove=${plan.nodes.length > 1 ? () => setPlan({ ...plan, nodes: plan.nodes.filter((_, k) => k !== i) }) : null} /></li>`)}
      </ol>
      <div class="row">
        <button type="button" onClick=${() => {
          const prev = plan.nodes[plan.nodes.length - 1];
          setPlan({ ...plan, nodes: [...plan.nodes, { id: `step${plan.nodes.length + 1}`, tool: 'upscale', quality: '1k', inputs: { image: prev ? { node: prev.id } : { item: 'image' } } }] });
        }}>Add node</button>
        ${powers.write && html`<button type="button" disabled=${busy} onClick=${doSave}>${presetId ? 'Save changes' : 'Save as preset'}</button>`}
        ${presetId && html`<button type="button" class="link-button" onClick=${() => { setPresetId(null); setPlan({ ...plan, id: null }); }}>Edit as a new plan</button>`}
      </div>
      <details>
        <summary>The plan as JSON</summary>
        <label for=${jsonId}>Plan JSON</label>
        <textarea id=${jsonId} class="json-box" rows="12" value=${json} onInput=${(/** @type {any} */ e) => setJson(e.currentTarget.value)}></textarea>
        <button type="button" onClick=${applyJson}>Use this JSON</button>
      </details>
    </section>
    <section class="card wide" aria-labelledby="items-title">
      <h2 id="items-title">Items</h2>
      <p class="muted">Each picked image is one item (its key <code>image</code>); every node runs once per item.</p>
      ${assets === null
        ? html`<${Loading} />`
        : html`<ul class="pick-grid" aria-label="Library images">
            ${assets.map(
              (a) => html`<li key=${a.id} class=${items.includes(a.id) ? 'picked' : ''}>
                <${Thumb} id=${a.id} alt="" />
                <label class="row small"><input type="checkbox" checked=${items.includes(a.id)} onChange=${() => {
                  setItems(items.includes(a.id) ? items.filter((x) => x !== a.id) : [...items, a.id]);
                  setPreview(null);
                }} /> Item ${a.name}</label>
              </li>`,
            )}
          </ul>`}
      <div class="row">
        <button type="button" disabled=${busy || items.length === 0} onClick=${doPreview}>Preview</button>
        ${powers.spend && html`<button type="button" class="primary" disabled=${busy || price === null || !preview?.affordable} onClick=${doRun}>
          ${price === null ? 'Run (preview first)' : `Run · ${tokens(price)}`}</button>`}
      </div>
      ${notice && html`<p class="notice" role="status">${notice}</p>`}
      <${Refusal} error=${error}>${error instanceof api.ApiError && error.code === 'INSUFFICIENT_TOKENS' && html`<${MoreTokens} />`}<//>
      ${preview && html`<${Preview} preview=${preview} />`}
    </section>
    <section class="card wide" aria-labelledby="pruns-title">
      <h2 id="pruns-title">Runs</h2>
      ${runs === null
        ? html`<${Loading} />`
        : runs.length === 0
          ? html`<p class="muted">No pipeline has run yet.</p>`
          : html`<ul class="list" aria-label="Pipeline runs">
              ${runs.map(
                (r) => html`<li key=${r.id}><div class="grow">
                  <a href=${`/pipelines/${encodeURIComponent(r.id)}`}>${r.name}</a>
                  <span class="muted"> · ${r.status} · ${tokens(r.tokensSpent)} spent · ${formatWhen(r.createdAt)}</span>
                  <${ProgressStrip} label=${r.name} counts=${r.steps} /></div></li>`,
              )}
            </ul>`}
    </section>
  </div>`;
}

/**
 * One node: its id, tool, quality and where each of the tool's roles comes from.
 * @param {{node: PlanNode, index: number, tools: import('../api.js').ToolPrice[], earlier: string[],
 *   onChange: (c: Partial<PlanNode>) => void, onRemove: (() => void) | null}} props
 */
function NodeForm({ node, index, tools, earlier, onChange, onRemove }) {
  const base = useId('node');
  const entry = tools.find((t) => t.tool === node.tool);
  const roles = entry?.roles ?? Object.keys(node.inputs ?? {});
  const n = index + 1;
  /** @param {string} role @param {string} v */
  const setSource = (role, v) => {
    const [kind, ...rest] = v.split(':');
    const value = rest.join(':');
    onChange({ inputs: { ...node.inputs, [role]: kind === 'node' ? { node: value } : { item: value } } });
  };
  return html`<fieldset class="role-input">
    <legend>Node ${n}: ${node.id}</legend>
    <div class="row">
      <div class="field"><label for=${`${base}-id`}>Node ${n} id</label>
        <input id=${`${base}-id`} value=${node.id} onInput=${(/** @type {any} */ e) => onChange({ id: e.currentTarget.value })} /></div>
      <div class="field"><label for=${`${base}-tool`}>Node ${n} tool</label>
        <select id=${`${base}-tool`} value=${node.tool} onChange=${(/** @type {any} */ e) => {
          const tool = e.currentTarget.value;
          const need = tools.find((t) => t.tool === tool)?.roles ?? ['image'];
          /** @type {Record<string, import('../api.js').InputSource>} */
          const inputs = {};
          for (const r of need) inputs[r] = node.inputs?.[r] ?? (earlier.length ? { node: earlier[earlier.length - 1] } : { item: r });
          onChange({ tool, inputs });
        }}>
          ${tools.map((t) => html`<option value=${t.tool}>${t.tool}</option>`)}
        </select></div>
      <div class="field"><label for=${`${base}-q`}>Node ${n} quality</label>
        <select id=${`${base}-q`} value=${node.quality ?? '2k'} onChange=${(/** @type {any} */ e) => onChange({ quality: e.currentTarget.value })}>
          ${(entry?.prices ?? []).map((p) => html`<option value=${p.resolution}>${p.resolution} · ${tokens(p.tokens)}</option>`)}
        </select></div>
      ${roles.map((role) => {
        const src = node.inputs?.[role];
        const value = src?.node ? `node:${src.node}` : `item:${src?.item ?? role}`;
        return html`<div class="field"><label for=${`${base}-${role}`}>Node ${n} ${role} from</label>
          <select id=${`${base}-${role}`} value=${value} onChange=${(/** @type {any} */ e) => setSource(role, e.currentTarget.value)}>
            ${ROLES.map((k) => html`<option value=${`item:${k}`}>the item’s ${k}</option>`)}
            ${earlier.map((id) => html`<option value=${`node:${id}`}>node ${id}’s frame</option>`)}
          </select></div>`;
      })}
      ${onRemove && html`<button type="button" class="link-button" onClick=${onRemove} aria-label=${`Remove node ${n}`}>Remove</button>`}
    </div>
  </fieldset>`;
}

/**
 * A preview: per-node cost, skipped steps, the total and whether the balance covers it.
 * @param {{preview: {compiled: import('../api.js').CompiledLine, spendable: number, affordable: boolean}}} props
 */
function Preview({ preview }) {
  const c = preview.compiled;
  return html`<section aria-label="Preview" class="stack">
    <table class="table">
      <caption>Cost by node</caption>
      <thead><tr><th scope="col">Node</th><th scope="col">Tool</th><th scope="col">Quality</th><th scope="col">Frames</th><th scope="col">Each</th><th scope="col">Tokens</th></tr></thead>
      <tbody>${c.nodes.map((n) => html`<tr key=${n.node}><td>${n.node}</td><td>${n.tool}</td><td>${n.quality}</td><td>${n.frames}</td><td>${n.tokensEach}</td><td>${n.tokens}</td></tr>`)}</tbody>
    </table>
    <p><strong>${c.frames} ${c.frames === 1 ? 'frame' : 'frames'}, ${tokens(c.tokens)}.</strong>
      ${preview.affordable ? ` Your ${tokens(preview.spendable)} cover it.` : ` You have ${tokens(preview.spendable)}: not enough.`}</p>
    ${c.skipped.length > 0 &&
    html`<div><p>${c.framesSkipped} ${c.framesSkipped === 1 ? 'step is' : 'steps are'} skipped (they hold nothing):</p>
      <ul aria-label="Skipped steps">${c.skipped.map((s) => html`<li>item ${s.item + 1}, node ${s.node}: ${s.reason}</li>`)}</ul></div>`}
  </section>`;
}
