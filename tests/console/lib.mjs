// Helpers of the console's browser tests: test images made here (PNG through zlib), a small
// zip reader, waiting, and the check of recorded requests against /openapi.json.

import fs from 'node:fs';
import zlib from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A w×h RGB PNG: a gradient tinted by `tint`, with a diagonal stripe so no two pictures are alike.
 * @param {number} w
 * @param {number} h
 * @param {[number, number, number]} tint
 */
export function png(w, h, tint) {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1);
    raw[row] = 0;
    for (let x = 0; x < w; x++) {
      const stripe = (x + y) % 40 < 6 ? 60 : 0;
      const i = row + 1 + x * 3;
      raw[i] = Math.min(255, Math.round((tint[0] * (x + 20)) / w) + stripe);
      raw[i + 1] = Math.min(255, Math.round((tint[1] * (y + 20)) / h) + stripe);
      raw[i + 2] = Math.min(255, tint[2] + stripe);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The entries of a zip archive (central directory), with each entry's bytes when stored or
 * deflated.
 * @param {Buffer} zip
 * @returns {{name: string, size: number, data: Buffer}[]}
 */
export function unzip(zip) {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  let count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  // Zip64: the counts live in the zip64 end record.
  if (count === 0xffff || offset === 0xffffffff) {
    const locator = eocd - 20;
    if (zip.readUInt32LE(locator) !== 0x07064b50) throw new Error('zip64 without a locator');
    const rec = Number(zip.readBigUInt64LE(locator + 8));
    count = Number(zip.readBigUInt64LE(rec + 32));
    offset = Number(zip.readBigUInt64LE(rec + 48));
  }
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error(`bad central directory entry ${n}`);
    const method = zip.readUInt16LE(offset + 10);
    let csize = zip.readUInt32LE(offset + 20);
    let size = zip.readUInt32LE(offset + 24);
    const nameLen = zip.readUInt16LE(offset + 28);
    const extraLen = zip.readUInt16LE(offset + 30);
    const commentLen = zip.readUInt16LE(offset + 32);
    let local = zip.readUInt32LE(offset + 42);
    const name = zip.subarray(offset + 46, offset + 46 + nameLen).toString('utf8');
    // Zip64 extra field: sizes and offset that did not fit.
    let e = offset + 46 + nameLen;
    const end = e + extraLen;
    while (e + 4 <= end) {
      const id = zip.readUInt16LE(e);
      const len = zip.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let p = e + 4;
        if (size === 0xffffffff) {
          size = Number(zip.readBigUInt64LE(p));
          p += 8;
        }
        if (csize === 0xffffffff) {
          csize = Number(zip.readBigUInt64LE(p));
          p += 8;
        }
        if (local === 0xffffffff) local = Number(zip.readBigUInt64LE(p));
      }
      e += 4 + len;
    }
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header of ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + csize);
    const data = method === 0 ? raw : method === 8 ? zlib.inflateRawSync(raw) : Buffer.alloc(0);
    entries.push({ name, size, data });
    offset = end + commentLen;
  }
  return entries;
}

/**
 * Wait until `fn` returns something truthy (retrying on throws), or fail with `what`.
 * @template T
 * @param {string} what
 * @param {() => Promise<T> | T} fn
 * @param {number} [timeout]
 * @returns {Promise<T>}
 */
export async function until(what, fn, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * The operations of an OpenAPI document as matchers: method and path template.
 * @param {any} doc
 */
export function operations(doc) {
  const ops = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    const pattern = new RegExp(
      `^${template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('')}$`,
    );
    for (const method of Object.keys(item)) {
      if (['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) {
        ops.push({ method: method.toUpperCase(), template, pattern, params: item[method].parameters ?? [] });
      }
    }
  }
  return ops;
}

/**
 * The requests of a run that are neither the console's own (its files and page paths) nor an
 * operation of the document, and those that left the origin.
 * @param {{method: string, url: string}[]} log
 * @param {ReturnType<typeof operations>} ops
 * @param {string} origin  e.g. http://127.0.0.1:8787
 * @param {string[]} pages  the console's page segments
 */
export function strayRequests(log, ops, origin, pages) {
  const wsOrigin = origin.replace(/^http/, 'ws');
  const stray = [];
  for (const { method, url } of log) {
    if (url.startsWith('data:') || url.startsWith('blob:')) continue;
    const u = new URL(url);
    if (u.origin !== origin && u.origin !== wsOrigin) {
      stray.push({ method, url, why: 'another origin' });
      continue;
    }
    const path = u.pathname;
    if (method === 'GET' && path.startsWith('/console/')) continue;
    const first = path.split('/')[1] ?? '';
    if (method === 'GET' && (path === '/' || pages.includes(first))) continue;
    const m = method === 'HEAD' ? 'GET' : method;
    if (!ops.some((op) => op.method === m && op.pattern.test(path))) stray.push({ method, url, why: 'not in /openapi.json' });
  }
  return stray;
}

/** A letter's text with quoted-printable soft breaks and `=XX` escapes undone. */
export function decodeLetter(data) {
  const joined = data.replace(/=\r\n/g, '');
  const bytes = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(joined[i], 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The newest link with `path` in a letter to `to`, from the SMTP sink's file.
 * @param {string} file  the sink's JSON lines
 * @param {string} to
 * @param {string} path  e.g. /verify-email
 */
export function linkInLetters(file, to, path) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  for (const letter of lines.reverse()) {
    if (!letter.to.some((t) => t.toLowerCase() === to.toLowerCase())) continue;
    const m = new RegExp(`https?://[^\\s"'<>]*${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?token=[0-9a-f]{64}`).exec(decodeLetter(letter.data));
    if (m) return m[0];
  }
  return null;
}
