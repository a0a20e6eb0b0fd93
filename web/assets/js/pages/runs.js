// / : the runs table, kept up to date in place from the SSE stream (event `runs`): existing
// cells get new text, new runs get a new row; the table is never rebuilt.

import { get, showError } from '../api.js';
import { ago, h, setText, withCi } from '../dom.js';

const COLUMNS = [
  ['id', 'Id', 'num'], ['name', 'Name', ''], ['kind', 'Kind', ''], ['variants', 'Variants', ''], ['tc', 'TC', ''],
  ['games', 'Games', 'num'], ['elo', 'Elo (nElo)', 'num'], ['llr', 'LLR', ''], ['state', 'State', ''],
];

export function variantsText(run) {
  return (run.variants || []).map((v) => v.name || `#${v.id}`).join(' vs ');
}

export function gamesText(run) {
  return run.pairs_total ? `${run.games} / ${2 * run.pairs_total}` : `${run.games}`;
}

export function eloText(run) {
  if (run.elo === null || run.elo === undefined) return '—';
  const n = run.nelo === null || run.nelo === undefined ? '' : ` (${withCi(run.nelo, null)})`;
  return `${withCi(run.elo, run.elo_ci)}${n}`;
}

export function stateText(run) {
  return run.verdict ? `${run.state}: ${run.verdict}` : run.state;
}

/** The LLR cell: a bar between the bounds with a marker, and the number. */
export function llrCell() {
  const fill = h('span', { class: 'llr-fill' });
  const bar = h('span', { class: 'llr-bar', 'data-testid': 'llr-bar' }, fill);
  const text = h('span', { class: 'llr-text' });
  const cell = h('span', { class: 'llr' }, bar, text);
  cell.update = (run) => {
    if (run.llr === null || run.llr === undefined || !run.bounds) {
      bar.style.visibility = 'hidden';
      setText(text, '—');
      return;
    }
    bar.style.visibility = 'visible';
    const [lo, hi] = run.bounds;
    const frac = Math.max(0, Math.min(1, (run.llr - lo) / (hi - lo || 1)));
    fill.style.left = `${(frac * 100).toFixed(1)}%`;
    bar.title = `LLR ${run.llr.toFixed(2)} in [${lo.toFixed(2)}, ${hi.toFixed(2)}]`;
    bar.dataset.llr = run.llr;
    setText(text, run.llr.toFixed(2));
  };
  return cell;
}

function newRow(run) {
  const tr = h('tr', { 'data-run-id': run.id });
  for (const [key, , cls] of COLUMNS) {
    const td = h('td', { class: cls, 'data-col': key });
    if (key === 'name') td.append(h('a', { href: `/runs/${run.id}` }));
    if (key === 'llr') td.append(llrCell());
    tr.append(td);
  }
  return tr;
}

function updateRow(tr, run) {
  const cell = (k) => tr.querySelector(`[data-col="${k}"]`);
  setText(cell('id'), run.id);
  const a = cell('name').firstChild;
  setText(a, run.name || `run ${run.id}`);
  setText(cell('kind'), run.kind);
  setText(cell('variants'), variantsText(run));
  cell('variants').title = variantsText(run);
  setText(cell('tc'), run.tc);
  setText(cell('games'), gamesText(run));
  setText(cell('elo'), eloText(run));
  cell('llr').firstChild.update(run);
  const st = cell('state');
  setText(st, stateText(run));
  st.className = `state-${run.state}${run.verdict ? ` verdict-${run.verdict}` : ''}`;
  st.title = run.missing_engines && run.missing_engines.length ? `no worker has: ${run.missing_engines.join(', ')}` : `created ${ago(run.created_ms)}`;
  tr.dataset.state = run.state;
}

export async function render(app) {
  const filter = h('select', { id: 'runs-filter', 'data-testid': 'runs-filter' },
    h('option', { value: 'all' }, 'all runs'), h('option', { value: 'active' }, 'active'), h('option', { value: 'finished' }, 'finished'));
  const total = h('span', { id: 'runs-total', class: 'num', 'data-testid': 'runs-total' });
  const live = h('span', { id: 'live', 'data-testid': 'live', class: 'num' }, '');
  const colgroup = h('colgroup', {}, COLUMNS.map(([k]) => h('col', { class: `c-${k}` })));
  const thead = h('thead', {}, h('tr', {}, COLUMNS.map(([k, label, cls]) => h('th', { class: cls, 'data-col': k }, label))));
  const tbody = h('tbody', { id: 'runs-body' });
  const table = h('table', { class: 'data', id: 'runs-table', 'data-testid': 'runs-table' }, colgroup, thead, tbody);
  app.append(h('h1', {}, 'Runs'), h('div', { class: 'toolbar' }, filter, total, live), table,
    h('p', { id: 'runs-empty', class: 'hidden' }, 'No runs yet: create one on ', h('a', { href: '/create' }, 'Create run'), ' or with `xqfarm run create`.'));
  const rows = new Map();
  let state = 'all';

  const apply = (runs, { prune = false } = {}) => {
    const seen = new Set();
    for (const run of runs) {
      seen.add(String(run.id));
      const matches = state === 'all' || (state === 'active') === (run.state === 'active');
      if (!matches && !rows.has(String(run.id))) continue;
      let tr = rows.get(String(run.id));
      if (!tr) {
        tr = newRow(run);
        rows.set(String(run.id), tr);
        // Newest first: place by id.
        const after = [...tbody.children].find((r) => Number(r.dataset.runId) < Number(run.id));
        tbody.insertBefore(tr, after || null);
      }
      updateRow(tr, run);
    }
    if (prune) for (const [id, tr] of rows) if (!seen.has(id)) { tr.remove(); rows.delete(id); }
    document.getElementById('runs-empty').classList.toggle('hidden', rows.size > 0);
  };

  const load = async () => {
    try {
      const res = await get(`/api/runs?state=${state}&offset=0&limit=100`);
      setText(total, `${res.total} run${res.total === 1 ? '' : 's'}`);
      apply(res.runs, { prune: true });
    } catch (e) {
      showError(e);
    }
  };
  filter.addEventListener('change', () => { state = filter.value; load(); });
  await load();

  const es = new EventSource('/api/events');
  let updates = 0;
  es.addEventListener('runs', (e) => {
    try {
      const data = JSON.parse(e.data);
      apply(data.runs || []);
      updates += 1;
      setText(live, `live · ${updates} update${updates === 1 ? '' : 's'}`);
      live.dataset.updates = updates;
    } catch (err) {
      showError(err);
    }
  });
  es.addEventListener('error', () => setText(live, 'live updates paused (reconnecting)'));
  window.addEventListener('pagehide', () => es.close());
}
