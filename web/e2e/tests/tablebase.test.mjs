// The viewer shows the endgame tables' verdict: `xqfarm serve --tablebases` over tables
// generated for K+R vs K, a run whose openings start in that set, a real worker (without
// tables, so it plays the games out), and the viewer stepping through one of them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, open, screenshot, startSession, stopSession, until } from '../harness.mjs';

// Red: king e0, rook i0; Black: king d9. Red to move wins (the first known-theory case).
const KRK = '3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1';

let farm;
let browser;
let page;

before(async () => {
  ({ farm, browser, page } = await startSession({
    tablebases: ['KRK'],
    openings: [KRK, '3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1'],
    run: { kind: 'games', tc: 'nodes=1500', pairs: 1, name: 'rook endings' },
    worker: true,
  }));
});

after(() => stopSession({ farm, browser }));

test('viewer: a position in a table shows its verdict, DTC and best move, and the verdict follows the ply', async () => {
  const { games } = await until(async () => {
    const r = await api(farm.url, `/api/runs/${farm.runId}/games?offset=0&limit=5`);
    return r.games.length ? r : null;
  }, 'a game of the rook-ending run', 120000);
  const game = await api(farm.url, `/api/games/${games[0].id}`);
  const tb0 = game.tablebase[0];
  assert.ok(tb0, `the start is in KRK: ${JSON.stringify(game.tablebase.slice(0, 2))}`);
  assert.equal(tb0.set, 'KRK');
  assert.ok(tb0.dtc > 0 && tb0.best, JSON.stringify(tb0));
  await open(page, `${farm.url}/games/${game.id}`);
  await page.click('[data-testid=first]');
  const verdict = page.locator('[data-testid=tb-verdict]');
  await until(async () => await verdict.isVisible(), 'the verdict to show at ply 0');
  const text = await verdict.textContent();
  const winner = tb0.wdl === 'win' ? (game.start_fen.includes(' w') ? 'Red' : 'Black') : (game.start_fen.includes(' w') ? 'Black' : 'Red');
  assert.match(text, new RegExp(`^KRK: ${winner} wins by the endgame tables: ${tb0.dtc} plies to conversion`), text);
  assert.ok(text.includes(tb0.best_wxf), `${text} names the best move ${tb0.best_wxf}`);
  // One ply on: the verdict follows the position (the DTC of the position after the move).
  await page.click('[data-testid=next]');
  const tb1 = game.tablebase[1];
  if (tb1) {
    await until(async () => (await verdict.textContent()).includes(`${tb1.dtc} plies`) || tb1.wdl === 'draw', 'the verdict of ply 1');
  }
  await screenshot(page, 'viewer-tablebase');
  // The server's list holds one entry per position (null where no table holds it).
  assert.equal(game.tablebase.length, game.moves.length + 1, 'one entry per position');
  assert.deepEqual(page.errors, []);
});
