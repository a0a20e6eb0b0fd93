// The browser tests' harness: a real `xqfarm serve` on a free port with a temp db and data
// dir and `--token t`, the farm filled with the xqfarm CLI (variants, openings, a run), an
// optional `xqfarm worker`, and the system's Chromium driven by playwright-core (never a
// downloaded browser).

import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS = join(here, 'artifacts');
export const TOKEN = 't';
export const BIN = resolve(process.env.XQFARM_BIN || join(here, '../../target/debug/xqfarm'));
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const run = promisify(execFile);

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value, or throws `what` after `ms`. */
export async function until(fn, what, ms = 30000, every = 200) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(every);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
}

function child(name, args, log) {
  const p = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  p.output = '';
  const keep = (d) => {
    p.output += d;
    if (p.output.length > 200000) p.output = p.output.slice(-100000);
    if (log) process.stderr.write(`[${name}] ${d}`);
  };
  p.stdout.on('data', keep);
  p.stderr.on('data', keep);
  p.exited = new Promise((r) => p.on('exit', (code, signal) => r({ code, signal })));
  p.on('error', (e) => { p.output += `\nspawn error: ${e.message}`; });
  return p;
}

/**
 * A farm: `xqfarm serve`, two in-process variants (`cand`, `base`), one opening suite, and
 * with `run` an active run; with `worker` a worker playing it.
 */
export async function startFarm({
  run: runOpts = null, worker = false, log = !!process.env.E2E_LOG, tablebases = [], openings = null,
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'xqfarm-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serveArgs = ['serve', '--listen', `127.0.0.1:${port}`, '--db', join(dir, 'farm.db'), '--data', join(dir, 'data'), '--token', TOKEN];
  // With `tablebases` (set names), those tables are generated first and served.
  if (tablebases.length) {
    const tb = join(dir, 'tb');
    await run(BIN, ['tb', 'generate', '--dir', tb, ...tablebases.flatMap((s) => ['--set', s])], { timeout: 120000 });
    serveArgs.push('--tablebases', tb);
  }
  const serve = child('serve', serveArgs, log);
  const farm = { dir, url, port, serve, worker: null, bin: BIN };
  farm.stop = async () => {
    for (const p of [farm.worker, farm.serve]) {
      if (p && p.exitCode === null && p.signalCode === null) {
        p.kill('SIGTERM');
        const t = setTimeout(() => p.kill('SIGKILL'), 5000);
        await p.exited;
        clearTimeout(t);
      }
    }
    if (!process.env.E2E_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(async () => {
      if (serve.exitCode !== null) throw new Error(`xqfarm serve exited (${serve.exitCode}):\n${serve.output}`);
      const res = await fetch(`${url}/api/me`);
      return res.ok;
    }, `xqfarm serve (${BIN}) to answer on ${url}/api/me`, 60000);
  } catch (e) {
    await farm.stop();
    throw new Error(`${e.message}\n--- serve output ---\n${serve.output}`);
  }
  farm.cli = async (...args) => {
    try {
      const { stdout } = await run(BIN, [...args, '--coordinator', url, '--token', TOKEN], { timeout: 60000 });
      return stdout;
    } catch (e) {
      throw new Error(`xqfarm ${args.join(' ')} failed: ${e.stderr || e.message}`);
    }
  };
  writeFileSync(join(dir, 'cand.toml'), '# the default parameters\n');
  writeFileSync(join(dir, 'base.toml'), '# the default parameters\n');
  writeFileSync(join(dir, 'openings.txt'), (openings || [
    'startpos moves h2e2 h9g7', 'startpos moves b2e2 b9c7', 'startpos moves g3g4 c6c5', 'startpos moves h0g2 h7h3',
  ]).join('\n'));
  // Variant ids are text (as the store gives them); suite ids are numbers.
  const id = (out) => out.trim().split(/\s+/)[0];
  farm.variants = {
    cand: id(await farm.cli('variant', 'add', join(dir, 'cand.toml'), '--name', 'cand')),
    base: id(await farm.cli('variant', 'add', join(dir, 'base.toml'), '--name', 'base')),
  };
  farm.suite = Number(id(await farm.cli('openings', 'add', join(dir, 'openings.txt'), '--name', 'e2e')));
  farm.createRun = (opts) => createRun(farm, opts);
  farm.startWorker = () => {
    farm.worker = child('worker', ['worker', '--coordinator', url, '--token', TOKEN, '--concurrency', '1',
      '--spool', join(dir, 'spool'), '--name', 'e2e-worker'], log);
  };
  if (runOpts) farm.runId = await farm.createRun(runOpts);
  if (worker) farm.startWorker();
  return farm;
}

/** Creates a run with the CLI; returns its id. */
async function createRun(farm, { kind = 'sprt', tc = 'nodes=1500', pairs = 20, name = 'e2e run' } = {}) {
  const args = ['run', 'create', '--name', name, '--kind', kind, '--variants', `${farm.variants.cand}`, `${farm.variants.base}`, '--suite', `${farm.suite}`, '--tc', tc];
  if (kind !== 'sprt') args.push('--pairs', `${pairs}`);
  return Number((await farm.cli(...args)).trim());
}

export { createRun };

/** The browser: the system's Chromium, headless, with a temp profile. */
export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'xqfarm-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(20000);
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** A page whose console errors and uncaught exceptions are collected (tests assert none). */
export async function newPage(context) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`uncaught: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()} (${m.location().url})`); });
  page.on('dialog', (d) => d.accept());
  return page;
}

