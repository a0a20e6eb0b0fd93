// A tournament's panel on its run page: the standings after each round (the rating beside the
// final points), the cross table of a round robin, the bracket of a knockout and the rounds.

import { fmt, h } from '../dom.js';

const TIEBREAK_LABELS = {
  buchholz: 'Buchholz', progressive: 'Progressive', wins: 'Wins', 'head-to-head': 'H2H', 'sonneborn-berger': 'SB',
};

function standingsTable(t, standing) {
  const final = standing.round >= t.round;
  const head = ['Rank', 'Player', 'Points', 'Games', 'W', 'D', 'L', ...t.tiebreaks.map((b) => TIEBREAK_LABELS[b] || b)];
  if (final) head.push('Elo (95%)');
  return h('table', { class: 'data', 'data-testid': 'tournament-standings', 'data-round': standing.round },
    h('thead', {}, h('tr', {}, head.map((x) => h('th', {}, x)))),
    h('tbody', {}, standing.lines.map((l) => h('tr', { 'data-player': l.name },
      h('td', { class: 'num' }, l.rank), h('td', {}, l.name), h('td', { class: 'num', 'data-col': 'points' }, l.points),
      h('td', { class: 'num' }, l.games), h('td', { class: 'num' }, l.wins), h('td', { class: 'num' }, l.draws),
      h('td', { class: 'num' }, l.losses),
      ...l.tiebreaks.map((v) => h('td', { class: 'num' }, v)),
      ...(final ? [h('td', { class: 'num' }, l.elo === null ? '—' : `${fmt(l.elo, 0)} ± ${fmt(l.elo_error95, 0)}`)] : [])))));
}

function crossTable(t) {
  const n = t.names.length;
  return h('table', { class: 'data', 'data-testid': 'cross-table' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), ...t.names.map((_, j) => h('th', { class: 'num' }, j + 1)), h('th', { class: 'num' }, 'Points'))),
    h('tbody', {}, t.cross_table.map((row, i) => h('tr', { 'data-player': t.names[i] },
      h('th', {}, `${i + 1} ${t.names[i]}`),
      ...row.map((c, j) => h('td', { class: 'num', 'data-against': t.names[j] }, i === j ? '×' : c === null ? '·' : `${c[0]}/${c[1]}`)),
      h('td', { class: 'num' }, row.reduce((s, c) => s + (c ? c[0] : 0), 0))))),
    h('caption', {}, `points / games, ${n} players`));
}

function bracket(t) {
  const name = (p) => (p === null ? 'bye' : t.names[p]);
  return h('div', { class: 'bracket', 'data-testid': 'bracket' }, t.bracket.map((r) => h('div', { class: 'bracket-round', 'data-round': r.round },
    h('h3', {}, r.ties.length === 1 ? 'Final' : `Round ${r.round}`),
    ...r.ties.map((tie) => {
      const [hi, lo] = tie.players;
      const row = (p, pts) => h('div', { class: `bracket-player${tie.winner === p ? ' winner' : ''}`, 'data-player': name(p) },
        h('span', {}, name(p)), lo === null ? '' : h('span', { class: 'num' }, pts));
      const notes = [];
      if (tie.extra_pairs) notes.push(`${tie.extra_pairs} extra pair${tie.extra_pairs > 1 ? 's' : ''}`);
      if (tie.armageddon) notes.push('Armageddon');
      if (tie.state === 'playing') notes.push('playing');
      return h('div', { class: 'bracket-tie', 'data-testid': 'bracket-tie', 'data-state': tie.state },
        row(hi, tie.points[0]), lo === null ? h('div', { class: 'bracket-player' }, '(bye)') : row(lo, tie.points[1]),
        notes.length ? h('div', { class: 'note' }, notes.join(', ')) : '');
    }))),
  t.winner !== null && t.winner !== undefined ? h('p', { 'data-testid': 'knockout-winner' }, `Winner: ${t.names[t.winner]}`) : '');
}

function roundsList(t) {
  return h('div', { 'data-testid': 'tournament-rounds' }, t.rounds_played.map((r) => h('div', { 'data-round': r.round },
    h('h3', {}, `Round ${r.round}`),
    h('ul', {},
      ...r.matches.map((m) => h('li', { 'data-testid': 'tournament-match' },
        `${t.names[m.a]} ${m.a_points}–${m.b_points} ${t.names[m.b]}`,
        m.stage === 'main' ? '' : ` (${m.stage})`,
        m.games < m.of_games ? ` [${m.games}/${m.of_games} games]` : '')),
      ...r.byes.map((p) => h('li', {}, `${t.names[p]}: bye`))))));
}

/// The panel; `refresh()` replaces its contents with a newer tournament.
export function tournamentPanel(t) {
  const panel = h('section', { class: 'panel', id: 'run-tournament', 'data-testid': 'run-tournament' });
  panel.refresh = (t) => {
    const pick = h('select', { 'data-testid': 'standings-round' }, t.standings.map((s, i) => h('option', { value: i },
      i === t.standings.length - 1 ? 'now' : `after round ${s.round}`)));
    pick.value = String(t.standings.length - 1);
    const holder = h('div', {}, standingsTable(t, t.standings[t.standings.length - 1]));
    pick.addEventListener('change', () => holder.replaceChildren(standingsTable(t, t.standings[Number(pick.value)])));
    panel.replaceChildren(
      h('h2', {}, `Tournament: ${t.format}, round ${t.round} of ${t.rounds}, ${t.pairs_per_match} pair(s) a match`),
      ...(t.bracket ? [h('h3', {}, 'Bracket'), bracket(t)] : []),
      ...(t.cross_table ? [h('h3', {}, 'Cross table'), crossTable(t)] : []),
      h('h3', {}, 'Standings (2 a win, 1 a draw) '), pick, holder,
      h('h3', {}, 'Rounds'), roundsList(t));
  };
  panel.refresh(t);
  return panel;
}
