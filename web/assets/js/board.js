// The Xiangqi board as SVG: it draws what the server says (pieces, legal destinations, last
// move, check, arrows) and reports the moves the user makes by click-click or drag. There are
// no rules here: which moves are legal comes from the server (PlayState.legal), and a move to
// any other square is still sent, so the server can refuse it with its reason.
//
// Every intersection has a hit rectangle with `data-square` (UCI coordinates a0..i9, rank 0 =
// Red's back rank, at the bottom unless flipped); every piece is a group with `data-piece`
// (its FEN letter) and `data-at` (its square).

import { s } from './dom.js';

export const CHARS = {
  K: '帥', A: '仕', B: '相', N: '傌', R: '俥', C: '炮', P: '兵',
  k: '將', a: '士', b: '象', n: '馬', r: '車', c: '砲', p: '卒',
};
export const FILES = 'abcdefghi';
export const START_FEN = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';

const CELL = 50;
const MARGIN = 40;
const RADIUS = 22;
export const WIDTH = 8 * CELL + 2 * MARGIN;
export const HEIGHT = 9 * CELL + 2 * MARGIN;
let boards = 0;

/** The placement field of a FEN as a Map square -> FEN letter (drawing only; no validation
 * beyond what drawing needs). Throws an Error naming the problem. */
export function parsePlacement(fen) {
  const placement = `${fen}`.trim().split(/\s+/)[0] || '';
  const rows = placement.split('/');
  if (rows.length !== 10) throw new Error(`FEN \`${placement}\`: expected 10 ranks, found ${rows.length}`);
  const map = new Map();
  rows.forEach((row, i) => {
    const rank = 9 - i;
    let file = 0;
    for (const ch of row) {
      if (/[1-9]/.test(ch)) file += Number(ch);
      else if (CHARS[ch]) {
        if (file > 8) break;
        map.set(`${FILES[file]}${rank}`, ch);
        file += 1;
      } else throw new Error(`FEN \`${placement}\`: unknown piece \`${ch}\``);
    }
    if (file !== 9) throw new Error(`FEN \`${placement}\`: rank ${rank} has ${file} files, not 9`);
  });
  return map;
}