/** Signs the browser in through the login form. */
export async function signIn(page, url, token = TOKEN) {
  await page.goto(`${url}/login`);
  await page.fill('[data-testid=login-token]', token);
  await Promise.all([page.waitForURL(`${url}/`), page.click('[data-testid=login-submit]')]);
  await page.waitForSelector('body[data-ready]');
}

/** Opens a page of the app and waits until it has rendered (or shown its error). */
export async function open(page, url) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  const ready = await page.getAttribute('body', 'data-ready');
  if (ready !== 'true') {
    const msg = await page.textContent('#messages');
    throw new Error(`${url} did not render: ${msg}`);
  }
}

export async function screenshot(page, name, clip = null) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot(clip ? { path: join(ARTIFACTS, `${name}.png`), clip } : { path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Fails with a clear message when this xqfarm does not serve an API route the pages need
 * (the farm and play APIs land on other branches): a 404 `no route` means not merged yet.
 */
export async function requireApi(url, path, what) {
  const res = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  if (res.status === 404 && !(res.headers.get('content-type') || '').includes('json')) {
    throw new Error(`this xqfarm (${BIN}) does not serve ${path}: the ${what} is not merged into it yet`);
  }
  return res;
}

/** A JSON call with the bearer token (the tests' own view of the farm). */
export async function api(url, path, init = {}) {
  const res = await fetch(`${url}${path}`, { ...init, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', ...(init.headers || {}) } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method || 'GET'} ${path}: ${res.status} ${text}`);
  try { return JSON.parse(text); } catch { return text; }
}

/** The pieces drawn on the board: Map square -> FEN letter. */
export async function boardPieces(page) {
  const list = await page.$$eval('[data-testid=board] [data-piece]', (els) => els.map((e) => [e.getAttribute('data-at'), e.getAttribute('data-piece')]));
  return new Map(list);
}

/** The placement of a FEN as Map square -> letter (the test's own reading). */
export function fenPieces(fen) {
  const map = new Map();
  fen.split(' ')[0].split('/').forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else { map.set(`${'abcdefghi'[file]}${9 - i}`, ch); file += 1; }
    }
  });
  return map;
}

export function samePieces(a, b) {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

export function describeDiff(a, b) {
  const out = [];
  for (const [k, v] of a) if (b.get(k) !== v) out.push(`${k}: board ${v} fen ${b.get(k) ?? '-'}`);
  for (const [k, v] of b) if (!a.has(k)) out.push(`${k}: board - fen ${v}`);
  return out.join(', ');
}

/** Clicks two squares (click-click move). */
export async function clickMove(page, uci) {
  await page.click(`[data-testid=board] [data-square=${uci.slice(0, 2)}]`);
  await page.click(`[data-testid=board] [data-square=${uci.slice(2, 4)}]`);
}

/** Drags from one square to another with the mouse (pointer events). */
export async function dragMove(page, uci) {
  const box = async (sq) => {
    const b = await page.locator(`[data-testid=board] [data-square=${sq}]`).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  const [x1, y1] = await box(uci.slice(0, 2));
  const [x2, y2] = await box(uci.slice(2, 4));
  await page.mouse.move(x1, y1);
  await page.mouse.down();
  await page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, { steps: 5 });
  await page.mouse.move(x2, y2, { steps: 5 });
  await page.mouse.up();
}

/** What every suite starts from: a farm (`startFarm(farmOptions)`), then `check(farm)` (e.g.
 * that an API is served; a failure stops the farm and fails the suite), a browser, and a page
 * signed in. */
export async function startSession(farmOptions = {}, check = async () => {}) {
  const farm = await startFarm(farmOptions);
  try {
    await check(farm);
  } catch (e) {
    await farm.stop();
    throw e;
  }
  const browser = await launchBrowser();
  const page = await newPage(browser.context);
  await signIn(page, farm.url);
  return { farm, browser, page };
}

/** Ends what `startSession` started (either may be missing when the start failed). */
export async function stopSession({ farm, browser }) {
  await browser?.close();
  await farm?.stop();
}
