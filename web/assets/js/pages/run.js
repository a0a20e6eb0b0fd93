// /runs/{id}: a run's numbers (updated in place from the SSE stream), its LLR chart (an SPRT's), workers,
// terminations, game lengths, spec, the stop button, PGN downloads and a paged games list.

import { get, post, showError, showMessage } from '../api.js';
import { histogram, lineChart } from '../charts.js';
import { ago, fmt, h, setText, withCi } from '../dom.js';
import { eloText, gamesText, llrCell, stateText, variantsText } from './runs.js';
import { tournamentPanel } from './tournament.js';

const PAGE = 50;

// A tournament's result is its standings: the two-player figures are left out.
const MATCH_FIELDS = ['wdl', 'penta', 'elo', 'nelo', 'los', 'llr'];

function headline(kind) {
  const fields = [
    ['state', 'State'], ['variants', 'Variants'], ['tc', 'TC'], ['games', 'Games'], ['wdl', 'W / D / L'],
    ['penta', 'Pentanomial'], ['elo', 'Elo'], ['nelo', 'nElo'], ['los', 'LOS'], ['llr', 'LLR'],
  ].filter(([k]) => kind !== 'tournament' || !MATCH_FIELDS.includes(k));
  const dl = h('dl', { class: 'stats', id: 'run-stats', 'data-testid': 'run-stats' });
  const dd = {};
  for (const [k, label] of fields) {
    dd[k] = h('dd', { 'data-stat': k });
    dl.append(h('dt', {}, label), dd[k]);
  }
  dl.update = (run) => {
    setText(dd.state, stateText(run));
    setText(dd.variants, variantsText(run));
    setText(dd.tc, run.tc);
    setText(dd.games, gamesText(run));
    if (!dd.llr) return;
    setText(dd.wdl, (run.wdl || []).join(' / '));
    setText(dd.penta, `[${(run.pentanomial || []).join(', ')}]`);
    setText(dd.elo, withCi(run.elo, run.elo_ci));
    setText(dd.nelo, withCi(run.nelo, run.nelo_ci));
    setText(dd.los, run.los === null || run.los === undefined ? '—' : `${fmt(100 * run.los, 1)} %`);
    llr.update(run);
  };
  const llr = llrCell();
  dd.llr?.append(llr);
  return dl;
}

