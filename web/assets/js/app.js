// The pages' one entry: routes by location.pathname to a page module, after /api/me says
// who we are (a visitor who is not signed in on a private farm goes to /login).

import { me, showError } from './api.js';

const ROUTES = [
  // [path, nav link, page name, module]
  [/^\/$/, 'runs', 'runs', () => import('./pages/runs.js')],
  [/^\/runs\/(\d+)$/, 'runs', 'run', () => import('./pages/run.js')],
  [/^\/workers$/, 'workers', 'workers', () => import('./pages/workers.js')],
  [/^\/games\/(\d+)$/, null, 'game', () => import('./pages/game.js')],
  [/^\/play$/, 'play', 'play', () => import('./pages/play.js')],
  [/^\/create$/, 'create', 'create', () => import('./pages/create.js')],
  [/^\/login$/, null, 'login', () => import('./pages/login.js')],
];

async function boot() {
  const app = document.getElementById('app');
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const route = ROUTES.find(([re]) => re.test(path));
  if (!route) {
    app.textContent = `No page at ${path}.`;
    return;
  }
  const [re, nav, name, load] = route;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('current', a.dataset.nav === nav);
  let who = null;
  try {
    who = await me();
  } catch (e) {
    showError(e);
  }
  const whoami = document.getElementById('whoami');
  if (who) {
    whoami.textContent = who.role ? `signed in: ${who.role}` : 'not signed in';
    if (who.role && who.role !== 'public') {
      const out = document.createElement('a');
      out.href = '#';
      out.textContent = ' (sign out)';
      out.dataset.testid = 'logout';
      out.addEventListener('click', async (ev) => {
        ev.preventDefault();
        const { post, forgetMe } = await import('./api.js');
        try { await post('/api/logout'); } catch (err) { showError(err); }
        forgetMe();
        location.href = '/login';
      });
      whoami.append(out);
    }
    if (!who.role && !who.public && path !== '/login') {
      location.replace(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
      return;
    }
  }
  const params = path.match(re).slice(1);
  app.replaceChildren();
  document.body.dataset.page = name;
  try {
    const page = await load();
    await page.render(app, { params, me: who });
    document.body.dataset.ready = 'true';
  } catch (e) {
    showError(e);
    document.body.dataset.ready = 'error';
  }
}

boot();
