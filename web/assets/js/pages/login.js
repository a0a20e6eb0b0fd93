// /login: the token form (POST /api/login sets the session cookie).

import { forgetMe, post, showError } from '../api.js';
import { h } from '../dom.js';

export async function render(app) {
  const input = h('input', { id: 'login-token', 'data-testid': 'login-token', type: 'password', name: 'token', autocomplete: 'current-password', placeholder: 'farm token', size: 40, required: true });
  const form = h('form', { class: 'login', id: 'login-form', 'data-testid': 'login-form' },
    input, h('button', { type: 'submit', id: 'login-submit', 'data-testid': 'login-submit' }, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await post('/api/login', { token: input.value });
      forgetMe();
      const next = new URLSearchParams(location.search).get('next');
      location.href = next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
    } catch (err) {
      showError(err);
    }
  });
  app.append(h('h1', {}, 'Sign in'), h('p', {}, 'Sign in with a farm token (read-only role to watch, user role to create and stop runs).'), form);
  input.focus();
}