export async function render(app, { params, me }) {
  const id = params[0];
  const detail = await get(`/api/runs/${id}`);
  let run = detail.run;
  const title = h('h1', { id: 'run-title' }, `Run ${run.id}: ${run.name}`);
  const stats = headline(run.kind);
  stats.update(run);

  const toolbar = h('div', { class: 'toolbar' });
  const stop = h('button', { id: 'stop-run', 'data-testid': 'stop-run', class: 'danger', type: 'button' }, 'Stop run');
  const canStop = () => me && me.role === 'user' && run.state === 'active';
  stop.classList.toggle('hidden', !canStop());
  stop.addEventListener('click', async () => {
    if (!confirm(`Stop run ${run.id}?`)) return;
    try {
      run = await post(`/api/runs/${run.id}/stop`);
      stats.update(run);
      stop.classList.toggle('hidden', !canStop());
      showMessage(`run ${run.id} stopped`, 'info');
    } catch (e) {
      showError(e);
    }
  });
  toolbar.append(stop, ' PGN: ');
  for (const n of ['wxf', 'chinese', 'iccs']) {
    toolbar.append(h('a', { href: `/api/runs/${run.id}/pgn?notation=${n}`, download: `run-${run.id}-${n}.pgn`, 'data-testid': `pgn-${n}` }, n), ' ');
  }

  // Only an SPRT has an LLR: any other kind would draw an empty chart.
  const llrPanel = run.kind === 'sprt' ? h('section', { class: 'panel' }, h('h2', {}, 'LLR by games'),
    lineChart(detail.llr_history || [], { bounds: run.bounds || [], testid: 'llr-chart', yLabel: 'LLR', xLabel: 'games' })) : null;

  const workers = h('table', { class: 'data', id: 'run-workers', 'data-testid': 'run-workers' },
    h('thead', {}, h('tr', {}, ['Worker', 'Pairs', 'Pentanomial', 'χ² residual', 'Last seen'].map((t) => h('th', {}, t)))),
    h('tbody', {}, (detail.workers || []).map((w) => h('tr', {},
      h('td', { class: 'name' }, w.name), h('td', { class: 'num' }, w.pairs), h('td', { class: 'num wrap' }, `[${(w.pentanomial || []).join(', ')}]`),
      h('td', { class: 'num' }, fmt(w.chi2_residual, 2)), h('td', { class: 'num' }, ago(w.last_seen_ms))))));

  // Every game's sampled positions (a datagen run records them all).
  const terms = h('table', { class: 'data', id: 'run-terminations', 'data-testid': 'run-terminations' },
    h('caption', { 'data-testid': 'run-positions' }, `${detail.positions ?? 0} positions recorded`),
    h('thead', {}, h('tr', {}, h('th', {}, 'Termination'), h('th', { class: 'num' }, 'Games'))),
    h('tbody', {}, (detail.terminations || []).map((t) => h('tr', {}, h('td', {}, t.reason), h('td', { class: 'num' }, t.count)))));

  const lengths = histogram((detail.lengths || []).map((b) => ({ label: `${b.plies_from}–${b.plies_to} plies`, short: `${b.plies_from}`, count: b.count })), { testid: 'length-histogram' });

  const spec = h('pre', { class: 'spec', id: 'run-spec', 'data-testid': 'run-spec' }, JSON.stringify(detail.spec, null, 2));

  // An SPSA run: each parameter's path by iteration, its start value marked.
  const paths = detail.spsa_paths || [];
  const spsa = paths.length ? h('section', { class: 'panel', id: 'run-spsa', 'data-testid': 'run-spsa' },
    h('h2', {}, 'SPSA parameters (start value marked)'),
    h('div', { class: 'grid2' }, paths.map((p) => {
      const last = p.points.length ? p.points[p.points.length - 1][1] : p.start;
      return h('figure', { 'data-param': p.name },
        h('figcaption', {}, `${p.name}: ${fmt(last, 2)} (start ${p.start}, range ${p.min}..${p.max})`),
        lineChart(p.points, { bounds: [p.start], testid: `spsa-${p.name}`, xLabel: 'pairs', width: 360, height: 150, zero: false }));
    }))) : null;

  // A tournament: standings by round, cross table or bracket, the rounds.
  const tournament = detail.tournament ? tournamentPanel(detail.tournament) : null;
  let refreshing = false;
  const refreshTournament = async () => {
    if (!tournament || refreshing) return;
    refreshing = true;
    try {
      const fresh = await get(`/api/runs/${run.id}`);
      if (fresh.tournament) tournament.refresh(fresh.tournament);
    } catch (e) {
      showError(e);
    } finally {
      refreshing = false;
    }
  };

  // The games list, paged.
  const gamesBody = h('tbody', { id: 'games-body' });
  const pageInfo = h('span', { id: 'games-page', 'data-testid': 'games-page' });
  const prev = h('button', { type: 'button', id: 'games-prev' }, '‹ newer');
  const next = h('button', { type: 'button', id: 'games-next' }, 'older ›');
  let offset = 0;
  const loadGames = async () => {
    try {
      const res = await get(`/api/runs/${run.id}/games?offset=${offset}&limit=${PAGE}`);
      gamesBody.replaceChildren(...res.games.map((g) => h('tr', { 'data-game-id': g.id },
        h('td', { class: 'num' }, h('a', { href: `/games/${g.id}`, 'data-testid': 'game-link' }, g.id)),
        h('td', {}, g.red), h('td', {}, g.black), h('td', {}, g.result), h('td', {}, g.reason),
        h('td', { class: 'num' }, g.plies), h('td', {}, g.worker))));
      setText(pageInfo, res.total ? `${offset + 1}–${offset + res.games.length} of ${res.total}` : 'no games yet');
      prev.disabled = offset === 0;
      next.disabled = offset + PAGE >= res.total;
    } catch (e) {
      showError(e);
    }
  };
  prev.addEventListener('click', () => { offset = Math.max(0, offset - PAGE); loadGames(); });
  next.addEventListener('click', () => { offset += PAGE; loadGames(); });
  const games = h('table', { class: 'data', id: 'run-games', 'data-testid': 'run-games' },
    h('thead', {}, h('tr', {}, ['Game', 'Red', 'Black', 'Result', 'Reason', 'Plies', 'Worker'].map((t) => h('th', {}, t)))), gamesBody);

  app.append(title, toolbar,
    ...(tournament ? [tournament] : []),
    h('div', { class: 'grid2' },
      h('section', { class: 'panel' }, h('h2', {}, 'Result'), stats),
      ...(llrPanel ? [llrPanel] : []),
      h('section', { class: 'panel' }, h('h2', {}, 'Workers'), workers),
      h('section', { class: 'panel' }, h('h2', {}, 'Terminations'), terms),
      h('section', { class: 'panel' }, h('h2', {}, 'Game lengths'), lengths),
      h('section', { class: 'panel' }, h('h2', {}, 'Spec'), spec)),
    ...(spsa ? [spsa] : []),
    h('h2', {}, 'Games'), h('div', { class: 'pager' }, prev, next, pageInfo), games);
  await loadGames();

  const es = new EventSource('/api/events');
  es.addEventListener('runs', (e) => {
    try {
      const mine = (JSON.parse(e.data).runs || []).find((r) => String(r.id) === String(run.id));
      if (!mine) return;
      const moved = mine.games !== run.games || mine.state !== run.state;
      run = mine;
      if (moved) refreshTournament();
      stats.update(run);
      stop.classList.toggle('hidden', !canStop());
    } catch (err) {
      showError(err);
    }
  });
  window.addEventListener('pagehide', () => es.close());
}
