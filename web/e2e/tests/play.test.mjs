// The play page against the play API: moves by click and drag, engine replies, the server's
// refusals as messages, undo/redo, FEN and PGN save/load, the board editor, analysis arrows
// and a perpetual-check verdict.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  startSession,
  stopSession,
  api, boardPieces, clickMove, describeDiff, dragMove, fenPieces, launchBrowser, newPage, open, requireApi, samePieces,
  screenshot, signIn, startFarm, until,
} from '../harness.mjs';

let farm;
let browser;
let page;

before(async () => {
  ({ farm, browser, page } = await startSession({}, async (f) => {
    const res = await requireApi(f.url, '/api/play/engines', 'play API');
    assert.equal(res.status, 200, `/api/play/engines: ${res.status}`);
    const { engines } = await res.json();
    assert.ok(engines.some((e) => e.available), `an available engine: ${JSON.stringify(engines)}`);
  }));
});

after(() => stopSession({ farm, browser }));

const plies = async () => Number(await page.getAttribute('[data-testid=app]', 'data-plies'));
const fen = () => page.getAttribute('[data-testid=app]', 'data-fen');
const message = () => page.textContent('[data-testid=play-message]');

async function boardMatchesFen() {
  const want = fenPieces(await fen());
  const drawn = await boardPieces(page);
  assert.ok(samePieces(drawn, want), describeDiff(drawn, want));
}

async function newGame({ mode = 'mve', colour = 'red', nodes = 400 } = {}) {
  await page.selectOption('[data-testid=mode]', mode);
  if (mode === 'mve') {
    await page.selectOption('[data-testid=colour]', colour);
    await page.selectOption('[data-testid=limit-kind]', 'nodes');
    await page.fill('[data-testid=limit-value]', `${nodes}`);
  }
  const before = await page.getAttribute('[data-testid=app]', 'data-session');
  await page.click('[data-testid=new-game]');
  await until(async () => (await page.getAttribute('[data-testid=app]', 'data-session')) !== before, 'a new session');
  await until(async () => (await plies()) === 0, 'the start position');
}

test('man vs engine: click moves, the engine replies, an illegal move is refused with the server message', async () => {
  page.errors.length = 0;
  await open(page, `${farm.url}/play`);
  await newGame();
  await boardMatchesFen();
  await clickMove(page, 'h2e2');
  await until(async () => (await plies()) === 2, 'the engine reply', 60000);
  await boardMatchesFen();
  assert.equal(await page.locator('[data-testid=move-list] tbody tr').count(), 2);
  assert.equal(await page.textContent('[data-testid=move-list] tr[data-ply="1"] [data-testid=move-chinese]'), '炮二平五');
  assert.equal(await page.textContent('[data-testid=move-list] tr[data-ply="1"] [data-testid=move-wxf]'), 'C2.5');
  // The rook cannot jump its own pawn: the server refuses, naming the move.
  const fenBefore = await fen();
  await clickMove(page, 'a0a5');
  await until(async () => /a0a5/.test(await message()), 'the refusal message');
  assert.equal(await plies(), 2);
  assert.equal(await fen(), fenBefore);
  await boardMatchesFen();
  const sid = await page.getAttribute('[data-testid=app]', 'data-session');
  const state = await api(farm.url, `/api/play/${sid}`);
  assert.equal(state.moves.length, 2, 'nothing changed on the server');
  await screenshot(page, 'play');
});

