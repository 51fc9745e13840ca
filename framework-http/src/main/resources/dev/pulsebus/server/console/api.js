// Calls to the server. With server.token set, the token is asked for once (on the first 401), kept in
// this tab's sessionStorage (never a cookie: no other site can make the browser send it) and sent as
// Authorization: Bearer on every /api call. With server.admin_token set too, the admin API answers 401 with
// the realm "admin": that token is asked for the same way, kept apart, and sent on /api/admin/ calls only
// (until then they carry the chat token, which is the admin one when admin_token is not set).

const KEY = 'pulsebus.token';
const ADMIN_KEY = 'pulsebus.admin_token';
let asking = null;

/** The sessionStorage key of the token a call to {@code path} carries: the admin one, once there is one. */
function keyFor(path) {
  return String(path).startsWith('/api/admin/') && sessionStorage.getItem(ADMIN_KEY) !== null ? ADMIN_KEY : KEY;
}

/** An answer that is not 2xx: its status and the server's error text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** fetch() with the token; on 401 asks for it (once for all callers) and tries again. */
export async function api(path, options = {}) {
  for (;;) {
    const headers = new Headers(options.headers || {});
    const key = keyFor(path);
    const token = sessionStorage.getItem(key);
    if (token) {
      headers.set('Authorization', 'Bearer ' + token);
    }
    const res = await fetch(path, { ...options, headers, cache: 'no-store' });
    if (res.status !== 401) {
      return res;
    }
    const admin = /realm="admin"/.test(res.headers.get('WWW-Authenticate') || '');
    if (admin && key !== ADMIN_KEY) {
      await askForToken(ADMIN_KEY, 'Managing this server needs its admin token (server.admin_token).');
      continue;
    }
    if (token) {
      sessionStorage.removeItem(key);
    }
    await askForToken(admin ? ADMIN_KEY : KEY, token ? 'That token was refused; try again.'
      : 'This server needs its token (server.token).');
  }
}

/** The JSON body of a 2xx answer (null for 204); an ApiError otherwise. */
export async function json(path, options = {}) {
  const res = await api(path, options);
  if (res.status === 204) {
    return null;
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    throw new ApiError(res.status, (body && body.error) || res.statusText || String(res.status));
  }
  return body;
}

/** POSTs {@code body} as JSON. */
export function post(path, body) {
  return json(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function askForToken(key, why) {
  if (!asking) {
    asking = new Promise((resolve) => {
      const dialog = document.getElementById('token-dialog');
      const form = document.getElementById('token-form');
      const input = document.getElementById('token');
      document.getElementById('token-why').textContent = why;
      input.value = '';
      form.addEventListener('submit', () => {
        sessionStorage.setItem(key, input.value);
        asking = null;
        resolve();
      }, { once: true });
      dialog.showModal();
    });
  }
  return asking;
}

/** Waits {@code ms}. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A new element with text content only (never HTML) and attributes. */
export function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) {
    e.textContent = String(text);
  }
  for (const [k, v] of Object.entries(attrs)) {
    e.setAttribute(k, v);
  }
  return e;
}
