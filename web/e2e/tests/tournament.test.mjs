// Tournaments on the run page: a real worker plays a 4-player round robin and a 3-player
// knockout created with `xqfarm tournament create --detach`; the browser reads the standings
// (after each round and now), the cross table, the rounds and the bracket, and each is checked
// against what the farm recorded game by game.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { api, open, requireApi, screenshot, startSession, stopSession, until } from '../harness.mjs';

let farm;
let browser;
let page;
let roundRobin;
let knockout;

before(async () => {
  ({ farm, browser, page } = await startSession({}, async (f) => {
    const res = await requireApi(f.url, '/api/runs', 'farm API (runs)');
    assert.equal(res.status, 200, `/api/runs: ${res.status}`);
  }));
  // Four different players: the default, material only, and two weaker rooks.
  const rookA = join(farm.dir, 'rook-a.toml');
  const rookB = join(farm.dir, 'rook-b.toml');
  writeFileSync(rookA, '[material.rook]\nmg = 700\neg = 800\n');
  writeFileSync(rookB, '[material.rook]\nmg = 600\neg = 700\n');
  const create = async (...args) => Number((await farm.cli('tournament', 'create', '--tc', 'nodes=1500', '--detach', ...args)).trim());
  roundRobin = await create('--format', 'round-robin', '--name', 'e2e round robin', '--variants', 'default', 'material-only', rookA, rookB);
  knockout = await create('--format', 'knockout', '--name', 'e2e knockout', '--variants', 'default', rookA, rookB);
  farm.startWorker();
  for (const id of [roundRobin, knockout]) {
    await until(async () => (await api(farm.url, `/api/runs/${id}`)).run.state !== 'active', `tournament run ${id} to finish`, 240000, 1000);
  }
});

after(() => stopSession({ farm, browser }));

/** Every game of a run from the games API. */
async function allGames(id) {
  const out = [];
  for (let offset = 0; ; offset += 100) {
    const page = await api(farm.url, `/api/runs/${id}/games?offset=${offset}&limit=100`);
    out.push(...page.games);
    if (page.games.length < 100) return out;
  }
}

/** Chinese points (2 a win, 1 a draw) per player name, from the games themselves. */
function pointsFromGames(games) {
  const points = {};
  for (const g of games) {
    points[g.red] ??= 0;
    points[g.black] ??= 0;
    if (g.result === '1-0') points[g.red] += 2;
    else if (g.result === '0-1') points[g.black] += 2;
    else { points[g.red] += 1; points[g.black] += 1; }
  }
  return points;
}

/** The shown standings table: player name -> points. */
async function shownPoints() {
  return page.$$eval('[data-testid=tournament-standings] tbody tr', (rows) => Object.fromEntries(
    rows.map((r) => [r.dataset.player, Number(r.querySelector('[data-col=points]').textContent)])));
}

test('round robin: standings after each round and now, the cross table and the rounds agree with the games', async () => {
  page.errors.length = 0;
  const detail = await api(farm.url, `/api/runs/${roundRobin}`);
  assert.equal(detail.run.state, 'completed');
  const games = await allGames(roundRobin);
  assert.equal(games.length, 12, '6 matches of one colour-swapped pair');
  await open(page, `${farm.url}/runs/${roundRobin}`);
  await page.waitForSelector('[data-testid=run-tournament]');
  assert.match(await page.textContent('[data-testid=run-tournament] h2'), /round-robin, round 3 of 3/);
  // A tournament's result is its standings: no two-player Elo, pentanomial or LLR chart.
  assert.equal(await page.locator('[data-testid=llr-chart]').count(), 0);
  assert.equal(await page.locator('[data-stat=elo], [data-stat=penta], [data-stat=llr]').count(), 0);
  assert.match(await page.textContent('[data-stat=games]'), /12/);

  // Now: the points shown are the points of the games, and the final table carries the ratings.
  assert.deepEqual(await shownPoints(), pointsFromGames(games));
  assert.match(await page.textContent('[data-testid=tournament-standings] thead'), /Elo \(95%\)/);
  const ranks = await page.$$eval('[data-testid=tournament-standings] tbody tr td:first-child', (c) => c.map((x) => Number(x.textContent)));
  assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), 'ranked from the top');

  // After round r, two matches of 2 games each have played per round: 8 points a round.
  const options = await page.$$eval('[data-testid=standings-round] option', (o) => o.map((x) => x.value));
  assert.equal(options.length, 3, 'after round 1, after round 2, now');
  for (const [i, value] of options.entries()) {
    await page.selectOption('[data-testid=standings-round]', value);
    await page.waitForSelector(`[data-testid=tournament-standings][data-round="${i + 1}"]`);
    const total = Object.values(await shownPoints()).reduce((a, b) => a + b, 0);
    assert.equal(total, 8 * (i + 1), `points after round ${i + 1}`);
  }

  // The cross table: each pair's two cells share out the 4 points of their two games, and a
  // row's total is its player's points.
  const cells = await page.$$eval('[data-testid=cross-table] tbody tr', (rows) => rows.map((r) => ({
    player: r.dataset.player,
    cells: Object.fromEntries([...r.querySelectorAll('td[data-against]')].map((c) => [c.dataset.against, c.textContent])),
    total: Number(r.lastElementChild.textContent),
  })));
  assert.equal(cells.length, 4);
  const byName = Object.fromEntries(cells.map((r) => [r.player, r]));
  const points = pointsFromGames(games);
  for (const row of cells) {
    assert.equal(row.total, points[row.player], `${row.player}'s cross-table total`);
    for (const [other, text] of Object.entries(row.cells)) {
      if (other === row.player) { assert.equal(text, '×'); continue; }
      const [p, of] = text.split('/').map(Number);
      const [q, of2] = byName[other].cells[row.player].split('/').map(Number);
      assert.equal(of, 4, `${row.player} v ${other}: ${text}`);
      assert.equal(of2, 4);
      assert.equal(p + q, 4, `${row.player} v ${other} and back: ${text} + ${q}/${of2}`);
    }
  }

  // The rounds: three, two matches each, every match complete.
  const rounds = await page.$$eval('[data-testid=tournament-rounds] > div', (d) => d.map((r) => [...r.querySelectorAll('[data-testid=tournament-match]')].map((m) => m.textContent)));
  assert.equal(rounds.length, 3);
  for (const r of rounds) {
    assert.equal(r.length, 2);
    for (const m of r) assert.doesNotMatch(m, /games\]/, `complete: ${m}`);
  }

  // The run's PGN names the tournament and each game's round.game.
  const href = await page.getAttribute('[data-testid=pgn-iccs]', 'href');
  const pgn = await (await fetch(`${farm.url}${href}`, { headers: { Authorization: 'Bearer t' } })).text();
  assert.equal([...pgn.matchAll(/\[Event "e2e round robin"\]/g)].length, 12);
  const tags = [...pgn.matchAll(/\[Round "([^"]+)"\]/g)].map((m) => m[1]).sort();
  assert.deepEqual(tags, ['1.1', '1.1', '1.2', '1.2', '2.1', '2.1', '2.2', '2.2', '3.1', '3.1', '3.2', '3.2']);
  await screenshot(page, 'tournament-round-robin');
  assert.deepEqual(page.errors, []);
});