test('drag moves; undo twice then redo once; the engine plays on request', async () => {
  page.errors.length = 0;
  const sid = await page.getAttribute('[data-testid=app]', 'data-session');
  const state = await api(farm.url, `/api/play/${sid}`);
  // Any legal move the server lists, made by dragging the piece.
  const [from, tos] = Object.entries(state.legal).find(([, t]) => t.length);
  await dragMove(page, `${from}${tos[0]}`);
  await until(async () => (await plies()) === 4, 'the dragged move and the engine reply', 60000);
  assert.equal((await api(farm.url, `/api/play/${sid}`)).moves[2].uci, `${from}${tos[0]}`);
  await page.click('[data-testid=undo]');
  await until(async () => (await plies()) === 3, 'one move undone');
  await page.click('[data-testid=undo]');
  await until(async () => (await plies()) === 2, 'two moves undone');
  await boardMatchesFen();
  await page.click('[data-testid=redo]');
  await until(async () => (await plies()) === 3, 'one move redone');
  await boardMatchesFen();
  const s3 = await api(farm.url, `/api/play/${sid}`);
  assert.equal(s3.moves[2].uci, `${from}${tos[0]}`, 'the redone move is the dragged one');
  assert.equal(s3.redo.length, 1);
  assert.ok(await page.isVisible('[data-testid=engine-move]'), 'the engine is to move');
  await page.click('[data-testid=engine-move]');
  await until(async () => (await plies()) === 4, 'the engine move', 60000);
  await boardMatchesFen();
});

test('flip turns the board; save FEN, reload the page, load it back; a bad FEN is refused', async () => {
  page.errors.length = 0;
  const y = async (sq) => (await page.locator(`[data-testid=board] [data-square=${sq}]`).boundingBox()).y;
  assert.ok(await y('e0') > await y('e9'));
  await page.click('[data-testid=flip]');
  assert.ok(await y('e0') < await y('e9'), 'flipped');
  await boardMatchesFen();
  await page.click('[data-testid=flip]');
  await page.click('[data-testid=save-fen]');
  const saved = await fen();
  assert.equal(await page.inputValue('[data-testid=fen-input]'), saved);
  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  await until(async () => (await plies()) === 0, 'a fresh game after the reload');
  assert.notEqual(await fen(), saved);
  assert.equal(await page.inputValue('[data-testid=fen-input]'), saved, 'the saved FEN survives the reload');
  const head = (f) => (f || '').split(' ').slice(0, 2).join(' ');
  await page.click('[data-testid=load-fen]');
  await until(async () => head(await fen()) === head(saved), 'the saved position loaded back');
  await boardMatchesFen();
  await page.fill('[data-testid=fen-input]', 'rnbakabnr/9/9 w');
  await page.click('[data-testid=load-fen]');
  await until(async () => (await message()).length > 0, 'the FEN refusal');
  assert.equal(head(await fen()), head(saved), 'a bad FEN changes nothing');
});

test('PGN in Chinese (車 馬 砲, full-width digits) loads; one with an illegal move is refused by move number', async () => {
  page.errors.length = 0;
  await newGame({ mode: 'mvm' });
  const pgn = '[Event "e2e"]\n[Result "*"]\n\n1. 炮二平五 馬８進７ 2. 馬二進三 車９平８ 3. 車一平二 砲８進４ *\n';
  await page.fill('[data-testid=pgn-text]', pgn);
  await page.click('[data-testid=pgn-load]');
  await until(async () => (await plies()) === 6, 'six plies loaded from the PGN');
  const sid = await page.getAttribute('[data-testid=app]', 'data-session');
  const s = await api(farm.url, `/api/play/${sid}`);
  assert.deepEqual(s.moves.map((m) => m.uci), ['h2e2', 'h9g7', 'h0g2', 'i9h9', 'i0h0', 'h7h3']);
  await boardMatchesFen();
  const chinese = await page.$$eval('[data-testid=move-list] [data-testid=move-chinese]', (els) => els.map((e) => e.textContent).join(' '));
  // Read in traditional characters, written back in the engine's (simplified) Chinese notation.
  assert.equal(chinese, '炮二平五 马８进７ 马二进三 车９平８ 车一平二 炮８进４');
  await page.selectOption('[data-testid=pgn-notation]', 'wxf');
  await page.click('[data-testid=pgn-save]');
  await until(async () => /C2\.5/.test(await page.inputValue('[data-testid=pgn-text]')), 'the WXF PGN');
  // The cannon may not pass the pawns on e3 and e6 without capturing.
  await page.fill('[data-testid=pgn-text]', '1. 炮二平五 馬８進７ 2. 炮五進五 *');
  await page.click('[data-testid=pgn-load]');
  await until(async () => /炮五進五/.test(await message()), 'the refusal naming the move');
  assert.match(await message(), /\b2\b/, 'the move number');
  assert.equal(await plies(), 6, 'the refused PGN changes nothing');
});

