// The browser console, in a real headless Chromium driven by playwright-core. Started by
// ConsoleBrowserTest (framework-http's JUnit tests) against servers it runs on real sockets:
//   node console.test.mjs <scenario>
// with PULSEBUS_NPM_CACHE (where playwright-core is installed), PULSEBUS_CHROMIUM (the browser),
// PULSEBUS_URL (a server without a token), PULSEBUS_TOKEN_URL and PULSEBUS_TOKEN (one with),
// PULSEBUS_SHOTS (where screenshots go). Exits 0 when the scenario held, 1 with the reason otherwise.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set`);
  }
  return v;
};
const require = createRequire(path.join(env('PULSEBUS_NPM_CACHE'), 'noop.js'));
const { chromium } = require('playwright-core');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const shots = env('PULSEBUS_SHOTS');
mkdirSync(shots, { recursive: true });

function check(condition, what) {
  if (!condition) {
    throw new Error(what);
  }
}

/** Says {@code text} in {@code room} as {@code user} from outside the browser, as curl would. */
async function say(base, room, user, text, headers = {}) {
  const res = await fetch(`${base}/api/rooms/${room}/messages`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ user, text }),
  });
  check(res.status === 201, `the say from outside answered ${res.status}`);
  return res.json();
}

/** A browser with a fresh profile, one page, and what it saw: console errors, requests off 127.0.0.1. */
async function open(scenario) {
  const profile = mkdtempSync(path.join(tmpdir(), 'pulsebus-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: env('PULSEBUS_CHROMIUM'), headless: true, args: ARGS, viewport: { width: 1280, height: 900 },
  });
  const seen = { errors: [], external: [] };
  context.on('request', (r) => {
    const u = new URL(r.url());
    if (u.hostname !== '127.0.0.1' && u.protocol !== 'data:' && u.protocol !== 'blob:') {
      seen.external.push(r.url());
    }
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') {
      seen.errors.push(m.text());
    }
  });
  page.on('pageerror', (e) => seen.errors.push('uncaught: ' + e.message));
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { page, seen, close, shot: (name) => page.screenshot({ path: path.join(shots, `${scenario}-${name}.png`), fullPage: true }) };
}

function clean(seen) {
  check(seen.errors.length === 0, 'console errors: ' + JSON.stringify(seen.errors));
  check(seen.external.length === 0, 'requests left 127.0.0.1: ' + JSON.stringify(seen.external));
}

/** Types {@code text} in the Message box, presses Send, and waits for the bot's next answer; returns its text. */
async function command(page, text, timeout = 2000) {
  const log = page.getByRole('log');
  const before = await log.locator('[data-user="bot"]').count();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const answer = log.locator('[data-user="bot"]').nth(before);
  await answer.waitFor({ timeout });
  return answer.locator('.text').textContent();
}

