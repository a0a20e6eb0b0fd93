// /games/{id}: a finished game replayed from the server's FENs (moves[i].fen is the position
// after move i): step, jump, arrow keys, flip, the evaluation graph, copy FEN / PGN.

import { get, showError, showMessage } from '../api.js';
import { Board } from '../board.js';
import { lineChart } from '../charts.js';
import { copyText, h, setText } from '../dom.js';

export async function render(app, { params }) {
  const id = params[0];
  const game = await get(`/api/games/${id}`);
  const moves = game.moves || [];
  let ply = 0;

  const wrap = h('div', { class: 'board-wrap' });
  const board = new Board(wrap);
  const plyText = h('span', { id: 'ply', class: 'num', 'data-testid': 'ply' });
  const btn = (idText, label, fn, title) => {
    const b = h('button', { type: 'button', id: idText, 'data-testid': idText, title }, label);
    b.addEventListener('click', fn);
    return b;
  };
  const tbText = h('div', { id: 'tb-verdict', 'data-testid': 'tb-verdict', class: 'tb-verdict' });
  const fenOut = h('input', { class: 'fen', id: 'fen-out', 'data-testid': 'fen-out', readonly: true });
  const pgnNotation = h('select', { id: 'pgn-notation', 'data-testid': 'pgn-notation' }, ['chinese', 'wxf', 'iccs'].map((n) => h('option', { value: n }, n)));

  const rows = moves.map((m, i) => {
    const tr = h('tr', { 'data-ply': i + 1 },
      h('td', { class: 'ply' }, `${Math.floor(i / 2) + 1}${i % 2 ? '…' : '.'}`),
      h('td', { class: 'chinese', 'data-testid': 'move-chinese' }, m.chinese),
      h('td', { class: 'wxf', 'data-testid': 'move-wxf' }, m.wxf));
    tr.addEventListener('click', () => go(i + 1));
    return tr;
  });
  const startRow = h('tr', { 'data-ply': 0 }, h('td', { class: 'ply' }, '0'), h('td', { colspan: 2 }, 'start'));
  startRow.addEventListener('click', () => go(0));
  const list = h('div', { class: 'movelist', id: 'move-list', 'data-testid': 'move-list' },
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, '中文'), h('th', {}, 'WXF'))), h('tbody', {}, startRow, rows)));

  const points = (game.scores || []).map((s) => [s.ply, Math.max(-1500, Math.min(1500, s.score))]);
  const graph = lineChart(points, { testid: 'eval-graph', yLabel: 'cp (Red)', xLabel: 'ply', symmetric: true, onPick: (x) => go(x) });
  const prunedNote = game.positions_from === 'pruned'
    ? h('div', { class: 'note', id: 'positions-pruned', 'data-testid': 'positions-pruned' },
      'The per-ply scores of this game were pruned from the database after export (xqfarm db prune-positions), and this coordinator has no Parquet data directory to read them from.')
    : null;

  function go(n) {
    ply = Math.max(0, Math.min(moves.length, n));
    const fen = ply === 0 ? game.start_fen : moves[ply - 1].fen;
    board.setPosition(fen);
    board.setLastMove(ply === 0 ? null : moves[ply - 1].uci);
    fenOut.value = fen;
    const tb = (game.tablebase || [])[ply];
    setText(tbText, tb ? `${tb.set}: ${tb.text}${tb.best_wxf ? ` · best ${tb.best_wxf}` : ''}` : '');
    tbText.hidden = !tb;
    setText(plyText, `${ply} / ${moves.length}`);
    plyText.dataset.ply = ply;
    for (const tr of [startRow, ...rows]) tr.classList.toggle('current', Number(tr.dataset.ply) === ply);
    const cur = ply === 0 ? startRow : rows[ply - 1];
    cur.scrollIntoView({ block: 'nearest' });
    graph.setCursor(ply);
  }

  const controls = h('div', { class: 'toolbar' },
    btn('first', '«', () => go(0), 'first (Home)'), btn('prev', '◀', () => go(ply - 1), 'back (←)'),
    btn('next', '▶', () => go(ply + 1), 'forward (→)'), btn('last', '»', () => go(moves.length), 'last (End)'),
    btn('flip', 'Flip', () => board.flip(), 'flip the board'), plyText);
  const copy = h('div', { class: 'toolbar' },
    btn('copy-fen', 'Copy FEN', async () => { if (await copyText(fenOut.value)) showMessage('FEN copied', 'info'); }),
    btn('copy-pgn', 'Copy PGN', async () => {
      try {
        const pgn = await get(`/api/games/${id}/pgn?notation=${pgnNotation.value}`);
        pgnOut.value = pgn;
        if (await copyText(pgn)) showMessage('PGN copied', 'info');
      } catch (e) { showError(e); }
    }), pgnNotation,
    h('a', { href: `/api/games/${id}/pgn?notation=chinese`, download: `game-${id}.pgn` }, 'download PGN'));
  const pgnOut = h('textarea', { id: 'pgn-out', 'data-testid': 'pgn-out', rows: 4, readonly: true });

  const info = h('div', { class: 'panel', id: 'game-info', 'data-testid': 'game-info' },
    h('div', {}, h('b', {}, 'Red: '), game.red?.name ?? '', ' · ', h('b', {}, 'Black: '), game.black?.name ?? ''),
    h('div', { id: 'game-result', 'data-testid': 'game-result' }, `${game.result} (${game.reason})`),
    game.verdict_text ? h('div', { id: 'verdict-text', 'data-testid': 'verdict-text' }, game.verdict_text) : null,
    openingInfo(game.opening),
    tbText,
    h('div', {}, 'Run ', h('a', { href: `/runs/${game.run}` }, game.run), game.worker ? ` · worker ${game.worker}` : ''));

  app.append(h('h1', {}, `Game ${game.id}`),
    h('div', { class: 'board-page' }, h('div', {}, wrap, controls, copy, fenOut, pgnOut),
      h('div', { class: 'side' }, info, list, h('h2', {}, 'Evaluation'), graph, prunedNote)));

  document.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    const step = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    if (step) { e.preventDefault(); go(ply + step); }
    if (e.key === 'Home') { e.preventDefault(); go(0); }
    if (e.key === 'End') { e.preventDefault(); go(moves.length); }
    if (e.key === 'ArrowUp' || e.key === 'ArrowDown') { e.preventDefault(); go(e.key === 'ArrowUp' ? 0 : moves.length); }
  });
  go(0);
}

// The opening: its ECCO code and name, and the suite's line the players started after.
function openingInfo(opening) {
  if (!opening) return null;
  const line = (opening.moves || []).map((m) => m.wxf).join(' ');
  const ecco = opening.ecco
    ? h('span', { 'data-testid': 'ecco' }, `${opening.ecco.code} ${opening.ecco.name}${opening.ecco.variation ? ` (${opening.ecco.variation})` : ''}`)
    : null;
  return h('div', { id: 'game-opening', 'data-testid': 'game-opening' },
    h('b', {}, 'Opening: '), ecco, ecco && line ? ' · ' : null, line ? `suite line ${opening.index}: ${line}` : null);
}