test('knockout: the bracket gives the top seed its bye, the final decides, and the winner is named', async () => {
  page.errors.length = 0;
  const detail = await api(farm.url, `/api/runs/${knockout}`);
  const t = detail.tournament;
  assert.equal(detail.run.state, 'completed');
  await open(page, `${farm.url}/runs/${knockout}`);
  await page.waitForSelector('[data-testid=bracket]');
  const roundsShown = await page.$$eval('[data-testid=bracket] .bracket-round', (r) => r.map((x) => ({
    title: x.querySelector('h3').textContent,
    ties: [...x.querySelectorAll('[data-testid=bracket-tie]')].map((tie) => ({
      state: tie.dataset.state,
      players: [...tie.querySelectorAll('.bracket-player')].map((p) => ({
        name: p.dataset.player ?? null, winner: p.classList.contains('winner'),
        points: p.querySelector('.num') ? Number(p.querySelector('.num').textContent) : null,
      })),
      note: tie.querySelector('.note')?.textContent ?? '',
    })),
  })));
  assert.equal(roundsShown.length, 2, 'three players: a round of two ties, then the final');
  const [first, final] = roundsShown;
  assert.equal(final.title, 'Final');
  // Seed 1 (the first variant) sits out round 1; seeds 2 and 3 play.
  const bye = first.ties.find((x) => x.players.some((p) => p.name === null));
  assert.ok(bye, 'a bye in round 1');
  assert.equal(bye.players[0].name, t.names[0]);
  const played = first.ties.find((x) => x !== bye);
  assert.deepEqual(played.players.map((p) => p.name).sort(), [t.names[1], t.names[2]].sort());

  // The winner of each played tie is marked, has the most points unless an Armageddon game
  // decided, and goes on; the final's winner is the tournament's.
  const games = await allGames(knockout);
  for (const tie of [played, ...final.ties]) {
    assert.equal(tie.state, 'through');
    const winner = tie.players.find((p) => p.winner);
    const loser = tie.players.find((p) => !p.winner);
    assert.ok(winner && loser, `one winner: ${JSON.stringify(tie)}`);
    if (!/Armageddon/.test(tie.note)) assert.ok(winner.points > loser.points, JSON.stringify(tie));
    // The points shown are those of the games between the two.
    const between = games.filter((g) => [g.red, g.black].sort().join() === [winner.name, loser.name].sort().join());
    const pts = pointsFromGames(between);
    assert.equal(winner.points, pts[winner.name]);
    assert.equal(loser.points, pts[loser.name]);
  }
  const finalists = final.ties[0].players.map((p) => p.name);
  assert.ok(finalists.includes(t.names[0]), 'the top seed plays the final');
  const champion = final.ties[0].players.find((p) => p.winner).name;
  assert.equal(await page.textContent('[data-testid=knockout-winner]'), `Winner: ${champion}`);
  assert.equal(t.names[t.winner], champion);
  await screenshot(page, 'tournament-knockout');
  assert.deepEqual(page.errors, []);
});
