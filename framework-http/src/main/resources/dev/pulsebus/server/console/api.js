// Calls to the server. With server.token set, the token is asked for once (on the first 401), kept in
// this tab's sessionStorage (never a cookie: no other site can make the browser send it) and sent as
// Authorization: Bearer on every /api call.

const KEY = 'pulsebus.token';
let asking = null;

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
    const token = sessionStorage.getItem(KEY);
    if (token) {
      headers.set('Authorization', 'Bearer ' + token);
    }
    const res = await fetch(path, { ...options, headers, cache: 'no-store' });
    if (res.status !== 401) {
      return res;
    }
    if (token) {
      sessionStorage.removeItem(KEY);
    }
    await askForToken(token ? 'That token was refused; try again.' : 'This server needs its token (server.token).');
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

function askForToken(why) {
  if (!asking) {
    asking = new Promise((resolve) => {
      const dialog = document.getElementById('token-dialog');
      const form = document.getElementById('token-form');
      const input = document.getElementById('token');
      document.getElementById('token-why').textContent = why;
      input.value = '';
      form.addEventListener('submit', () => {
        sessionStorage.setItem(KEY, input.value);
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
