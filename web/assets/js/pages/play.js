// /play: man vs man or man vs engine on a server-side session. The server holds the rules:
// every move is sent as UCI and the answer (PlayState) is drawn; a refused move shows the
// server's message and changes nothing.

import { ApiError, del, get, me, post, showError } from '../api.js';
import { Board, CHARS, START_FEN, placementOf } from '../board.js';
import { h, setText } from '../dom.js';

const SETTINGS = 'xqfarm.play.settings';
const SAVED_FEN = 'xqfarm.play.fen';
const PALETTE = ['K', 'A', 'B', 'N', 'R', 'C', 'P', 'k', 'a', 'b', 'n', 'r', 'c', 'p'];

function loadSettings() {
  try {
    return { mode: 'mve', colour: 'red', engine: '', limitKind: 'nodes', limitValue: '20000', ...JSON.parse(localStorage.getItem(SETTINGS) || '{}') };
  } catch {
    return { mode: 'mve', colour: 'red', engine: '', limitKind: 'nodes', limitValue: '20000' };
  }
}

export async function render(app) {
  const settings = loadSettings();
  let engines = [];
  try {
    engines = (await get('/api/play/engines')).engines || [];
  } catch (e) {
    showError(e);
  }

  // ---- the setup panel ----
  const sel = (id, options, value) => {
    const el = h('select', { id, 'data-testid': id }, options.map(([v, label, disabled, title]) => h('option', { value: v, disabled: !!disabled, title }, label)));
    if (value !== undefined && options.some(([v, , d]) => v === value && !d)) el.value = value;
    return el;
  };
  const mode = sel('mode', [['mve', 'man vs engine'], ['mvm', 'man vs man']], settings.mode);
  const colour = sel('colour', [['red', 'I play Red'], ['black', 'I play Black']], settings.colour);
  const engine = sel('engine', engines.map((e) => [String(e.id), `${e.name}${e.kind === 'external' ? ' (external)' : ''}${e.available ? '' : ' — unavailable'}`, !e.available, e.why || '']), settings.engine);
  const limitKind = sel('limit-kind', [['nodes', 'nodes'], ['depth', 'depth'], ['movetime_ms', 'movetime (ms)']], settings.limitKind);
  const limitValue = h('input', { id: 'limit-value', 'data-testid': 'limit-value', type: 'number', min: 1, value: settings.limitValue, style: 'width:90px' });
  const newGame = h('button', { type: 'button', id: 'new-game', 'data-testid': 'new-game' }, 'New game');
  const syncSetup = () => {
    const vsEngine = mode.value === 'mve';
    for (const el of [colour, engine, limitKind, limitValue]) el.disabled = !vsEngine;
  };
  mode.addEventListener('change', syncSetup);
  syncSetup();

  // ---- the board and its controls ----
  const wrap = h('div', { class: 'board-wrap' });
  const board = new Board(wrap, { onMove: (uci) => move(uci) });
  const status = h('div', { class: 'status', id: 'play-status', 'data-testid': 'play-status' });
  const message = h('div', { class: 'status', id: 'play-message', 'data-testid': 'play-message', role: 'alert' });
  const banner = h('div', { class: 'banner hidden', id: 'result-banner', 'data-testid': 'result-banner' });
  const button = (id, label, fn, title) => {
    const b = h('button', { type: 'button', id, 'data-testid': id, title }, label);
    b.addEventListener('click', fn);
    return b;
  };
  const undo = button('undo', 'Undo', () => act(() => post(`/api/play/${sid}/undo`, { count: 1 })), 'take back one move');
  const redo = button('redo', 'Redo', () => act(() => post(`/api/play/${sid}/redo`, { count: 1 })), 'replay an undone move');
  const flip = button('flip', 'Flip', () => board.flip());
  const engineMove = button('engine-move', 'Engine move', () => engineTurns(), 'let the engine play its move');
  const analyse = button('analyse', 'Analyse', () => analysis());
  const analysisOut = h('div', { class: 'status', id: 'analysis', 'data-testid': 'analysis' });

  const fenCurrent = h('input', { class: 'fen', id: 'fen-current', 'data-testid': 'fen-current', readonly: true });
  const fenInput = h('input', { class: 'fen', id: 'fen-input', 'data-testid': 'fen-input', placeholder: 'FEN to load', value: localStorage.getItem(SAVED_FEN) || '' });
  const saveFen = button('save-fen', 'Save FEN', () => {
    if (!state) return;
    fenInput.value = state.fen;
    localStorage.setItem(SAVED_FEN, state.fen);
    setText(message, 'FEN saved');
  });
  const loadFen = button('load-fen', 'Load FEN', () => act(() => post(`/api/play/${sid}/load`, { fen: fenInput.value.trim() })));

  const pgnText = h('textarea', { id: 'pgn-text', 'data-testid': 'pgn-text', rows: 6, placeholder: 'PGN (Chinese, WXF or ICCS moves)' });
  const pgnNotation = sel('pgn-notation', [['chinese', 'Chinese'], ['wxf', 'WXF'], ['iccs', 'ICCS']]);
  const pgnSave = button('pgn-save', 'Save PGN', async () => {
    try {
      pgnText.value = await get(`/api/play/${sid}/pgn?notation=${pgnNotation.value}`);
    } catch (e) { fail(e); }
  });
  const pgnLoad = button('pgn-load', 'Load PGN', () => act(() => post(`/api/play/${sid}/load`, { pgn: pgnText.value })));

  // ---- the board editor ----
  let editSide = 'red';
  const palette = h('div', { class: 'palette', id: 'palette', 'data-testid': 'palette' });
  const paletteButtons = [];
  const pick = (piece, b) => {
    board.setEditPiece(piece);
    for (const x of paletteButtons) x.classList.toggle('selected', x === b);
  };
  for (const p of [...PALETTE, '']) {
    const b = h('button', { type: 'button', class: p && p === p.toUpperCase() ? 'red' : '', 'data-palette-piece': p, title: p ? `place ${p}` : 'remove' }, p ? CHARS[p] : '✕');
    b.addEventListener('click', () => pick(p || null, b));
    paletteButtons.push(b);
    palette.append(b);
  }
  const editorSide = sel('editor-side', [['red', 'Red to move'], ['black', 'Black to move']]);
  editorSide.addEventListener('change', () => { editSide = editorSide.value; editorFen(); });
  const editorFenOut = h('input', { class: 'fen', id: 'editor-fen', 'data-testid': 'editor-fen', readonly: true });
  const editorFen = () => {
    editorFenOut.value = `${placementOf(board.pieces)} ${editSide === 'red' ? 'w' : 'b'} - - 0 1`;
    return editorFenOut.value;
  };
  board.onEdit = () => editorFen();
  const editorPanel = h('div', { class: 'panel hidden', id: 'editor', 'data-testid': 'editor' },
    palette, h('div', { class: 'toolbar' }, editorSide,
      button('editor-clear', 'Clear', () => { board.setPosition(new Map()); editorFen(); }),
      button('editor-start', 'Start position', () => { board.setPosition(START_FEN); editorFen(); }),
      button('editor-done', 'Use position', () => editorDone()),
      button('editor-cancel', 'Cancel', () => setEditing(false))), editorFenOut);
  const editButton = button('edit-position', 'Edit position', () => setEditing(true));
  let editing = false;
  function setEditing(on) {
    editing = on;
    editorPanel.classList.toggle('hidden', !on);
    board.setEditor(on);
    if (on) {
      board.setArrows([]);
      board.setLastMove(null);
      board.setCheck(null);
      editSide = state ? state.side_to_move : 'red';
      editorSide.value = editSide;
      pick(PALETTE[0], paletteButtons[0]);
      editorFen();
    } else if (state) {
      show(state);
    }
    board.setInteractive(!on && canMove());
  }
  async function editorDone() {
    try {
      const checked = await post('/api/play/check-fen', { fen: editorFen() });
      const next = await post(`/api/play/${sid}/load`, { fen: checked.fen });
      gen += 1;
      setEditing(false);
      show(next);
      setText(message, '');
    } catch (e) { fail(e); }
  }

  // ---- the move list ----
  const listBody = h('tbody', {});
  const list = h('div', { class: 'movelist', id: 'move-list', 'data-testid': 'move-list' },
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, '中文'), h('th', {}, 'WXF'))), listBody));

  // ---- the opening book's moves here (serve --book) ----
  const bookBody = h('tbody', {});
  const bookPanel = h('div', { class: 'movelist hidden', id: 'book', 'data-testid': 'book' },
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Book'), h('th', {}, 'WXF'), h('th', {}, 'games'), h('th', {}, 'score'))), bookBody));

  app.append(h('h1', {}, 'Play'),
    h('div', { class: 'toolbar', id: 'play-setup', 'data-testid': 'play-setup' }, mode, colour, engine, limitKind, limitValue, newGame),
    h('div', { class: 'board-page' },
      h('div', {}, wrap, banner, status, message,
        h('div', { class: 'toolbar' }, undo, redo, flip, engineMove, analyse, editButton), analysisOut, editorPanel),
      h('div', { class: 'side' }, list, bookPanel,
        h('h2', {}, 'Position'), fenCurrent, h('div', { class: 'toolbar' }, saveFen, loadFen), fenInput,
        h('h2', {}, 'PGN'), h('div', { class: 'toolbar' }, pgnNotation, pgnSave, pgnLoad), pgnText)));

  // ---- the session ----
  let sid = null;
  let state = null;
  let gen = 0; // bumped by every user action; an engine loop of an older generation stops
  let thinking = false;

  const canMove = () => state && !state.result && !state.engine_to_move && !thinking && !editing;

  function fail(e) {
    setText(message, e instanceof ApiError || e instanceof Error ? e.message : `${e}`);
    message.dataset.kind = 'error';
    if (!(e instanceof ApiError) || e.status >= 500 || e.status === 401 || e.status === 403) showError(e);
  }

  function show(s) {
    state = s;
    board.setPosition(s.pieces);
    board.setSideToMove(s.side_to_move);
    board.setLegal(s.legal);
    board.setLastMove(s.last_move);
    board.setCheck(s.check);
    board.setArrows([]);
    board.setInteractive(canMove());
    fenCurrent.value = s.fen;
    app.dataset.plies = s.moves.length;
    app.dataset.fen = s.fen;
    listBody.replaceChildren(...s.moves.map((m, i) => h('tr', { 'data-ply': i + 1, class: i === s.moves.length - 1 ? 'current' : '' },
      h('td', { class: 'ply' }, `${Math.floor(i / 2) + 1}${i % 2 ? '…' : '.'}`),
      h('td', { 'data-testid': 'move-chinese' }, m.chinese), h('td', { 'data-testid': 'move-wxf' }, m.wxf))));
    list.scrollTop = list.scrollHeight;
    const book = s.book || [];
    bookPanel.classList.toggle('hidden', book.length === 0);
    bookBody.replaceChildren(...book.map((b) => {
      const tr = h('tr', { 'data-uci': b.uci, 'data-testid': 'book-move', title: 'play this move' },
        h('td', {}, b.chinese), h('td', {}, b.wxf), h('td', { class: 'num' }, `${b.games}`), h('td', { class: 'num' }, `${(100 * b.score).toFixed(0)}%`));
      tr.addEventListener('click', () => { if (canMove()) move(b.uci); });
      return tr;
    }));
    undo.disabled = s.moves.length === 0;
    redo.disabled = !s.redo || s.redo.length === 0;
    engineMove.classList.toggle('hidden', !(s.engine_to_move && !s.result));
    const side = s.side_to_move === 'red' ? 'Red' : 'Black';
    const who = s[s.side_to_move];
    setText(status, s.result ? 'Game over' : thinking ? `${side}: ${who.name || 'engine'} is thinking…` : `${side} to move${who && who.engine ? ` (${who.name})` : ''}${s.check ? ' — check' : ''}`);
    banner.classList.toggle('hidden', !s.result);
    setText(banner, s.result ? `${s.result.result} — ${s.result.text}` : '');
    if (s.result) banner.dataset.reason = s.result.reason;
    else delete banner.dataset.reason;
  }

  /** Runs one user action returning a PlayState; errors become the message. */
  async function act(fn) {
    if (!sid || thinking) return null;
    gen += 1;
    try {
      const s = await fn();
      setText(message, '');
      show(s);
      return s;
    } catch (e) {
      fail(e);
      return null;
    }
  }

  async function move(uci) {
    if (!canMove()) return;
    const s = await act(() => post(`/api/play/${sid}/move`, { move: uci }));
    if (s && s.engine_to_move && !s.result) await engineTurns();
  }

  async function engineTurns() {
    if (!state || thinking) return;
    const mine = gen;
    thinking = true;
    try {
      while (state && state.engine_to_move && !state.result && mine === gen) {
        show(state);
        const s = await post(`/api/play/${sid}/reply`);
        if (mine !== gen) break;
        state = s;
      }
    } catch (e) {
      fail(e);
    } finally {
      thinking = false;
      if (state) show(state);
    }
  }

  async function analysis() {
    if (!sid) return;
    setText(analysisOut, 'analysing…');
    try {
      const a = await post(`/api/play/${sid}/analyse`, { movetime_ms: 500 });
      const score = a.mate !== null && a.mate !== undefined ? `mate in ${a.mate}` : `${a.score > 0 ? '+' : ''}${a.score} cp`;
      setText(analysisOut, `${score} (side to move), depth ${a.depth}: ${(a.pv_wxf || a.pv || []).join(' ')}`);
      analysisOut.dataset.pv = (a.pv || []).join(' ');
      board.setArrows((a.pv || []).slice(0, 2));
    } catch (e) {
      setText(analysisOut, '');
      fail(e);
    }
  }

  function sideSpec(isHuman) {
    if (isHuman) return { human: true };
    const n = Number(limitValue.value);
    return { engine: engine.value, limit: { [limitKind.value]: n } };
  }

  async function start(fen = null) {
    const s = { mode: mode.value, colour: colour.value, engine: engine.value, limitKind: limitKind.value, limitValue: limitValue.value };
    localStorage.setItem(SETTINGS, JSON.stringify(s));
    const vsEngine = mode.value === 'mve';
    if (vsEngine && !engine.value) {
      fail(new Error('no engine is available to play against (see GET /api/play/engines)'));
      return;
    }
    const body = {
      fen,
      red: sideSpec(!vsEngine || colour.value === 'red'),
      black: sideSpec(!vsEngine || colour.value === 'black'),
    };
    gen += 1;
    try {
      const created = await post('/api/play', body);
      const old = sid;
      sid = created.id;
      app.dataset.session = sid;
      if (old) del(`/api/play/${old}`).catch(() => {});
      if (editing) setEditing(false);
      setText(message, '');
      show(created);
      board.setFlipped(vsEngine && colour.value === 'black');
      if (created.engine_to_move && !created.result) await engineTurns();
    } catch (e) {
      fail(e);
    }
  }
  newGame.addEventListener('click', () => start());

  // Forget the session when the page goes (best effort).
  window.addEventListener('pagehide', async () => {
    if (!sid) return;
    let csrf = null;
    try { csrf = (await me()).csrf; } catch { /* anonymous */ }
    fetch(`/api/play/${sid}`, { method: 'DELETE', keepalive: true, credentials: 'same-origin', headers: csrf ? { 'X-CSRF-Token': csrf } : {} }).catch(() => {});
  });

  await start();
}