test('board editor: an invalid position is refused by check-fen, a valid one is played from', async () => {
  page.errors.length = 0;
  await page.click('[data-testid=edit-position]');
  await page.waitForSelector('[data-testid=editor]:not(.hidden)');
  await page.click('#editor-clear');
  await page.click('[data-palette-piece="K"]');
  await page.click('[data-testid=board] [data-square=d0]');
  await page.click('#editor-done');
  await until(async () => (await message()).length > 0, 'check-fen refusing a position without a black king');
  assert.ok(await page.isVisible('[data-testid=editor]'), 'the editor stays open');
  await page.click('[data-palette-piece="k"]');
  await page.click('[data-testid=board] [data-square=e9]');
  await page.click('[data-palette-piece="R"]');
  await page.click('[data-testid=board] [data-square=a8]');
  await page.click('[data-testid=board] [data-square=b8]');
  await page.click('[data-palette-piece=""]');
  await page.click('[data-testid=board] [data-square=b8]');
  await page.selectOption('[data-testid=editor-side]', 'red');
  assert.match(await page.inputValue('[data-testid=editor-fen]'), /^4k4\/R8\/9\/9\/9\/9\/9\/9\/9\/3K5 w/);
  await screenshot(page, 'play-editor');
  await page.click('#editor-done');
  await until(async () => (await fen() || '').startsWith('4k4/R8/9/9/9/9/9/9/9/3K5'), 'the edited position loaded');
  assert.ok(!(await page.isVisible('[data-testid=editor]')), 'the editor closed');
  await boardMatchesFen();
});

test('perpetual check ends the game with the verdict', async () => {
  page.errors.length = 0;
  // From the edited position: Red checks from a9 and a8 for ever, Black's king steps e9/e8.
  const cycle = ['a8a9', 'e9e8', 'a9a8', 'e8e9'];
  for (let i = 0; i < 16 && !(await page.isVisible('[data-testid=result-banner]')); i++) {
    const n = await plies();
    await clickMove(page, cycle[i % 4]);
    await until(async () => (await plies()) === n + 1, `move ${cycle[i % 4]}`);
  }
  const banner = await page.waitForSelector('[data-testid=result-banner]:not(.hidden)');
  assert.match(await banner.textContent(), /perpetual/i);
  assert.equal(await banner.getAttribute('data-reason'), 'perpetual_check');
  assert.match(await banner.textContent(), /0-1/);
  const n = await plies();
  await clickMove(page, 'e9e8');
  await clickMove(page, 'a9a8');
  assert.equal(await plies(), n, 'no moves after the verdict');
  await screenshot(page, 'play-perpetual');
});

test('analysis draws the principal variation as arrows', async () => {
  page.errors.length = 0;
  await newGame({ mode: 'mvm' });
  await page.click('[data-testid=analyse]');
  await until(async () => (await page.getAttribute('[data-testid=analysis]', 'data-pv')) || null, 'the analysis', 30000);
  const pv = (await page.getAttribute('[data-testid=analysis]', 'data-pv')).split(' ');
  assert.ok(pv.length >= 1 && /^[a-i]\d[a-i]\d$/.test(pv[0]), `a PV: ${pv}`);
  const arrows = await page.$$eval('[data-testid=arrows] .arrow', (els) => els.map((e) => e.getAttribute('data-move')));
  assert.equal(arrows[0], pv[0]);
  assert.match(await page.textContent('[data-testid=analysis]'), /depth \d+/);
  await screenshot(page, 'play-analysis');
  assert.deepEqual(page.errors.filter((e) => !/status of 4\d\d/.test(e)), []);
});