/** The placement field for a Map square -> letter. */
export function placementOf(map) {
  const rows = [];
  for (let rank = 9; rank >= 0; rank--) {
    let row = '';
    let empty = 0;
    for (let f = 0; f < 9; f++) {
      const p = map.get(`${FILES[f]}${rank}`);
      if (p) {
        if (empty) row += empty;
        empty = 0;
        row += p;
      } else empty += 1;
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return rows.join('/');
}

export const isRed = (piece) => piece === piece.toUpperCase();

export class Board {
  /**
   * @param {HTMLElement} parent where the SVG goes
   * @param {object} opts onMove(uci) for a user move, onEdit(map) for an editor change
   */
  constructor(parent, opts = {}) {
    this.id = ++boards;
    this.flipped = !!opts.flipped;
    this.onMove = opts.onMove || null;
    this.onEdit = opts.onEdit || null;
    this.pieces = new Map();
    this.legal = {};
    this.sideToMove = null;
    this.lastMove = null;
    this.check = null;
    this.arrows = [];
    this.selected = null;
    this.interactive = false;
    this.editing = false;
    this.editPiece = null;
    this.drag = null;

    this.svg = s('svg', {
      class: 'xq-board', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT,
      'data-testid': 'board', role: 'img', 'aria-label': 'Xiangqi board',
    });
    const marker = `xq-arrowhead-${this.id}`;
    this.markerId = marker;
    this.svg.append(s('defs', {}, s('marker', {
      id: marker, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 3, markerHeight: 3, orient: 'auto-start-reverse',
    }, s('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: 'context-stroke' }))));
    this.layers = {};
    for (const name of ['grid', 'highlights', 'pieces', 'arrows', 'squares']) {
      this.layers[name] = s('g', { class: name, 'data-layer': name });
      this.svg.append(this.layers[name]);
    }
    this.layers.arrows.setAttribute('pointer-events', 'none');
    this.layers.arrows.dataset.testid = 'arrows';
    this.svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.svg.addEventListener('pointercancel', () => this.cancelDrag());
    parent.append(this.svg);
    this.drawStatic();
    this.drawPieces();
  }

  // ---- coordinates ----
  x(file) { return MARGIN + (this.flipped ? 8 - file : file) * CELL; }
  y(rank) { return MARGIN + (this.flipped ? rank : 9 - rank) * CELL; }
  at(square) {
    const f = FILES.indexOf(square[0]);
    const r = Number(square.slice(1));
    return [this.x(f), this.y(r)];
  }

  /** The square under a pointer event, or null off the board. */
  squareAt(e) {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return null;
    const pt = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    const col = Math.round((pt.x - MARGIN) / CELL);
    const row = Math.round((pt.y - MARGIN) / CELL);
    if (col < 0 || col > 8 || row < 0 || row > 9) return null;
    const file = this.flipped ? 8 - col : col;
    const rank = this.flipped ? row : 9 - row;
    return `${FILES[file]}${rank}`;
  }

  svgPoint(e) {
    const ctm = this.svg.getScreenCTM();
    return new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
  }

  // ---- what to draw ----
  /** The pieces: a FEN, a Map square -> letter, or PlayState.pieces [{square, piece}]. */
  setPosition(position) {
    if (typeof position === 'string') this.pieces = parsePlacement(position);
    else if (position instanceof Map) this.pieces = new Map(position);
    else this.pieces = new Map((position || []).map((p) => [p.square, p.piece]));
    if (this.selected && !this.pieces.has(this.selected)) this.selected = null;
    this.drawPieces();
    this.drawHighlights();
  }

  /** Legal destinations by origin square ({"h2": ["e2", ...]}), from the server. */
  setLegal(legal) { this.legal = legal || {}; this.selected = null; this.drawHighlights(); }
  setSideToMove(side) { this.sideToMove = side; }
  setInteractive(on) {
    this.interactive = !!on;
    if (!on) this.selected = null;
    this.svg.classList.toggle('interactive', this.interactive);
    this.drawHighlights();
  }
  setLastMove(uci) { this.lastMove = uci || null; this.drawHighlights(); }
  setCheck(square) { this.check = square || null; this.drawHighlights(); }
  /** Arrows: a list of UCI moves (the first drawn strongest). */
  setArrows(moves) { this.arrows = moves || []; this.drawArrows(); }
  flip() { this.setFlipped(!this.flipped); }
  setFlipped(on) {
    this.flipped = !!on;
    this.svg.dataset.flipped = this.flipped ? 'true' : 'false';
    this.drawStatic();
    this.drawPieces();
    this.drawHighlights();
    this.drawArrows();
  }
  /** Editor mode: clicks place `editPiece` (a FEN letter) or remove (null, or the same piece). */
  setEditor(on) { this.editing = !!on; this.selected = null; this.svg.classList.toggle('editing', this.editing); this.drawHighlights(); }
  setEditPiece(piece) { this.editPiece = piece || null; }

  // ---- drawing ----
  drawStatic() {
    const g = this.layers.grid;
    g.replaceChildren();
    g.append(s('rect', { class: 'bg', x: 0, y: 0, width: WIDTH, height: HEIGHT, rx: 6 }));
    const L = (f1, r1, f2, r2) => g.append(s('line', { x1: this.x(f1), y1: this.y(r1), x2: this.x(f2), y2: this.y(r2) }));
    for (let r = 0; r <= 9; r++) L(0, r, 8, r);
    L(0, 0, 0, 9);
    L(8, 0, 8, 9);
    for (let f = 1; f < 8; f++) { L(f, 0, f, 4); L(f, 5, f, 9); }
    // The palaces' diagonals.
    L(3, 0, 5, 2); L(5, 0, 3, 2); L(3, 7, 5, 9); L(5, 7, 3, 9);
    g.append(s('rect', { class: 'frame', x: MARGIN - 5, y: MARGIN - 5, width: 8 * CELL + 10, height: 9 * CELL + 10 }));
    const riverY = MARGIN + 4.5 * CELL;
    g.append(s('text', { class: 'river', x: MARGIN + 2 * CELL, y: riverY, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, '楚 河'));
    g.append(s('text', { class: 'river', x: MARGIN + 6 * CELL, y: riverY, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, '漢 界'));
    for (let f = 0; f < 9; f++) {
      g.append(s('text', { class: 'coord', x: this.x(f), y: HEIGHT - 8, 'text-anchor': 'middle' }, FILES[f]));
    }
    for (let r = 0; r <= 9; r++) {
      g.append(s('text', { class: 'coord', x: 12, y: this.y(r), 'dominant-baseline': 'central' }, `${r}`));
    }
    // Hit rectangles on top of everything, one per intersection.
    const sq = this.layers.squares;
    sq.replaceChildren();
    for (let r = 0; r <= 9; r++) {
      for (let f = 0; f < 9; f++) {
        const name = `${FILES[f]}${r}`;
        sq.append(s('rect', { class: 'sq', 'data-square': name, x: this.x(f) - CELL / 2, y: this.y(r) - CELL / 2, width: CELL, height: CELL }));
      }
    }
  }

  drawPieces() {
    const g = this.layers.pieces;
    g.replaceChildren();
    for (const [square, piece] of this.pieces) {
      const [cx, cy] = this.at(square);
      g.append(s('g', {
        class: `piece ${isRed(piece) ? 'red' : 'black'}`, 'data-piece': piece, 'data-at': square,
        transform: `translate(${cx} ${cy})`,
      }, s('circle', { r: RADIUS }), s('circle', { r: RADIUS - 4, fill: 'none', 'stroke-width': 1 }), s('text', {}, CHARS[piece])));
    }
  }

  pieceEl(square) {
    return this.layers.pieces.querySelector(`[data-at="${square}"]`);
  }

  drawHighlights() {
    const g = this.layers.highlights;
    g.replaceChildren();
    if (this.lastMove && this.lastMove.length >= 4) {
      for (const sq of [this.lastMove.slice(0, 2), this.lastMove.slice(2, 4)]) {
        const [cx, cy] = this.at(sq);
        g.append(s('rect', { class: 'hl-last', 'data-hl': 'last', 'data-sq': sq, x: cx - RADIUS - 3, y: cy - RADIUS - 3, width: 2 * RADIUS + 6, height: 2 * RADIUS + 6, rx: 4 }));
      }
    }
    if (this.check) {
      const [cx, cy] = this.at(this.check);
      g.append(s('circle', { class: 'hl-check', 'data-hl': 'check', 'data-sq': this.check, cx, cy, r: RADIUS + 4 }));
    }
    if (this.selected) {
      const [cx, cy] = this.at(this.selected);
      g.append(s('circle', { class: 'hl-sel', 'data-hl': 'selected', 'data-sq': this.selected, cx, cy, r: RADIUS + 3 }));
      for (const dest of this.legal[this.selected] || []) {
        const [dx, dy] = this.at(dest);
        g.append(s('circle', { class: 'hl-dest', 'data-hl': 'dest', 'data-sq': dest, cx: dx, cy: dy, r: this.pieces.has(dest) ? RADIUS + 2 : 7, 'fill-opacity': this.pieces.has(dest) ? 0.35 : 1 }));
      }
    }
  }

  drawArrows() {
    const g = this.layers.arrows;
    g.replaceChildren();
    this.arrows.forEach((uci, i) => {
      if (!/^[a-i]\d[a-i]\d$/.test(uci)) return;
      const [x1, y1] = this.at(uci.slice(0, 2));
      const [x2, y2] = this.at(uci.slice(2, 4));
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const k = (len - 14) / len;
      g.append(s('line', {
        class: `arrow${i === 0 ? '' : ' second'}`, 'data-move': uci, 'data-index': i,
        x1, y1, x2: x1 + (x2 - x1) * k, y2: y1 + (y2 - y1) * k, 'marker-end': `url(#${this.markerId})`,
      }));
    });
  }

  // ---- input ----
  selectable(square) {
    const piece = this.pieces.get(square);
    if (!piece) return false;
    if (this.legal[square]) return true;
    if (this.sideToMove === 'red') return isRed(piece);
    if (this.sideToMove === 'black') return !isRed(piece);
    return false;
  }

  pointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const sq = this.squareAt(e);
    if (!sq) return;
    if (this.editing) {
      e.preventDefault();
      this.edit(sq);
      return;
    }
    if (!this.interactive) return;
    e.preventDefault();
    if (this.selectable(sq)) {
      this.selected = sq;
      this.drawHighlights();
      this.drag = { from: sq, pointer: e.pointerId, moved: false, x: e.clientX, y: e.clientY };
      try { this.svg.setPointerCapture(e.pointerId); } catch { /* synthetic events */ }
      return;
    }
    if (this.selected) this.tryMove(this.selected, sq);
  }

  pointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 5) return;
    d.moved = true;
    const el = this.pieceEl(d.from);
    if (!el) return;
    const pt = this.svgPoint(e);
    el.classList.add('dragging');
    el.setAttribute('transform', `translate(${pt.x} ${pt.y})`);
    this.layers.pieces.append(el); // on top of the others
  }

  pointerUp(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    this.drag = null;
    if (!d.moved) return; // a click: the piece stays selected for click-click
    const target = this.squareAt(e);
    this.drawPieces();
    if (target && target !== d.from) this.tryMove(d.from, target);
  }

  cancelDrag() {
    if (this.drag) { this.drag = null; this.drawPieces(); }
  }

  tryMove(from, to) {
    this.selected = null;
    this.drawHighlights();
    if (this.onMove) this.onMove(`${from}${to}`);
  }

  edit(square) {
    const current = this.pieces.get(square);
    if (!this.editPiece || current === this.editPiece) this.pieces.delete(square);
    else this.pieces.set(square, this.editPiece);
    this.drawPieces();
    if (this.onEdit) this.onEdit(new Map(this.pieces));
  }
}
