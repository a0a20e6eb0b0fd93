// Small DOM helpers: element builders and number formats shared by the pages.

/** An HTML element: h('td', {class: 'num', dataset: {col: 'games'}}, 'text', child...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : `${c}`);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : `${c}`);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : `${v}`);
  }
}

/** Sets an element's text only when it changed (no layout work for equal numbers). */
export function setText(el, text) {
  const t = `${text}`;
  if (el && el.textContent !== t) el.textContent = t;
}

export function fmt(x, digits = 1) {
  return x === null || x === undefined || Number.isNaN(x) ? '—' : Number(x).toFixed(digits);
}

export function signed(x, digits = 1) {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  const v = Number(x).toFixed(digits);
  return x > 0 ? `+${v}` : v;
}

/** "+12.3 ± 4.5" from a value and its interval. */
export function withCi(x, ci, digits = 1) {
  if (x === null || x === undefined) return '—';
  if (!ci) return signed(x, digits);
  const half = (ci[1] - ci[0]) / 2;
  return `${signed(x, digits)} ± ${fmt(half, digits)}`;
}

export function ago(ms) {
  if (!ms) return '—';
  const secs = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (secs < 60) return `${secs}s ago`;
  if (secs < 3600) return `${Math.round(secs / 60)}m ago`;
  if (secs < 86400) return `${Math.round(secs / 3600)}h ago`;
  return `${Math.round(secs / 86400)}d ago`;
}

export function date(ms) {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 16) : '—';
}

/** Copies text to the clipboard, falling back to a selected textarea. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h('textarea', { style: 'position:fixed;left:-9999px' });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}
