// /create: the form of `xqfarm run create` (same fields, same defaults), POST /api/runs.

import { get, post, showError } from '../api.js';
import { h } from '../dom.js';

const list = (res, ...keys) => (Array.isArray(res) ? res : keys.map((k) => res && res[k]).find(Array.isArray) || []);

export async function render(app, { me }) {
  let variants = [];
  let suites = [];
  try {
    variants = list(await get('/api/variants'), 'variants');
    suites = list(await get('/api/openings'), 'openings', 'suites');
  } catch (e) {
    showError(e);
  }
  const field = (label, input, help) => [h('label', { for: input.id }, label), h('div', {}, input, help ? h('small', {}, ` ${help}`) : null)];
  const input = (name, value, attrs = {}) => h('input', { id: `f-${name}`, name, 'data-testid': `f-${name}`, value, ...attrs });
  const kind = h('select', { id: 'f-kind', name: 'kind', 'data-testid': 'f-kind' },
    ['sprt', 'games', 'gauntlet', 'round_robin'].map((k) => h('option', { value: k }, k)));
  const model = h('select', { id: 'f-model', name: 'model', 'data-testid': 'f-model' }, ['normalized', 'logistic'].map((k) => h('option', { value: k }, k)));
  const variantsIn = input('variants', variants.slice(0, 2).map((v) => v.id).join(' '), { placeholder: 'variant ids in order', size: 30 });
  const chips = h('div', { class: 'toolbar' }, variants.map((v) => {
    const b = h('button', { type: 'button', 'data-variant-id': v.id }, `#${v.id} ${v.name ?? v.spec?.name ?? ''}`);
    b.addEventListener('click', () => { variantsIn.value = `${variantsIn.value} ${v.id}`.trim(); });
    return b;
  }));
  const suite = h('select', { id: 'f-suite', name: 'suite', 'data-testid': 'f-suite' },
    suites.map((s) => h('option', { value: s.id }, `#${s.id} ${s.name ?? ''}${s.openings !== undefined ? ` (${s.openings} openings)` : ''}`)));
  const sprtOnly = ['elo0', 'elo1', 'alpha', 'beta'];
  const fields = {
    name: input('name', 'run'), tc: input('tc', 'nodes=20000'), pairs: input('pairs', '100', { type: 'number', min: 1 }),
    elo0: input('elo0', '0', { type: 'number', step: 'any' }), elo1: input('elo1', '5', { type: 'number', step: 'any' }),
    alpha: input('alpha', '0.05', { type: 'number', step: 'any' }), beta: input('beta', '0.05', { type: 'number', step: 'any' }),
    bench_signature: input('bench_signature', '', { placeholder: 'any worker' }),
    sample_every: input('sample_every', '8', { type: 'number', min: 0 }),
  };
  const submit = h('button', { type: 'submit', id: 'create-submit', 'data-testid': 'create-submit' }, 'Create run');
  const form = h('form', { class: 'create', id: 'create-form', 'data-testid': 'create-form' },
    ...field('Name', fields.name), ...field('Kind', kind),
    ...field('Variants', variantsIn, 'SPRT: candidate then base; gauntlet: candidate then opponents'), h('span', {}), chips,
    ...field('Opening suite', suite), ...field('Time control', fields.tc, 'nodes=N, depth=N, movetime=MS or BASE+INC'),
    ...field('Pairs', fields.pairs, 'games, gauntlet: per opponent, round robin: per pairing'),
    ...field('elo0', fields.elo0), ...field('elo1', fields.elo1), ...field('alpha', fields.alpha), ...field('beta', fields.beta),
    ...field('Elo model', model), ...field('Bench signature', fields.bench_signature),
    ...field('Sample every', fields.sample_every, 'plies between sampled positions (0 = none)'),
    h('div', { class: 'wide' }, submit));
  const sync = () => {
    for (const k of sprtOnly) fields[k].disabled = kind.value !== 'sprt';
    model.disabled = kind.value !== 'sprt';
    fields.pairs.disabled = kind.value === 'sprt';
  };
  kind.addEventListener('change', sync);
  sync();
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const num = (k) => Number(fields[k].value);
    const ids = variantsIn.value.split(/[\s,]+/).filter(Boolean);
    const body = {
      name: fields.name.value, kind: kind.value, variants: ids, suite: Number(suite.value), tc: fields.tc.value,
      pairs: num('pairs'), elo0: num('elo0'), elo1: num('elo1'), alpha: num('alpha'), beta: num('beta'), model: model.value,
      bench_signature: fields.bench_signature.value.trim() === '' ? null : Number(fields.bench_signature.value),
      sample_every: num('sample_every'),
    };
    submit.disabled = true;
    try {
      const run = await post('/api/runs', body);
      location.href = `/runs/${run.id}`;
    } catch (err) {
      showError(err);
    } finally {
      submit.disabled = false;
    }
  });
  app.append(h('h1', {}, 'Create run'),
    me && me.role !== 'user' ? h('p', { class: 'msg info' }, 'Creating a run needs a token with the user role.') : null, form);
}