const scenarios = {
  async chat() {
    const base = env('PULSEBUS_URL');
    const b = await open('chat');
    try {
      await b.page.goto(`${base}/?room=browser-chat`);
      const answer = await command(b.page, '/roll 20');
      check(/^You rolled \d+ \(d20\)$/.test(answer), `the bot answered '${answer}'`);
      const mine = b.page.getByRole('log').locator('[data-user="you"]').first();
      check((await mine.locator('.text').textContent()) === '/roll 20', 'the message said is not in the log');
      await say(base, 'browser-chat', 'curl', 'hello from outside');
      await b.page.getByRole('log').locator('[data-user="curl"]', { hasText: 'hello from outside' })
        .waitFor({ timeout: 5000 });
      check(await b.page.evaluate(() => performance.getEntriesByType('navigation').length) === 1, 'the page reloaded');
      await b.shot('chat');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  async xss() {
    const base = env('PULSEBUS_URL');
    const payload = '<img src=x onerror="window.__xss = 1; document.title = \'pwned\'">';
    const typed = '<b>bold</b><script>window.__xss = 2</script>';
    await say(base, 'browser-xss', 'mallory', payload);
    const b = await open('xss');
    try {
      await b.page.goto(`${base}/?room=browser-xss`);
      const log = b.page.getByRole('log');
      await log.locator('[data-user="mallory"]').waitFor({ timeout: 5000 });
      await b.page.getByRole('textbox', { name: 'Message', exact: true }).fill(typed);
      await b.page.getByRole('button', { name: 'Send', exact: true }).click();
      await log.locator('[data-user="you"]').waitFor({ timeout: 5000 });
      check((await log.locator('[data-user="mallory"] .text').textContent()) === payload, 'the payload is not shown as text');
      check((await log.locator('[data-user="you"] .text').textContent()) === typed, 'the typed HTML is not shown as text');
      check(await log.locator('img, b, script').count() === 0, 'a message became HTML elements');
      check(await b.page.evaluate(() => window.__xss === undefined && document.title !== 'pwned'), 'the payload ran');
      await b.shot('chat');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  async live() {
    const base = env('PULSEBUS_URL');
    const b = await open('live');
    try {
      await b.page.goto(base + '/');
      await b.page.getByRole('button', { name: 'Live', exact: true }).click();
      for (let i = 0; i < 5; i++) {
        await say(base, 'browser-live', 'load', '/echo ' + i);
      }
      await b.page.waitForTimeout(3000);
      const charts = await b.page.$$eval('.charts canvas', (all) => all.map((c) => {
        const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let inked = 0;
        for (let i = 3; i < pixels.length; i += 4) {
          inked += pixels[i] > 0 ? 1 : 0;
        }
        return { id: c.id, points: Number(c.dataset.points || 0), inked };
      }));
      check(charts.length === 7, `${charts.length} charts`);
      for (const c of charts) {
        check(c.points >= 1 && c.inked > 0, `chart ${c.id} has drawn no points: ${JSON.stringify(c)}`);
      }
      const storage = b.page.locator('#health dt', { hasText: 'storage' }).locator('xpath=following-sibling::dd[1]');
      check((await storage.textContent()) === 'UP', 'the health view does not show storage UP');
      await b.shot('live');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  async modules() {
    const base = env('PULSEBUS_URL');
    const b = await open('modules');
    try {
      await b.page.goto(`${base}/?room=browser-modules`);
      check((await command(b.page, '/hot')) === 'hot v1', 'the v1 module does not answer');
      await b.page.getByRole('button', { name: 'Modules', exact: true }).click();
      const row = b.page.locator('tr[data-module="hot"]');
      await row.locator('.version', { hasText: 'v1' }).waitFor({ timeout: 5000 });
      await b.page.getByRole('combobox', { name: 'Jar to reload hot from' }).selectOption('hot-v2.jar');
      await b.page.getByRole('button', { name: 'Reload hot', exact: true }).click();
      await b.page.getByRole('status').filter({ hasText: 'Reloaded hot from hot-v2.jar' }).waitFor({ timeout: 10000 });
      await row.locator('.version', { hasText: 'v2' }).waitFor({ timeout: 5000 });
      await b.shot('modules');
      // a version that fails to load: the error is shown and v2 keeps running
      await b.page.getByRole('combobox', { name: 'Jar to reload hot from' }).selectOption('hot-broken.jar');
      await b.page.getByRole('button', { name: 'Reload hot', exact: true }).click();
      const alert = b.page.getByRole('alert');
      await alert.filter({ hasText: 'broken on purpose' }).waitFor({ timeout: 10000 });
      await row.locator('.version', { hasText: 'v2' }).waitFor({ timeout: 5000 });
      await b.shot('modules-failed');
      await b.page.getByRole('button', { name: 'Chat', exact: true }).click();
      check((await command(b.page, '/hot')) === 'hot v2', 'the reloaded module does not answer as v2');
      await b.page.getByRole('button', { name: 'Errors', exact: true }).click();
      await b.page.locator('#errors tr', { hasText: 'broken on purpose' }).first().waitFor({ timeout: 5000 });
      await b.shot('errors');
      // The 409 of the failed reload is the one error the browser itself logs.
      b.seen.errors = b.seen.errors.filter((e) => !e.includes('409'));
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  async bench() {
    const b = await open('bench');
    try {
      await b.page.goto(env('PULSEBUS_URL') + '/');
      await b.page.getByRole('button', { name: 'Benchmark', exact: true }).click();
      await b.page.locator('#bench tr', { hasText: 'http.health' }).waitFor({ timeout: 5000 });
      check(Number(await b.page.locator('#c-bench').getAttribute('data-points')) >= 1, 'the benchmark chart is empty');
      await b.shot('bench');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  async token() {
    const base = env('PULSEBUS_TOKEN_URL');
    const token = env('PULSEBUS_TOKEN');
    for (const p of ['/api/admin/stats', '/api/admin/modules', '/api/admin/errors']) {
      const res = await fetch(base + p);
      check(res.status === 401, `${p} without the token answered ${res.status}`);
      check(res.headers.get('cache-control') === 'no-store', `${p} is not no-store`);
    }
    const b = await open('token');
    try {
      await b.page.goto(`${base}/?room=browser-token`);
      const box = b.page.getByLabel('Token', { exact: true });
      await box.waitFor({ timeout: 5000 });
      await b.shot('asked');
      await box.fill(token);
      await b.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      check((await command(b.page, '/echo signed in', 5000)) === 'signed in', 'chat does not work after signing in');
      check(await b.page.evaluate((t) => sessionStorage.getItem('pulsebus.token') === t && document.cookie === '', token),
        'the token is not in sessionStorage only');
      await b.page.getByRole('button', { name: 'Live', exact: true }).click();
      await b.page.waitForFunction(() => Number(document.getElementById('c-events').dataset.points || 0) > 0,
        null, { timeout: 5000 });
      await b.shot('live');
      check(b.seen.external.length === 0, 'requests left 127.0.0.1: ' + JSON.stringify(b.seen.external));
    } finally {
      await b.close();
    }
  },
};

const name = process.argv[2];
if (!scenarios[name]) {
  console.error(`no scenario '${name}'; known: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
try {
  await scenarios[name]();
  console.log(`[browser] ${name}: passed`);
} catch (e) {
  console.error(`[browser] ${name}: FAILED: ${e.stack || e}`);
  process.exit(1);
}
