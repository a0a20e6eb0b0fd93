// The farm's pages during a live run: a real worker plays an SPRT run while the browser
// watches the runs page, a run's page, the workers, a game, and creates and stops runs.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  startSession,
  stopSession,
  api, boardPieces, describeDiff, fenPieces, launchBrowser, newPage, open, requireApi, samePieces, screenshot, signIn,
  startFarm, until,
} from '../harness.mjs';

let farm;
let browser;
let page;

before(async () => {
  ({ farm, browser, page } = await startSession({ run: { kind: 'sprt', tc: 'nodes=1500', name: 'live sprt' } }, async (f) => {
    for (const [path, what] of [['/api/runs', 'farm API (runs)'], [`/api/runs/${f.runId}`, 'farm API (run)'], ['/api/workers', 'farm API (workers)']]) {
      const res = await requireApi(f.url, path, what);
      assert.equal(res.status, 200, `${path}: ${res.status} ${await res.text()}`);
    }
  }));
});

after(() => stopSession({ farm, browser }));

const gamesCell = (id) => `[data-testid=runs-table] tr[data-run-id="${id}"] [data-col=games]`;

test('runs page: the game count rises without a reload, in the same table element', async () => {
  page.errors.length = 0;
  await open(page, `${farm.url}/`);
  await page.waitForSelector(gamesCell(farm.runId));
  const before = Number((await page.textContent(gamesCell(farm.runId))).split('/')[0]);
  await page.evaluate(() => { document.querySelector('[data-testid=runs-table]').__marker = 'same-node'; window.__notReloaded = true; });
  farm.startWorker();
  const grown = await until(async () => {
    const n = Number((await page.textContent(gamesCell(farm.runId))).split('/')[0]);
    return n > before ? n : null;
  }, 'the runs page to show more games from the SSE stream', 120000, 500);
  assert.ok(grown > before);
  const same = await page.evaluate(() => document.querySelector('[data-testid=runs-table]').__marker === 'same-node' && window.__notReloaded === true);
  assert.equal(same, true, 'the table node survived (no rebuild, no reload)');
  assert.ok(Number(await page.getAttribute('[data-testid=live]', 'data-updates')) >= 1, 'updates came from /api/events');
  const row = `[data-testid=runs-table] tr[data-run-id="${farm.runId}"]`;
  assert.match(await page.textContent(`${row} [data-col=variants]`), /cand vs base/);
  assert.match(await page.textContent(`${row} [data-col=kind]`), /sprt/);
  assert.match(await page.textContent(`${row} [data-col=tc]`), /nodes=1500/);
  assert.match(await page.textContent(`${row} [data-col=state]`), /active/);
  await screenshot(page, 'runs');
  assert.deepEqual(page.errors, []);
});

