// The pages against the contract's JSON shapes, served by the test (playwright routes) where
// this xqfarm does not serve the API yet: the shell, the assets and signing in are the real
// server's; /api/runs, /api/events, /api/games and /api/play answers are fixtures shaped as
// /work/prompts/web-contract.md says. The same pages run against the real API in farm.test.mjs
// and play.test.mjs.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  startSession,
  stopSession,
  boardPieces, clickMove, describeDiff, fenPieces, launchBrowser, newPage, open, samePieces, screenshot, signIn,
  startFarm, until,
} from '../harness.mjs';

const START = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';
const AFTER1 = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1';
const AFTER2 = 'rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2';

let farm;
let browser;
let page;

function runRow(games, extra = {}) {
  const w = Math.floor(games * 0.4);
  const l = Math.floor(games * 0.3);
  return {
    id: 1, name: 'fixture sprt', kind: 'sprt', variants: [{ id: 1, name: 'cand' }, { id: 2, name: 'base' }], tc: 'nodes=5000',
    games, pairs_total: null, wdl: [w, games - w - l, l], pentanomial: [1, 2, 3, 2, 1], elo: 12.3, elo_ci: [2.1, 22.5],
    nelo: 20.1, nelo_ci: [4, 36], los: 0.97, llr: 0.05 * games, bounds: [-2.94, 2.94], state: 'active', verdict: null,
    created_ms: Date.now() - 60000, missing_engines: [], ...extra,
  };
}

const json = (route, body, status = 200) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

before(async () => {
  ({ farm, browser, page } = await startSession());
});

after(() => stopSession({ farm, browser }));

test('runs page (fixtures): SSE updates change the cells in place, the table is never rebuilt', async () => {
  page.errors.length = 0;
  let sent = 0;
  await page.route('**/api/runs?*', (r) => json(r, { total: 2, runs: [runRow(10), { ...runRow(40, { state: 'sprt_h1', verdict: 'accepted', llr: 2.95 }), id: 0, name: 'older' }] }));
  await page.route('**/api/events', (r) => {
    sent += 1;
    const body = `retry: 150\nevent: runs\ndata: ${JSON.stringify({ runs: [runRow(10 + 2 * sent)] })}\n\n`;
    return r.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, body });
  });
  await open(page, `${farm.url}/`);
  const cell = (id, col) => page.textContent(`[data-testid=runs-table] tr[data-run-id="${id}"] [data-col=${col}]`);
  await page.evaluate(() => { document.querySelector('[data-testid=runs-table]').__marker = 'same'; });
  const rowBefore = await page.evaluateHandle(() => document.querySelector('tr[data-run-id="1"]'));
  const widthBefore = await page.evaluate(() => document.querySelector('[data-testid=runs-table]').getBoundingClientRect().width);
  await until(async () => Number(await cell(1, 'games')) >= 16, 'three SSE updates', 20000, 100);
  assert.equal(await page.evaluate(() => document.querySelector('[data-testid=runs-table]').__marker), 'same');
  assert.equal(await page.evaluate((r) => r === document.querySelector('tr[data-run-id="1"]'), rowBefore), true, 'the same row element');
  assert.equal(await page.evaluate(() => document.querySelector('[data-testid=runs-table]').getBoundingClientRect().width), widthBefore, 'no layout jump');
  assert.equal(await page.locator('[data-testid=runs-table] tbody tr').count(), 2);
  assert.equal(await cell(1, 'variants'), 'cand vs base');
  assert.equal(await cell(1, 'elo'), '+12.3 ± 10.2 (+20.1)');
  assert.match(await cell(0, 'state'), /sprt_h1: accepted/);
  const left = await page.$eval('tr[data-run-id="1"] .llr-fill', (e) => parseFloat(e.style.left));
  assert.ok(left > 50 && left < 100, `the LLR marker right of the middle: ${left}%`);
  await screenshot(page, 'runs-fixture');
  await screenshot(page, 'runs-readme', { x: 0, y: 0, width: 1280, height: 210 });
  assert.deepEqual(page.errors, []);
  await page.unrouteAll();
});

