// Small SVG charts: a line over x (with horizontal bound lines) and a histogram.

import { s } from './dom.js';

const PAD = { l: 44, r: 10, t: 10, b: 24 };

function scale(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/**
 * A line chart: points [[x, y], ...], optional horizontal lines `bounds` [y...], a vertical
 * cursor at x `cursor`; `zero: false` fits the y range to the data alone. Returns the SVG element; `onPick(x)` is called with the x clicked.
 */
export function lineChart(points, { width = 420, height = 200, bounds = [], testid, cursor = null, onPick = null, yLabel = '', xLabel = '', symmetric = false, zero = true } = {}) {
  const svg = s('svg', { class: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, 'data-testid': testid });
  const xs = points.map((p) => p[0]);
  let ys = points.map((p) => p[1]).concat(bounds);
  if (!ys.length) ys = [0];
  // The y range takes in 0 unless `zero` is false (values far from it, such as a parameter's).
  let y0 = zero ? Math.min(...ys, 0) : Math.min(...ys);
  let y1 = zero ? Math.max(...ys, 0) : Math.max(...ys);
  if (symmetric) { const m = Math.max(Math.abs(y0), Math.abs(y1), 1); y0 = -m; y1 = m; }
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const x0 = xs.length ? Math.min(...xs, 0) : 0;
  const x1 = xs.length ? Math.max(...xs, 1) : 1;
  const X = scale(x0, x1, PAD.l, width - PAD.r);
  const Y = scale(y0, y1, height - PAD.b, PAD.t);
  if (zero) svg.append(s('line', { x1: PAD.l, y1: Y(0), x2: width - PAD.r, y2: Y(0), stroke: '#ccc' }));
  for (const b of bounds) {
    svg.append(s('line', { class: 'bound', 'data-bound': b, x1: PAD.l, y1: Y(b), x2: width - PAD.r, y2: Y(b) }));
    svg.append(s('text', { x: PAD.l - 4, y: Y(b) + 3, 'text-anchor': 'end' }, b.toFixed(2)));
  }
  // The range's ends, unless a bound's label is already there.
  const free = (y) => bounds.every((b) => Math.abs(Y(b) - Y(y)) > 12);
  if (free(y1)) svg.append(s('text', { x: PAD.l - 4, y: Y(y1) + 8, 'text-anchor': 'end' }, y1.toFixed(Math.abs(y1) >= 100 ? 0 : 1)));
  if (free(y0)) svg.append(s('text', { x: PAD.l - 4, y: Y(y0), 'text-anchor': 'end' }, y0.toFixed(Math.abs(y0) >= 100 ? 0 : 1)));
  svg.append(s('text', { x: width - PAD.r, y: height - 6, 'text-anchor': 'end' }, `${x1} ${xLabel}`));
  svg.append(s('text', { x: PAD.l, y: height - 6 }, `${x0}`));
  if (yLabel) svg.append(s('text', { x: PAD.l + 6, y: PAD.t + 12 }, yLabel));
  if (points.length) {
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ');
    svg.append(s('path', { class: 'series', d, 'data-points': points.length }));
  }
  const cur = s('line', { class: 'cursor', 'data-testid': testid ? `${testid}-cursor` : null, y1: PAD.t, y2: height - PAD.b, x1: 0, x2: 0, visibility: 'hidden' });
  svg.append(cur);
  svg.setCursor = (x) => {
    if (x === null || x === undefined) { cur.setAttribute('visibility', 'hidden'); return; }
    cur.setAttribute('x1', X(x)); cur.setAttribute('x2', X(x)); cur.setAttribute('visibility', 'visible');
  };
  svg.setCursor(cursor);
  if (onPick) {
    svg.style.cursor = 'pointer';
    svg.addEventListener('click', (e) => {
      const r = svg.getBoundingClientRect();
      const px = ((e.clientX - r.left) / r.width) * width;
      const x = x0 + ((px - PAD.l) / (width - PAD.l - PAD.r)) * (x1 - x0);
      onPick(Math.max(x0, Math.min(x1, Math.round(x))));
    });
  }
  return svg;
}

/** A histogram of buckets [{label, count}]. */
export function histogram(buckets, { width = 420, height = 180, testid } = {}) {
  const svg = s('svg', { class: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, 'data-testid': testid });
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const n = Math.max(1, buckets.length);
  const w = (width - PAD.l - PAD.r) / n;
  const Y = scale(0, max, height - PAD.b, PAD.t);
  svg.append(s('text', { x: PAD.l - 4, y: PAD.t + 8, 'text-anchor': 'end' }, `${max}`));
  svg.append(s('text', { x: PAD.l - 4, y: height - PAD.b, 'text-anchor': 'end' }, '0'));
  buckets.forEach((b, i) => {
    const x = PAD.l + i * w;
    const rect = s('rect', { class: 'bar', 'data-count': b.count, x: x + 1, y: Y(b.count), width: Math.max(1, w - 2), height: height - PAD.b - Y(b.count) });
    rect.append(s('title', {}, `${b.label}: ${b.count}`));
    svg.append(rect);
    if (n <= 12 || i % Math.ceil(n / 12) === 0) svg.append(s('text', { x: x + w / 2, y: height - 8, 'text-anchor': 'middle' }, b.short ?? b.label));
  });
  return svg;
}
