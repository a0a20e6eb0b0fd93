// The shell, the embedded assets and signing in: these need only the web crate's skeleton.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, open, screenshot, signIn, startFarm } from '../harness.mjs';

let farm;
let browser;

before(async () => {
  farm = await startFarm();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await farm?.stop();
});

test('every page path answers with the shell and every asset with its content type', async () => {
  for (const path of ['/', '/runs/1', '/workers', '/games/1', '/play', '/create', '/login']) {
    const res = await fetch(`${farm.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get('content-type'), /^text\/html/, path);
    assert.match(await res.text(), /<script type="module" src="\/assets\/js\/app.js">/, path);
  }
  const js = await fetch(`${farm.url}/assets/js/board.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type'), /^text\/javascript/);
  assert.match(await js.text(), /export class Board/);
  const css = await fetch(`${farm.url}/assets/app.css`);
  assert.match(css.headers.get('content-type'), /^text\/css/);
  assert.equal((await fetch(`${farm.url}/assets/js/nope.js`)).status, 404);
});

test('a visitor who is not signed in is sent to the login form; a wrong token is refused with a message', async () => {
  const page = await newPage(browser.context);
  await page.goto(`${farm.url}/workers`);
  await page.waitForURL(/\/login\?next=%2Fworkers$/);
  await page.waitForSelector('[data-testid=login-form]');
  await screenshot(page, 'login');
  await page.fill('[data-testid=login-token]', 'wrong');
  await page.click('[data-testid=login-submit]');
  const err = await page.waitForSelector('[data-testid=error]');
  assert.match(await err.textContent(), /unknown farm token/);
  assert.match(page.url(), /\/login/);
  await page.close();
});

test('the login form signs the browser in (cookie session) and the pages load their modules', async () => {
  const page = await newPage(browser.context);
  await signIn(page, farm.url);
  assert.match(await page.textContent('[data-testid=whoami]'), /signed in: user/);
  const cookies = await browser.context.cookies(farm.url);
  const session = cookies.find((c) => c.name === 'xqfarm_session');
  assert.ok(session, 'session cookie set');
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, 'Strict');
  // The board module draws a full board on its own (no server rules needed to draw).
  const drawn = await page.evaluate(async () => {
    const { Board, START_FEN } = await import('/assets/js/board.js');
    const div = document.createElement('div');
    document.body.append(div);
    const b = new Board(div);
    b.setPosition(START_FEN);
    const squares = div.querySelectorAll('[data-square]').length;
    const pieces = [...div.querySelectorAll('[data-piece]')].map((p) => `${p.dataset.at}${p.dataset.piece}${p.textContent}`);
    b.flip();
    const e0 = div.querySelector('[data-square=e0]').getBBox();
    const e9 = div.querySelector('[data-square=e9]').getBBox();
    div.remove();
    return { squares, pieces, flippedE0AboveE9: e0.y < e9.y };
  });
  assert.equal(drawn.squares, 90);
  assert.equal(drawn.pieces.length, 32);
  for (const p of ['e0K帥', 'e9k將', 'a0R俥', 'i9r車', 'b2C炮', 'h7c砲', 'b0N傌', 'h9n馬', 'a3P兵', 'i6p卒', 'c0B相', 'g9b象', 'd0A仕', 'f9a士']) {
    assert.ok(drawn.pieces.includes(p), `${p} drawn: ${drawn.pieces}`);
  }
  assert.equal(drawn.flippedE0AboveE9, true, 'flipped: Red back rank at the top');
  // The runs page it lands on may miss its API on a skeleton server (404s); it must not throw.
  assert.deepEqual(page.errors.filter((e) => e.startsWith('uncaught')), []);
  await page.close();
});