test('run page (fixtures): stats, LLR chart with bounds, histogram, games list; stop for the user role', async () => {
  page.errors.length = 0;
  let stopped = false;
  await page.route('**/api/runs/1', (r) => json(r, {
    run: runRow(20), spec: { name: 'fixture sprt', tc: 'nodes=5000' }, llr_history: [[0, 0], [10, 0.4], [20, 1.0]],
    terminations: [{ reason: 'checkmate', count: 12 }, { reason: 'repetition', count: 8 }],
    lengths: [{ plies_from: 0, plies_to: 49, count: 3 }, { plies_from: 50, plies_to: 99, count: 10 }, { plies_from: 100, plies_to: 149, count: 7 }],
    workers: [{ name: 'w1', pairs: 10, pentanomial: [1, 2, 3, 2, 2], chi2_residual: 0.4, last_seen_ms: Date.now() }],
  }));
  await page.route('**/api/runs/1/games?*', (r) => json(r, { total: 1, games: [{ id: 7, red: 'cand', black: 'base', result: '1-0', reason: 'checkmate', plies: 61, worker: 'w1' }] }));
  await page.route('**/api/runs/1/stop', (r) => { stopped = r.request().headers()['x-csrf-token']; return json(r, runRow(20, { state: 'stopped' })); });
  await page.route('**/api/events', (r) => r.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'retry: 100000\n\n' }));
  await open(page, `${farm.url}/runs/1`);
  assert.equal(await page.textContent('[data-stat=wdl]'), '8 / 6 / 6');
  assert.equal(await page.textContent('[data-stat=los]'), '97.0 %');
  assert.equal(await page.locator('[data-testid=llr-chart] .bound').count(), 2);
  assert.equal(await page.locator('[data-testid=length-histogram] .bar').count(), 3);
  assert.equal(await page.getAttribute('[data-testid=game-link]', 'href'), '/games/7');
  await screenshot(page, 'run-fixture');
  await page.click('[data-testid=stop-run]');
  await until(async () => /stopped/.test(await page.textContent('[data-stat=state]')), 'the stopped state');
  assert.ok(stopped && stopped.length >= 32, `the stop POST carried the session's CSRF token: ${stopped}`);
  assert.ok(!(await page.isVisible('[data-testid=stop-run]')));
  await page.unrouteAll();
});

test('viewer (fixtures): steps draw the given FENs, arrow keys and jumps work', async () => {
  page.errors.length = 0;
  const game = {
    id: 7, run: 1, red: { id: 1, name: 'cand' }, black: { id: 2, name: 'base' }, start_fen: START, result: '1-0', reason: 'checkmate',
    verdict_text: 'Red wins by checkmate', worker: 'w1',
    moves: [{ uci: 'h2e2', wxf: 'C2.5', chinese: '炮二平五', fen: AFTER1 }, { uci: 'h9g7', wxf: 'H8+7', chinese: '馬８進７', fen: AFTER2 }],
    scores: [{ ply: 0, score: 20 }, { ply: 2, score: 35 }],
  };
  await page.route('**/api/games/7', (r) => json(r, game));
  await open(page, `${farm.url}/games/7`);
  const check = async (fen) => {
    const drawn = await boardPieces(page);
    assert.ok(samePieces(drawn, fenPieces(fen)), describeDiff(drawn, fenPieces(fen)));
  };
  await check(START);
  await page.click('[data-testid=next]');
  await check(AFTER1);
  assert.equal(await page.locator('[data-hl=last]').count(), 2, 'the last move highlighted');
  await page.keyboard.press('ArrowRight');
  await check(AFTER2);
  await page.keyboard.press('ArrowLeft');
  await check(AFTER1);
  await page.click('[data-testid=move-list] tr[data-ply="2"]');
  await check(AFTER2);
  assert.equal(await page.textContent('[data-testid=verdict-text]'), 'Red wins by checkmate');
  assert.equal(await page.getAttribute('[data-testid=eval-graph] .series', 'data-points'), '2');
  await screenshot(page, 'game-fixture');
  assert.deepEqual(page.errors, []);
  await page.unrouteAll();
});

