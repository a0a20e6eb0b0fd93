// The JSON API: fetch with the session's CSRF token on every write, and errors as messages.
// The server answers errors as {"error": "..."}; ApiError carries that text and the status.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let mePromise = null;

/** GET /api/me, once per page: {role, csrf, public}. */
export function me() {
  if (!mePromise) mePromise = request('GET', '/api/me').catch((e) => { mePromise = null; throw e; });
  return mePromise;
}

/** Forgets the cached /api/me (after signing in or out). */
export function forgetMe() {
  mePromise = null;
}

async function request(method, path, body, csrf) {
  const headers = { Accept: 'application/json' };
  const init = { method, headers, credentials: 'same-origin' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (csrf) headers['X-CSRF-Token'] = csrf;
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, `${method} ${path}: the server did not answer (${e.message})`);
  }
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') || '';
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      if (type.includes('json')) message = (await res.json()).error || message;
      else message = (await res.text()) || message;
    } catch { /* keep the status line */ }
    throw new ApiError(res.status, message);
  }
  return type.includes('json') ? res.json() : res.text();
}

/** A read. */
export function get(path) {
  return request('GET', path);
}

/** A write: POST/DELETE with the CSRF token of the cookie session. */
export async function send(method, path, body) {
  let csrf = null;
  try {
    csrf = (await me()).csrf;
  } catch { /* anonymous: no token */ }
  return request(method, path, body, csrf);
}

export const post = (path, body) => send('POST', path, body ?? {});
export const del = (path) => send('DELETE', path);

/** Shows a message in the page's message area (errors stay until closed). */
export function showMessage(text, kind = 'error') {
  const box = document.getElementById('messages');
  if (!box) return;
  const div = document.createElement('div');
  div.className = `msg ${kind}`;
  div.dataset.testid = kind === 'error' ? 'error' : 'info';
  const span = document.createElement('span');
  span.textContent = text;
  const close = document.createElement('button');
  close.textContent = '×';
  close.title = 'close';
  close.addEventListener('click', () => div.remove());
  div.append(span, close);
  box.append(div);
  if (kind !== 'error') setTimeout(() => div.remove(), 4000);
}

/** Shows an error (an ApiError's server text, or any exception's message). */
export function showError(err) {
  const text = err instanceof ApiError ? err.message : `${err && err.message ? err.message : err}`;
  showMessage(text, 'error');
  if (err instanceof ApiError && err.status === 401 && location.pathname !== '/login') {
    const box = document.getElementById('messages');
    const a = document.createElement('a');
    a.href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
    a.textContent = 'sign in';
    a.dataset.testid = 'signin-link';
    box.lastElementChild?.querySelector('span')?.append(' — ', a);
  }
}
