// @ts-check
/**
 * The library: folders (create, rename, delete: a folder's images and folders move up to its
 * parent), one page of thumbnails at a time (never the whole
 * library: 100 tiles a page, cursor paging), uploads by file picker or drag and drop with
 * per-file progress and each refusal in words, and select many, then pack (download the zip),
 * move or delete.
 */

import { useEffect, useRef, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { can, useStore } from '../store.js';
import { feed } from '../socket.js';
import { navigate } from '../router.js';
import { Loading, PageTitle, Refusal, formatBytes, useId, useTitle, wordsOf } from '../ui/common.js';
import { Thumb, forget, remember, takeFirstPage } from '../ui/assets.js';

/** @typedef {import('../api.js').Asset} Asset */
/** @typedef {import('../api.js').Folder} Folder */
/**
 * @typedef {{key: number, name: string, size: number, sent: number, state: 'waiting' | 'sending' | 'done' | 'refused',
 *   words?: string}} Upload
 */

/** Tiles a page (app.js asks for the first page of the library this size at boot). */
export const PAGE = 100;
const PARALLEL = 3;

/** @param {import('../router.js').PageProps} props */
export default function Library({ query }) {
  useStore();
  const powers = can();
  const folderId = query.get('folder');
  const [folders, setFolders] = useState(/** @type {Folder[] | null} */ (null));
  const [assets, setAssets] = useState(/** @type {Asset[] | null} */ (null));
  const [next, setNext] = useState(/** @type {string | null} */ (null));
  const [stack, setStack] = useState(/** @type {(string | null)[]} */ ([]));
  const [cursor, setCursor] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [selected, setSelected] = useState(/** @type {Set<string>} */ (new Set()));
  const [uploads, setUploads] = useState(/** @type {Upload[]} */ ([]));
  const [reload, setReload] = useState(0);
  const folder = folders?.find((f) => f.id === folderId) ?? null;
  useTitle(folder ? folder.name : 'Library');

  useEffect(() => {
    api.listFolders().then((r) => setFolders(r.folders), setError);
  }, []);

  // A new folder starts at its first page.
  useEffect(() => {
    setCursor(null);
    setStack([]);
    setSelected(new Set());
  }, [folderId]);

  useEffect(() => {
    let live = true;
    const first = !folderId && cursor === null && reload === 0 ? takeFirstPage() : null;
    (first ?? api.listAssetsPage({ folderId, limit: PAGE, cursor })).then(
      (page) => {
        if (!live) return;
        remember(page.assets);
        setAssets(page.assets);
        setNext(page.nextCursor ?? null);
        setError(null);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [folderId, cursor, reload]);

  // A develop that lands while the page is open files a new frame: show it on the first page.
  // (The backfill's old jobs arrive already done and are not news.)
  useEffect(() => {
    /** @type {Set<string>} */
    const inFlight = new Set();
    return feed.subscribe((m) => {
      if (m.type !== 'job') return;
      if (m.job.status === 'queued' || m.job.status === 'running') inFlight.add(m.job.id);
      else if (inFlight.delete(m.job.id) && m.job.status === 'done' && cursor === null && !folderId) {
        setReload((n) => n + 1);
      }
    });
  }, [cursor, folderId]);

  /** @param {File[]} files */
  const upload = async (files) => {
    if (!files.length) return;
    const base = Date.now();
    /** @type {Upload[]} */
    const rows = files.map((f, i) => ({ key: base + i, name: f.name, size: f.size, sent: 0, state: 'waiting' }));
    setUploads((u) => [...rows, ...u]);
    const update = (/** @type {number} */ key, /** @type {Partial<Upload>} */ patch) =>
      setUploads((u) => u.map((r) => (r.key === key ? { ...r, ...patch } : r)));
    let index = 0;
    const worker = async () => {
      while (index < files.length) {
        const i = index++;
        const file = files[i];
        const key = rows[i].key;
        update(key, { state: 'sending' });
        try {
          const res = await api.uploadAsset(file, { folderId }, (sent) => update(key, { sent }));
          remember([res.asset]);
          update(key, { state: 'done', sent: file.size });
        } catch (e) {
          update(key, { state: 'refused', words: wordsOf(e) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, files.length) }, worker));
    if (cursor === null) setReload((n) => n + 1);
  };

  const toggle = (/** @type {string} */ id) =>
    setSelected((s) => {
      const copy = new Set(s);
      if (copy.has(id)) copy.delete(id);
      else copy.add(id);
      return copy;
    });

  const older = () => {
    if (!next) return;
    setStack((s) => [...s, cursor]);
    setCursor(next);
  };
  const newer = () => {
    const prev = stack[stack.length - 1] ?? null;
    setStack((s) => s.slice(0, -1));
    setCursor(prev);
  };

  return html`<div class="library">
    <${Folders}
      folders=${folders}
      current=${folderId}
      onChange=${setFolders}
      onDeleted=${() => setReload((n) => n + 1)}
      powers=${powers}
    />
    <${Drop} enabled=${powers.write} onFiles=${upload}>
      <div class="toolbar">
        <${PageTitle}>${folder ? folder.name : 'Library'}<//>
        ${powers.write && html`<${UploadButton} onFiles=${upload} />`}
      </div>
      ${powers.write && html`<p class="drop-hint muted">Drop images anywhere here to upload them${folder ? ` into ${folder.name}` : ''}.</p>`}
      <${Uploads} uploads=${uploads} onClear=${() => setUploads((u) => u.filter((r) => r.state === 'sending' || r.state === 'waiting'))} />
      <${Refusal} error=${error} />
      ${selected.size > 0 &&
      html`<${Selection}
        ids=${[...selected]}
        folders=${folders ?? []}
        powers=${powers}
        onClear=${() => setSelected(new Set())}
        onChanged=${() => {
          setSelected(new Set());
          setReload((n) => n + 1);
        }}
      />`}
      ${assets === null
        ? html`<${Loading} what="Loading the library" />`
        : assets.length === 0
          ? html`<p class="empty">${cursor ? 'No more assets.' : powers.write ? 'Nothing here yet: upload images to begin.' : 'Nothing here yet.'}</p>`
          : html`<ul class="grid" aria-label="Assets">
              ${assets.map((a, i) => html`<${Tile} key=${a.id} asset=${a} eager=${i < 12} selected=${selected.has(a.id)} onToggle=${toggle} />`)}
            </ul>`}
      ${(stack.length > 0 || next) &&
      html`<nav class="pager" aria-label="Pages">
        <button type="button" onClick=${newer} disabled=${stack.length === 0}>Newer</button>
        <span>Page ${stack.length + 1}</span>
        <button type="button" onClick=${older} disabled=${!next}>Older</button>
      </nav>`}
    <//>
  </div>`;
}

/**
 * One asset: a link named by the asset's name, with a checkbox beside it.
 * @param {{asset: Asset, selected: boolean, eager: boolean, onToggle: (id: string) => void}} props
 */
function Tile({ asset, selected, eager, onToggle }) {
  return html`<li class=${`tile${selected ? ' selected' : ''}`}>
    <a href=${`/assets/${encodeURIComponent(asset.id)}`}>
      <${Thumb} id=${asset.id} eager=${eager} />
      <span class="name">${asset.name}</span>
    </a>
    <input
      type="checkbox"
      class="pick"
      aria-label=${`Select ${asset.name}`}
      checked=${selected}
      onChange=${() => onToggle(asset.id)}
    />
  </li>`;
}

/** @param {{onFiles: (files: File[]) => void}} props */
function UploadButton({ onFiles }) {
  const id = useId('upload');
  return html`<span>
    <input
      id=${id}
      class="upload-input"
      type="file"
      multiple
      accept="image/jpeg,image/png,image/webp,image/gif,.jpg,.jpeg,.png,.webp,.gif"
      onChange=${(/** @type {any} */ e) => {
        const input = /** @type {HTMLInputElement} */ (e.currentTarget);
        onFiles([...(input.files ?? [])]);
        input.value = '';
      }}
    />
    <label for=${id} class="upload-label">Upload images</label>
  </span>`;
}

/**
 * The drop zone around the library's content.
 * @param {{enabled: boolean, onFiles: (files: File[]) => void, children: any}} props
 */
function Drop({ enabled, onFiles, children }) {
  const [over, setOver] = useState(false);
  if (!enabled) return html`<section aria-label="Library content">${children}</section>`;
  /** @param {DragEvent} e */
  const dragOver = (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    setOver(true);
  };
  /** @param {DragEvent} e */
  const drop = (e) => {
    e.preventDefault();
    setOver(false);
    onFiles([...(e.dataTransfer?.files ?? [])]);
  };
  return html`<section
    aria-label="Library content"
    class=${over ? 'drop-zone over' : 'drop-zone'}
    onDragOver=${dragOver}
    onDragLeave=${() => setOver(false)}
    onDrop=${drop}
  >
    ${children}
  </section>`;
}

/** @param {{uploads: Upload[], onClear: () => void}} props */
function Uploads({ uploads, onClear }) {
  if (!uploads.length) return null;
  const finished = uploads.every((u) => u.state === 'done' || u.state === 'refused');
  return html`<section aria-label="Uploads">
    <ul class="uploads">
      ${uploads.map(
        (u) => html`<li key=${u.key}>
          <span>${u.name} <span class="muted">(${formatBytes(u.size)})</span></span>
          ${u.state === 'refused'
            ? html`<span class="bad" role="alert">Refused: ${u.words}</span>`
            : u.state === 'done'
              ? html`<span>Uploaded</span>`
              : html`<progress max=${u.size || 1} value=${u.sent} aria-label=${`Uploading ${u.name}`}></progress>`}
        </li>`,
      )}
    </ul>
    ${finished && html`<button type="button" class="link-button" onClick=${onClear}>Clear the upload list</button>`}
  </section>`;
}

/**
 * What to do with the selected assets: pack (everyone), move and delete (not viewers).
 * @param {{ids: string[], folders: Folder[], powers: ReturnType<typeof can>, onClear: () => void,
 *   onChanged: () => void}} props
 */
function Selection({ ids, folders, powers, onClear, onChanged }) {
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [pack, setPack] = useState(/** @type {import('../api.js').Pack | null} */ (null));
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const download = useRef(/** @type {HTMLAnchorElement | null} */ (null));
  const moveId = useId('move');

  // A queued pack is ready when the socket says so (or a poll finds it).
  useEffect(() => {
    if (!pack || pack.status === 'ready' || pack.status === 'failed') return;
    const id = pack.packId;
    const check = () => api.getPack(id).then(setPack, setError);
    const off = feed.subscribe((m) => {
      if (m.type === 'pack.ready' && m.pack?.packId === id) void check();
    });
    const timer = setInterval(check, 3000);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [pack?.packId, pack?.status]);

  useEffect(() => {
    if (pack?.status === 'ready') download.current?.click();
  }, [pack?.status]);

  const makePack = async () => {
    setError(null);
    setBusy(true);
    try {
      setPack(await api.createPack(ids));
    } catch (e) {
      setError(e);
    }
    setBusy(false);
  };
  const remove = async () => {
    setError(null);
    try {
      await api.deleteAssets(ids);
      forget(ids);
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  /** @param {SubmitEvent} e */
  const move = async (e) => {
    e.preventDefault();
    const value = String(new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)).get('folder') ?? '');
    try {
      await api.patchAssetsBatch({ assetIds: ids, folderId: value || null });
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="selection" aria-label="Selection">
    <strong>${ids.length} selected</strong>
    <button type="button" onClick=${makePack} disabled=${busy}>Pack</button>
    ${pack &&
    (pack.status === 'ready'
      ? html`<a ref=${download} href=${api.packFileUrl(pack.packId)} download=${pack.filename}>Download ${pack.filename}</a>`
      : pack.status === 'failed'
        ? html`<span role="alert">The pack failed: ${pack.error}</span>`
        : html`<span aria-live="polite">Packing ${pack.filename}…</span>`)}
    ${powers.write &&
    html`<form class="row" onSubmit=${move}>
      <label for=${moveId} class="visually-hidden">Move to folder</label>
      <select id=${moveId} name="folder">
        <option value="">Library root</option>
        ${folders.map((f) => html`<option value=${f.id}>${f.name}</option>`)}
      </select>
      <button type="submit">Move</button>
    </form>`}
    ${powers.write &&
    (confirming
      ? html`<span class="row" role="group" aria-label="Confirm delete">
          <span>Delete ${ids.length} for good?</span>
          <button type="button" class="danger" onClick=${remove}>Delete for good</button>
          <button type="button" onClick=${() => setConfirming(false)}>Keep</button>
        </span>`
      : html`<button type="button" class="danger" onClick=${() => setConfirming(true)}>Delete</button>`)}
    <button type="button" class="link-button" onClick=${onClear}>Clear selection</button>
    <${Refusal} error=${error} />
  </section>`;
}

/**
 * The folders: all assets, each folder, create, rename and delete (owners, admins, members).
 * Deleting a folder deletes no image: its images and folders move up to its parent (the library
 * root when it has none), and the page shows that parent.
 * @param {{folders: Folder[] | null, current: string | null, onChange: (f: Folder[]) => void,
 *   onDeleted: () => void, powers: ReturnType<typeof can>}} props
 */
function Folders({ folders, current, onChange, onDeleted, powers }) {
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [renaming, setRenaming] = useState(/** @type {string | null} */ (null));
  const [deleting, setDeleting] = useState(/** @type {string | null} */ (null));
  const [note, setNote] = useState('');
  const newId = useId('folder');
  /** @param {SubmitEvent} e */
  const create = async (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const name = String(new FormData(form).get('name') ?? '').trim();
    if (!name) return;
    setError(null);
    try {
      const res = await api.createFolder(name);
      onChange([...(folders ?? []), res.folder]);
      form.reset();
      navigate(`/library?folder=${encodeURIComponent(res.folder.id)}`);
    } catch (err) {
      setError(err);
    }
  };
  /** @param {SubmitEvent} e */
  const rename = async (e) => {
    e.preventDefault();
    const name = String(new FormData(/** @type {HTMLFormElement} */ (e.currentTarget)).get('name') ?? '').trim();
    if (!renaming) return;
    setError(null);
    try {
      const res = await api.renameFolder(renaming, name);
      onChange((folders ?? []).map((f) => (f.id === renaming ? res.folder : f)));
      setRenaming(null);
    } catch (err) {
      setError(err);
    }
  };
  const parentOf = (/** @type {Folder} */ f) => (f.parentId ? (folders ?? []).find((p) => p.id === f.parentId) ?? null : null);
  const whereTo = (/** @type {Folder} */ f) => {
    const parent = parentOf(f);
    return parent ? `“${parent.name}”` : 'the library root';
  };
  const remove = async (/** @type {Folder} */ f) => {
    setError(null);
    setNote('');
    try {
      const res = await api.deleteFolder(f.id);
      const moved = [
        `${res.movedAssets} ${res.movedAssets === 1 ? 'image' : 'images'}`,
        ...(res.movedFolders ? [`${res.movedFolders} ${res.movedFolders === 1 ? 'folder' : 'folders'}`] : []),
      ].join(' and ');
      setNote(`Deleted the folder “${f.name}”: ${moved} moved up to ${whereTo(f)}. No image was deleted.`);
      setDeleting(null);
      onChange((folders ?? []).filter((x) => x.id !== f.id).map((x) => (x.parentId === f.id ? { ...x, parentId: f.parentId } : x)));
      api.listFolders().then((r) => onChange(r.folders), () => {});
      if (current === f.id) navigate(f.parentId ? `/library?folder=${encodeURIComponent(f.parentId)}` : '/library');
      else onDeleted();
    } catch (err) {
      setDeleting(null);
      setError(err);
      if (err instanceof api.ApiError && err.status === 404) api.listFolders().then((r) => onChange(r.folders), () => {});
    }
  };
  return html`<aside class="folders card" aria-label="Folders">
    <h2>Folders</h2>
    <ul>
      <li><a href="/library" aria-current=${current ? undefined : 'page'}>All assets</a></li>
      ${(folders ?? []).map((f) =>
        deleting === f.id
          ? html`<li key=${f.id} class="confirming">
              <div class="stack" role="group" aria-label=${`Confirm deleting the folder ${f.name}`}>
                <p>
                  Delete the folder <strong>${f.name}</strong>? ${folders?.some((x) => x.parentId === f.id) ? 'Its images and folders' : 'Its images'} move up to ${whereTo(f)}; no image is deleted.
                </p>
                <div class="row">
                  <button type="button" class="danger" onClick=${() => remove(f)}>Delete the folder</button>
                  <button type="button" onClick=${() => setDeleting(null)}>Keep</button>
                </div>
              </div>
            </li>`
          : renaming === f.id
          ? html`<li key=${f.id}>
              <form onSubmit=${rename} class="row">
                <label class="visually-hidden" for=${`rename-${f.id}`}>New name for ${f.name}</label>
                <input id=${`rename-${f.id}`} name="name" value=${f.name} required />
                <button type="submit">Save</button>
                <button type="button" onClick=${() => setRenaming(null)}>Cancel</button>
              </form>
            </li>`
          : html`<li key=${f.id}>
              <a href=${`/library?folder=${encodeURIComponent(f.id)}`} aria-current=${current === f.id ? 'page' : undefined}>${f.name}</a>
              ${powers.write &&
              html`<span class="folder-actions">
                <button type="button" class="link-button" aria-label=${`Rename ${f.name}`} onClick=${() => setRenaming(f.id)}>
                  Rename
                </button>
                <button
                  type="button"
                  class="link-button"
                  aria-label=${`Delete folder ${f.name}`}
                  onClick=${() => {
                    setRenaming(null);
                    setNote('');
                    setDeleting(f.id);
                  }}
                >
                  Delete
                </button>
              </span>`}
            </li>`,
      )}
    </ul>
    ${powers.write &&
    html`<form onSubmit=${create}>
      <label for=${newId} class="visually-hidden">New folder name</label>
      <input id=${newId} name="name" placeholder="New folder" maxlength="200" />
      <button type="submit">Create folder</button>
    </form>`}
    ${note && html`<p class="notice" aria-live="polite">${note}</p>`}
    <${Refusal} error=${error} />
  </aside>`;
}
