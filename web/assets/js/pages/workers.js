// /workers: the workers the farm has seen, refreshed every few seconds (cells updated in place).

import { get, showError } from '../api.js';
import { ago, fmt, h, setText } from '../dom.js';

const COLS = [['name', 'Name', ''], ['host', 'Host', ''], ['cores', 'Cores', 'num'], ['nps', 'Bench nps', 'num'],
  ['nnue', 'Network nps', 'num'], ['simd', 'SIMD', ''], ['engines', 'Engines', ''], ['leases', 'Leases', 'num'],
  ['gpm', 'Games/min', 'num'], ['seen', 'Last seen', 'num']];

// A worker's bench speed a game slot, with the HCE or with a network, as it measured it at start
// (0: not measured).
const speed = (nps) => (nps ? Number(nps).toLocaleString('en-US') : '—');

export async function render(app) {
  const tbody = h('tbody', { id: 'workers-body' });
  const table = h('table', { class: 'data', id: 'workers-table', 'data-testid': 'workers-table' },
    h('thead', {}, h('tr', {}, COLS.map(([k, t, c]) => h('th', { class: c, 'data-col': k }, t)))), tbody);
  app.append(h('h1', {}, 'Workers'), table);
  const rows = new Map();
  const load = async () => {
    try {
      const res = await get('/api/workers');
      for (const w of res.workers) {
        let tr = rows.get(String(w.id));
        if (!tr) {
          tr = h('tr', { 'data-worker-id': w.id }, COLS.map(([k, , c]) => h('td', { class: c, 'data-col': k })));
          rows.set(String(w.id), tr);
          tbody.append(tr);
        }
        const cell = (k) => tr.querySelector(`[data-col="${k}"]`);
        setText(cell('name'), w.name);
        setText(cell('host'), w.host);
        setText(cell('cores'), w.cores);
        setText(cell('nps'), speed(w.bench_nps));
        setText(cell('nnue'), speed(w.nnue_bench_nps));
        // null: an older worker, which does not say.
        setText(cell('simd'), w.simd || '—');
        setText(cell('engines'), (w.engines || []).join(', ') || '(in-process only)');
        setText(cell('leases'), w.leases_held);
        setText(cell('gpm'), fmt(w.games_per_minute, 1));
        setText(cell('seen'), ago(w.last_seen_ms));
      }
    } catch (e) {
      showError(e);
    }
  };
  await load();
  const timer = setInterval(load, 5000);
  window.addEventListener('pagehide', () => clearInterval(timer));
}
