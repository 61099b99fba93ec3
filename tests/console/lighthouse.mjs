// Lighthouse (npm `lighthouse`, driving Debian's Chromium) on the library page of a house with
// 200 assets: prints the performance, accessibility and best-practices scores. Run by hand:
//
//   node tests/console/lighthouse.mjs            (starts target/debug/studio-server itself)
//   STUDIO_SERVER_BIN=target/release/studio-server node tests/console/lighthouse.mjs
//   STUDIO_URL=http://127.0.0.1:8787 node tests/console/lighthouse.mjs   (a server already up)
//
// The full report goes to target/console-screens/lighthouse-library.html.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { png } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', '..');
const ASSETS = Number(process.env.ASSETS ?? 200);

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

async function startServer() {
  const bin = process.env.STUDIO_SERVER_BIN ?? path.join(root, 'target', 'debug', 'studio-server');
  const port = await freePort();
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-lh-'));
  const child = spawn(bin, [], {
    env: { ...process.env, STUDIO_DATA_DIR: data, STUDIO_LISTEN: `127.0.0.1:${port}`, STUDIO_BILLING: 'test', STUDIO_RATE_LIMIT_PER_MIN: '0' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, stop: () => { child.kill(); fs.rmSync(data, { recursive: true, force: true }); } };
}

const server = process.env.STUDIO_URL ? { base: process.env.STUDIO_URL.replace(/\/$/, ''), stop: () => {} } : await startServer();
const BASE = server.base;

try {
  // A house with ASSETS assets, made through the API.
  const res = await fetch(`${BASE}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `lighthouse-${Date.now()}@maison.test`, password: 'a long enough password', name: 'Lighthouse' }),
  });
  if (!res.ok) throw new Error(`sign-up: ${res.status} ${await res.text()}`);
  const token = /studio_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!token) throw new Error('no session cookie');
  const cookie = `studio_session=${token}`;
  for (let i = 0; i < ASSETS; i++) {
    const form = new FormData();
    const tint = [(i * 37) % 256, (i * 91) % 256, (i * 53) % 256];
    form.append('file', new Blob([png(640, 480, tint)], { type: 'image/png' }), `frame-${String(i).padStart(3, '0')}.png`);
    const up = await fetch(`${BASE}/api/toolkit/assets/upload`, { method: 'POST', headers: { cookie }, body: form });
    if (!up.ok) throw new Error(`upload ${i}: ${up.status} ${await up.text()}`);
  }
  // Renditions are made on their first read and kept: read the first page's thumbnails once, as
  // any earlier visit would have, so the figures are of the steady state.
  const page = await (await fetch(`${BASE}/api/toolkit/assets?limit=100`, { headers: { cookie } })).json();
  await Promise.all(page.assets.map((a) => fetch(`${BASE}/api/toolkit/assets/${a.id}/file?w=256`, { headers: { cookie } }).then((r) => r.arrayBuffer())));
  console.log(`lighthouse: a house with ${ASSETS} assets at ${BASE} (first page's thumbnails read once)`);

  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const page = await browser.newPage();
    await page.setCookie({ name: 'studio_session', value: token, url: BASE, httpOnly: true, sameSite: 'Lax' });
    const result = await lighthouse(
      `${BASE}/library`,
      {
        port: chrome.port,
        output: 'html',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility', 'best-practices'],
        disableStorageReset: true,
      },
      undefined,
      page,
    );
    if (!result) throw new Error('lighthouse gave no result');
    const out = path.join(root, 'target', 'console-screens');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'lighthouse-library.html'), /** @type {string} */ (result.report));
    const c = result.lhr.categories;
    const score = (/** @type {any} */ cat) => Math.round((cat?.score ?? 0) * 100);
    console.log(`lighthouse (library, ${ASSETS} assets, ${result.lhr.configSettings.formFactor}): performance ${score(c.performance)}, accessibility ${score(c.accessibility)}, best practices ${score(c['best-practices'])}`);
    for (const key of ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'cumulative-layout-shift', 'speed-index']) {
      const a = result.lhr.audits[key];
      if (a) console.log(`  ${a.title}: ${a.displayValue}`);
    }
    for (const cat of ['accessibility', 'best-practices']) {
      for (const ref of c[cat]?.auditRefs ?? []) {
        const a = result.lhr.audits[ref.id];
        if (ref.weight > 0 && a && a.score !== null && a.score < 1) console.log(`  ${cat} below full marks: ${a.id}: ${a.title}`);
      }
    }
    await browser.disconnect();
  } finally {
    chrome.kill();
  }
} finally {
  server.stop();
}