function playState(fen, moves, extra = {}) {
  const pieces = [...fenPieces(fen)].map(([square, piece]) => ({ square, piece }));
  const side = fen.split(' ')[1] === 'b' ? 'black' : 'red';
  return {
    id: 's1', start_fen: START, fen, side_to_move: side, pieces, moves, redo: [], legal: side === 'red' ? { h2: ['e2', 'h9'], a0: ['a1', 'a2'] } : {},
    check: null, last_move: moves.length ? moves[moves.length - 1].uci : null, result: null,
    red: { human: true }, black: { engine: '1', name: 'cand', limit: { nodes: 400 } }, engine_to_move: side === 'black', ...extra,
  };
}

test('play page (fixtures): click-click move, engine reply, the server refusal shown, legal dots, verdict banner', async () => {
  page.errors.length = 0;
  const m1 = { uci: 'h2e2', wxf: 'C2.5', chinese: '炮二平五', fen: AFTER1 };
  const m2 = { uci: 'h9g7', wxf: 'H8+7', chinese: '馬８進７', fen: AFTER2 };
  const calls = [];
  await page.route('**/api/play/engines', (r) => json(r, { engines: [{ id: '1', name: 'cand', kind: 'in_process', available: true, why: null }] }));
  await page.route('**/api/play', (r) => { calls.push(['create', r.request().postDataJSON()]); return json(r, playState(START, []), 201); });
  await page.route('**/api/play/s1/move', (r) => {
    const { move } = r.request().postDataJSON();
    calls.push(['move', move]);
    if (move === 'h2e2') return json(r, playState(AFTER1, [m1]));
    return json(r, { error: `${move}: the rook cannot jump over a piece` }, 422);
  });
  await page.route('**/api/play/s1/reply', (r) => { calls.push(['reply']); return json(r, playState(AFTER2, [m1, m2])); });
  await page.route('**/api/play/s1', (r) => r.fulfill({ status: 204 }));
  await open(page, `${farm.url}/play`);
  await until(async () => (await page.getAttribute('[data-testid=app]', 'data-plies')) === '0', 'the game');
  assert.deepEqual(calls[0][1].red, { human: true });
  assert.equal(calls[0][1].black.engine, '1');
  await page.click('[data-testid=board] [data-square=h2]');
  assert.deepEqual(await page.$$eval('[data-hl=dest]', (els) => els.map((e) => e.getAttribute('data-sq')).sort()), ['e2', 'h9'], 'the legal destinations from PlayState.legal');
  await page.click('[data-testid=board] [data-square=e2]');
  await until(async () => (await page.getAttribute('[data-testid=app]', 'data-plies')) === '2', 'the move and the reply');
  assert.deepEqual(calls.slice(1).map((c) => c.join(' ')), ['move h2e2', 'reply']);
  const drawn = await boardPieces(page);
  assert.ok(samePieces(drawn, fenPieces(AFTER2)), describeDiff(drawn, fenPieces(AFTER2)));
  assert.equal(await page.textContent('[data-testid=move-list] tr[data-ply="2"] [data-testid=move-chinese]'), '馬８進７');
  await clickMove(page, 'a0a5');
  await until(async () => /a0a5: the rook cannot jump/.test(await page.textContent('[data-testid=play-message]')), 'the refusal');
  assert.equal(await page.getAttribute('[data-testid=app]', 'data-plies'), '2');
  await screenshot(page, 'play-fixture');
  // A verdict: the banner shows the server's text and the board takes no more moves.
  await page.unroute('**/api/play/s1/move');
  await page.route('**/api/play/s1/move', (r) => json(r, playState(AFTER1, [m1], {
    result: { result: '0-1', reason: 'perpetual_check', text: 'Red loses by perpetual check' }, engine_to_move: false,
  })));
  await clickMove(page, 'a0a1');
  const banner = await page.waitForSelector('[data-testid=result-banner]:not(.hidden)');
  assert.equal(await banner.textContent(), '0-1 — Red loses by perpetual check');
  assert.equal(await banner.getAttribute('data-reason'), 'perpetual_check');
  assert.deepEqual(page.errors.filter((e) => !/status of 422/.test(e)), []);
  await page.unrouteAll();
});