test('run page: numbers, LLR chart with its bounds, workers, terminations, lengths, spec, PGN links, games list', async () => {
  page.errors.length = 0;
  await until(async () => (await api(farm.url, `/api/runs/${farm.runId}/games?offset=0&limit=5`)).total >= 2, 'two games played', 120000, 500);
  await open(page, `${farm.url}/runs/${farm.runId}`);
  const stats = await page.textContent('[data-testid=run-stats]');
  assert.match(stats, /W \/ D \/ L/);
  assert.match(await page.textContent('[data-stat=penta]'), /^\[\d+, \d+, \d+, \d+, \d+\]$/);
  assert.equal(await page.locator('[data-testid=llr-chart] .bound').count(), 2, 'the two SPRT bounds drawn');
  assert.ok(await page.locator('[data-testid=run-workers] tbody tr').count() >= 1, 'a worker row');
  assert.ok(await page.locator('[data-testid=run-terminations] tbody tr').count() >= 1, 'a termination row');
  assert.ok(await page.locator('[data-testid=length-histogram] .bar').count() >= 1, 'a length bar');
  assert.match(await page.textContent('[data-testid=run-spec]'), /nodes|1500/);
  for (const n of ['wxf', 'chinese', 'iccs']) {
    const href = await page.getAttribute(`[data-testid=pgn-${n}]`, 'href');
    const res = await fetch(`${farm.url}${href}`, { headers: { Authorization: 'Bearer t' } });
    assert.equal(res.status, 200, href);
    assert.match(await res.text(), /\[Result /, `${n} PGN`);
  }
  await page.waitForSelector('[data-testid=game-link]');
  assert.ok(await page.isVisible('[data-testid=stop-run]'), 'the user role sees the stop button');
  await screenshot(page, 'run');
  assert.deepEqual(page.errors, []);
});

test('run page at 1400 px: the workers panel holds every column; the LLR chart only for an SPRT', async () => {
  page.errors.length = 0;
  await page.setViewportSize({ width: 1400, height: 900 });
  try {
    await open(page, `${farm.url}/runs/${farm.runId}`);
    await page.waitForSelector('[data-testid=run-workers] tbody tr');
    // Every row's last cell ("Last seen") ends inside the panel and shows its whole text.
    const fit = await page.$eval('[data-testid=run-workers]', (table) => {
      const panel = table.closest('.panel').getBoundingClientRect();
      const last = [...table.querySelectorAll('tr > :last-child')].map((c) => ({
        text: c.textContent, right: c.getBoundingClientRect().right, clipped: c.scrollWidth > c.clientWidth,
      }));
      return { panelRight: panel.right, tableRight: table.getBoundingClientRect().right, last };
    });
    assert.equal(fit.last[0].text, 'Last seen');
    assert.ok(fit.tableRight <= fit.panelRight, `the table ends at ${fit.tableRight}, past its panel at ${fit.panelRight}`);
    for (const c of fit.last) {
      assert.ok(c.right <= fit.panelRight, `"${c.text}" ends at ${c.right}, past its panel at ${fit.panelRight}`);
      assert.ok(!c.clipped, `"${c.text}" is cut off`);
    }
    assert.equal(await page.locator('[data-testid=llr-chart]').count(), 1, 'an SPRT draws its LLR chart');
    await screenshot(page, 'run-1400');

    // A games run has no SPRT: no LLR chart, not even an empty one.
    const games = await farm.createRun({ kind: 'games', pairs: 20, name: 'fixed games' });
    await open(page, `${farm.url}/runs/${games}`);
    assert.equal((await api(farm.url, `/api/runs/${games}`)).run.kind, 'games');
    assert.equal(await page.locator('[data-testid=llr-chart]').count(), 0, 'no LLR chart for a games run');
    assert.match(await page.textContent('[data-testid=run-spec]'), /"resign_score": \d+/);
    await screenshot(page, 'run-games-1400');
    await api(farm.url, `/api/runs/${games}/stop`, { method: 'POST' });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

test('workers page lists the worker', async () => {
  page.errors.length = 0;
  await open(page, `${farm.url}/workers`);
  await page.waitForSelector('[data-testid=workers-table] tbody tr');
  assert.match(await page.textContent('[data-testid=workers-table] tbody'), /e2e-worker/);
  await screenshot(page, 'workers');
});

test('viewer: stepping through a game shows the replayed FENs; keys, jumps and flip work', async () => {
  page.errors.length = 0;
  const { games } = await api(farm.url, `/api/runs/${farm.runId}/games?offset=0&limit=5`);
  const game = await api(farm.url, `/api/games/${games[0].id}`);
  assert.ok(game.moves.length > 4, 'a game with moves');
  await open(page, `${farm.url}/games/${game.id}`);
  // The opening: the game's ECCO code and name as the server classified them.
  assert.ok(game.opening && game.opening.ecco, 'a game from the initial position has an ECCO code');
  assert.match(await page.textContent('[data-testid=ecco]'), new RegExp(`^${game.opening.ecco.code} ${game.opening.ecco.name}`));
  const check = async (ply) => {
    const fen = ply === 0 ? game.start_fen : game.moves[ply - 1].fen;
    const drawn = await boardPieces(page);
    const want = fenPieces(fen);
    assert.ok(samePieces(drawn, want), `ply ${ply}: ${describeDiff(drawn, want)}`);
    assert.equal(await page.getAttribute('[data-testid=ply]', 'data-ply'), `${ply}`);
    assert.equal(await page.inputValue('[data-testid=fen-out]'), fen);
  };
  await check(0);
  const steps = Math.min(game.moves.length, 12);
  for (let i = 1; i <= steps; i++) {
    await page.click('[data-testid=next]');
    await check(i);
  }
  await page.click('[data-testid=prev]');
  await check(steps - 1);
  await page.keyboard.press('ArrowRight');
  await check(steps);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await check(steps - 2);
  await page.keyboard.press('End');
  await check(game.moves.length);
  await page.keyboard.press('Home');
  await check(0);
  // Jump to any move from the list.
  const j = Math.min(game.moves.length, 7);
  await page.click(`[data-testid=move-list] tr[data-ply="${j}"]`);
  await check(j);
  assert.equal(await page.textContent(`[data-testid=move-list] tr[data-ply="${j}"] [data-testid=move-chinese]`), game.moves[j - 1].chinese);
  assert.equal(await page.textContent(`[data-testid=move-list] tr[data-ply="${j}"] [data-testid=move-wxf]`), game.moves[j - 1].wxf);
  // Flip: the same pieces, Red's back rank now at the top.
  const e0 = async () => (await page.locator('[data-testid=board] [data-square=e0]').boundingBox()).y;
  const e9 = async () => (await page.locator('[data-testid=board] [data-square=e9]').boundingBox()).y;
  assert.ok(await e0() > await e9());
  await page.click('[data-testid=flip]');
  assert.ok(await e0() < await e9(), 'flipped');
  await check(j);
  assert.match(await page.textContent('[data-testid=game-result]'), new RegExp(game.reason));
  if (game.scores.length) assert.equal(await page.getAttribute('[data-testid=eval-graph] .series', 'data-points'), `${game.scores.length}`);
  await page.click('[data-testid=copy-pgn]');
  await until(async () => /\[Result /.test(await page.inputValue('[data-testid=pgn-out]')), 'the PGN to be fetched');
  await screenshot(page, 'game');
  assert.deepEqual(page.errors, []);
});

test('create run: the form creates a run, a bad one shows the server error', async () => {
  page.errors.length = 0;
  await open(page, `${farm.url}/create`);
  await page.fill('[data-testid=f-name]', 'from the form');
  await page.selectOption('[data-testid=f-kind]', 'games');
  await page.fill('[data-testid=f-pairs]', '200');
  await page.fill('[data-testid=f-variants]', `${farm.variants.cand} ${farm.variants.base}`);
  await page.fill('[data-testid=f-tc]', 'nodes=banana');
  await page.click('[data-testid=create-submit]');
  const err = await page.waitForSelector('[data-testid=error]');
  assert.match(await err.textContent(), /banana|time control|tc/i);
  assert.match(page.url(), /\/create$/);
  await screenshot(page, 'create');
  await page.fill('[data-testid=f-tc]', 'nodes=1000');
  await Promise.all([page.waitForURL(/\/runs\/\d+$/), page.click('[data-testid=create-submit]')]);
  const id = Number(page.url().split('/').pop());
  const detail = await api(farm.url, `/api/runs/${id}`);
  assert.equal(detail.run.name, 'from the form');
  assert.equal(detail.run.kind, 'games');
  farm.createdRun = id;
});

test('stop run: the button stops the run', async () => {
  page.errors.length = 0;
  const id = farm.createdRun ?? farm.runId;
  await open(page, `${farm.url}/runs/${id}`);
  await page.click('[data-testid=stop-run]');
  await until(async () => (await api(farm.url, `/api/runs/${id}`)).run.state !== 'active', 'the run to stop');
  assert.equal((await api(farm.url, `/api/runs/${id}`)).run.state, 'stopped');
  await until(async () => /stopped/.test(await page.textContent('[data-stat=state]')), 'the page to show the stopped state');
  assert.ok(!(await page.isVisible('[data-testid=stop-run]')), 'no stop button on a stopped run');
});
