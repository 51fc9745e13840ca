// The browser console, in a real headless Chromium driven by playwright-core. Started by
// ConsoleBrowserTest (framework-http's JUnit tests) against servers it runs on real sockets:
//   node console.test.mjs <scenario>
// with PULSEBUS_NPM_CACHE (where playwright-core is installed), PULSEBUS_CHROMIUM (the browser),
// PULSEBUS_URL (a server without a token), PULSEBUS_TOKEN_URL and PULSEBUS_TOKEN (one with),
// PULSEBUS_ADMIN_URL and PULSEBUS_ADMIN_TOKEN (one with an admin token too, the same chat token),
// PULSEBUS_FRESH_URL (one without a token whose modules folder is empty, for the scenarios that need
// to know all of its traffic), PULSEBUS_ATTACK_URL (one without a token, module hot v1 loaded, OneBot v11's reverse WebSocket open, for
// a page on another origin to attack), PULSEBUS_SHOTS (where screenshots go). Exits 0 when the scenario held, 1 with the reason otherwise.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
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
async function open(scenario, extraArgs = []) {
  const profile = mkdtempSync(path.join(tmpdir(), 'pulsebus-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: env('PULSEBUS_CHROMIUM'), headless: true, args: [...ARGS, ...extraArgs],
    viewport: { width: 1280, height: 900 },
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

  // The first say's 201 comes late (held back here); the next message, typed meanwhile, stays in the box.
  async typing() {
    const base = env('PULSEBUS_URL');
    const b = await open('typing');
    try {
      let held = 0;
      await b.page.route('**/api/rooms/browser-typing/messages', async (route) => {
        if (route.request().method() !== 'POST') {
          return route.continue();
        }
        const response = await route.fetch();
        held++;
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return route.fulfill({ response });
      });
      await b.page.goto(`${base}/?room=browser-typing`);
      const box = b.page.getByRole('textbox', { name: 'Message', exact: true });
      await box.fill('first message');
      await b.page.getByRole('button', { name: 'Send', exact: true }).click();
      check(await box.inputValue() === '', 'the box is not cleared when the message is sent');
      await box.fill('second, half typed');
      const log = b.page.getByRole('log');
      await log.locator('[data-user="you"]', { hasText: 'first message' }).waitFor({ timeout: 5000 });
      check(held === 1, `the say was not held back (${held})`);
      await b.page.waitForTimeout(1800); // past the held 201, whether the poll or the answer rendered it
      check(await box.inputValue() === 'second, half typed',
        `the first say's answer cleared the next message: '${await box.inputValue()}'`);
      clean(b.seen);
    } finally {
      await b.page.unrouteAll({ behavior: 'ignoreErrors' });
      await b.close();
    }
  },

  // Without ?room the page opens the most recently active room, then the one this browser used last.
  async latestRoom() {
    const base = env('PULSEBUS_FRESH_URL');
    await say(base, 'fresh-older', 'curl', 'older room');
    await say(base, 'fresh-latest', 'curl', 'latest room');
    const deadline = Date.now() + 10000;
    for (;;) { // the transcript store is written behind: wait until it lists the room first
      const rooms = (await (await fetch(`${base}/api/admin/rooms`)).json()).rooms;
      if (rooms[0] === 'fresh-latest') {
        break;
      }
      check(Date.now() < deadline, 'the rooms list does not put the latest room first: ' + JSON.stringify(rooms));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const b = await open('latest-room');
    try {
      await b.page.goto(base + '/');
      const log = b.page.getByRole('log');
      await log.locator('[data-user="curl"]', { hasText: 'latest room' }).waitFor({ timeout: 5000 });
      check(await b.page.locator('#room').inputValue() === 'fresh-latest', 'the room picker does not show fresh-latest');
      await b.page.locator('#room').selectOption('fresh-older');
      await log.locator('[data-user="curl"]', { hasText: 'older room' }).waitFor({ timeout: 5000 });
      await b.page.goto(base + '/');
      await log.locator('[data-user="curl"]', { hasText: 'older room' }).waitFor({ timeout: 5000 });
      check(await b.page.locator('#room').inputValue() === 'fresh-older', 'the room used last is not opened again');
      await b.shot('chat');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  // A bot of commands only (no bus handler runs): the latency chart shows the commands' latency.
  async commandLatency() {
    const base = env('PULSEBUS_FRESH_URL');
    const b = await open('command-latency');
    try {
      await b.page.goto(`${base}/?room=fresh-commands`);
      await b.page.getByRole('button', { name: 'Live', exact: true }).click();
      for (const c of ['/echo one', '/roll 6', '/echo two', '/help']) {
        await say(base, 'fresh-commands', 'load', c);
      }
      const shown = b.page.locator('#v-latency');
      try {
        await b.page.waitForFunction(() => {
          const [p50, p99] = document.getElementById('v-latency').textContent.split(' / ').map(Number);
          return p50 > 0 && p99 > 0;
        }, null, { timeout: 5000 });
      } catch (e) {
        throw new Error(`the latency chart shows '${await shown.textContent()}' after commands only`);
      }
      check(await b.page.locator('#latency-of').textContent() === 'Command',
        'the latency chart does not say it shows commands: ' + await b.page.locator('#latency-of').textContent());
      await b.shot('live');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  // An empty modules folder: nothing to load, and Load says so by being disabled.
  async emptyModules() {
    const b = await open('empty-modules');
    try {
      await b.page.goto(env('PULSEBUS_FRESH_URL') + '/');
      const read = b.page.waitForResponse((r) => r.url().endsWith('/api/admin/modules'), { timeout: 5000 });
      await b.page.getByRole('button', { name: 'Modules', exact: true }).click();
      await read;
      const load = b.page.getByRole('button', { name: 'Load', exact: true });
      try {
        await b.page.waitForFunction(() => document.querySelector('#load-module button').disabled, null,
          { timeout: 2000 });
      } catch (e) {
        throw new Error('Load is enabled with nothing to load');
      }
      check(await load.isDisabled(), 'Load is enabled with nothing to load');
      check((await b.page.locator('#load-hint').textContent()).includes('modules/'), 'no hint of where jars go');
      await b.shot('modules-empty');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  // No results file configured or found: no rows, and how to make one; no failed request in the console.
  async benchMissing() {
    const b = await open('bench-missing');
    try {
      await b.page.goto(env('PULSEBUS_URL') + '/');
      await b.page.getByRole('button', { name: 'Benchmark', exact: true }).click();
      await b.page.locator('#bench-status', { hasText: 'mvn verify -Pbench' }).waitFor({ timeout: 5000 });
      check(await b.page.locator('#bench tr').count() === 0, 'rows without a results file');
      await b.shot('bench-missing');
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
      await b.page.locator('#pending li', { hasText: 'server.max_body_bytes changed; applies after a restart' })
        .waitFor({ timeout: 10000 });
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
      // what it costs: the module's row, then its command's, with the CPU and bytes of the measured call
      await b.page.locator('#costs tr[data-cost-module="hot"]').waitFor({ timeout: 5000 });
      const cells = b.page.locator('#costs tr[data-cost-site="hot hot"] td');
      check(/\d (µs|ms)$/.test(await cells.nth(2).textContent()), 'the /hot command shows no CPU per call');
      check(/\d (B|KiB|MiB)$/.test(await cells.nth(3).textContent()), 'the /hot command shows no bytes per call');
      check(/%$/.test(await cells.nth(4).textContent()), 'the /hot command shows no share of the CPU');
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

  // A slow command's trace in the Errors view: its time line, the command's bar and its KV write's.
  async slow() {
    const base = env('PULSEBUS_FRESH_URL');
    await say(base, 'browser-slow', 'curl', '/slow');
    const b = await open('slow');
    try {
      await b.page.goto(`${base}/?room=browser-slow`);
      await b.page.getByRole('button', { name: 'Errors', exact: true }).click();
      const trace = b.page.locator('.trace[data-command="slow"]').first();
      await trace.waitFor({ timeout: 10000 });
      check((await trace.locator('h4').textContent()).includes('slowpoke'), 'the trace does not name its module');
      for (const kind of ['queued', 'own', 'kv', 'reply']) {
        const bar = trace.locator(`.span-row[data-kind="${kind}"] .seg`).first();
        const box = await bar.boundingBox();
        check(box && box.width >= 1 && box.height >= 5, `no ${kind} bar on the time line: ` + JSON.stringify(box));
      }
      const own = await trace.locator('.span-row[data-kind="own"] .seg').boundingBox();
      const track = await trace.locator('.span-row[data-kind="own"] .track').boundingBox();
      check(own.width > track.width / 2, 'the command does not take most of its time line');
      await b.shot('slow');
      clean(b.seen);
    } finally {
      await b.close();
    }
  },

  // A CPU profile of the running server from the page: started, followed, its flame graph drawn in a frame.
  async profile() {
    const base = env('PULSEBUS_URL');
    const b = await open('profile');
    try {
      await b.page.goto(`${base}/?room=browser-profile`);
      await b.page.getByRole('button', { name: 'Profile', exact: true }).click();
      await b.page.getByRole('combobox', { name: 'Mode' }).selectOption('cpu');
      await b.page.getByRole('spinbutton', { name: 'Seconds' }).fill('2');
      await b.page.getByRole('button', { name: 'Start', exact: true }).click();
      await b.page.getByRole('status').filter({ hasText: /Recording CPU|Drawing/ }).waitFor({ timeout: 10000 });
      // work for the profile to see: the example module's /echo, said from outside while it records
      let saying = true;
      const traffic = (async () => {
        while (saying) {
          await say(base, 'browser-profile', 'curl', '/echo profiled');
        }
      })();
      // the user looks at another view while it records and draws, and comes back once it is done: the graph,
      // which measures its canvas as it loads, must not have been loaded unseen (it would draw nothing)
      await b.page.getByRole('button', { name: 'Chat', exact: true }).click();
      try {
        await b.page.locator('#profile-status').filter({ hasText: 'events' })
          .waitFor({ state: 'attached', timeout: 30000 });
      } finally {
        saying = false;
        await traffic;
      }
      await b.page.getByRole('button', { name: 'Profile', exact: true }).click();
      const canvas = b.page.frameLocator('#profile-graph').locator('canvas');
      await canvas.waitFor({ timeout: 10000 });
      const box = await canvas.boundingBox();
      check(box && box.width > 300 && box.height > 30, 'the flame graph has no size: ' + JSON.stringify(box));
      const title = await b.page.frameLocator('#profile-graph').locator('h1').textContent();
      check(title.includes('cpu profile, 2 s'), `the flame graph's title is '${title}'`);
      const download = await b.page.locator('#profile-download').getAttribute('href');
      check(/\/recording\.jfr\?key=[0-9a-f]{32}$/.test(download), 'no link to the recording: ' + download);
      const jfr = await fetch(base + download);
      check(jfr.status === 200 && (await jfr.arrayBuffer()).byteLength > 1000, 'the recording is not served');
      await b.shot('profile');
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

  async adminToken() {
    const base = env('PULSEBUS_ADMIN_URL');
    const token = env('PULSEBUS_TOKEN');
    const adminToken = env('PULSEBUS_ADMIN_TOKEN');
    const b = await open('admin-token');
    try {
      await b.page.goto(`${base}/?room=browser-admin`);
      // the chat view reads the room's history (server.token) and lists the rooms through the admin API: each
      // token is asked for, in whichever order the answers come
      const box = b.page.getByLabel('Token', { exact: true });
      const asked = [];
      for (let i = 0; i < 2; i++) {
        await box.waitFor({ timeout: 5000 });
        const why = await b.page.locator('#token-why').textContent();
        asked.push(why);
        if (why.includes('server.admin_token')) {
          await b.shot('asked-admin');
        }
        await box.fill(why.includes('server.admin_token') ? adminToken : token);
        await b.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      }
      check(asked.some((w) => w.includes('server.admin_token')) && asked.some((w) => w.includes('(server.token)')),
        'not asked for each token once: ' + JSON.stringify(asked));
      check((await command(b.page, '/echo chat works', 5000)) === 'chat works', 'chat does not work with server.token');
      await b.page.getByRole('button', { name: 'Modules', exact: true }).click();
      await b.page.locator('tr[data-module]').first().waitFor({ timeout: 5000 });
      check(await b.page.evaluate(([t, a]) => sessionStorage.getItem('pulsebus.token') === t
        && sessionStorage.getItem('pulsebus.admin_token') === a && document.cookie === '', [token, adminToken]),
      'the tokens are not each in sessionStorage only');
      check(b.seen.external.length === 0, 'requests left 127.0.0.1: ' + JSON.stringify(b.seen.external));
    } finally {
      await b.close();
    }
  },

  // A page on another origin (another port of 127.0.0.1, and a rebound name) tries what issue 34 found it
  // could do to a server without a token; afterwards the server's state is what it was.
  async attack() {
    const target = env('PULSEBUS_ATTACK_URL');
    const port = new URL(target).port;
    const modules = async () => (await (await fetch(`${target}/api/admin/modules`)).json()).modules
      .map((m) => `${m.name} ${m.version}`);
    const said = async () => (await (await fetch(`${target}/api/rooms/attack/messages`)).json()).messages.length;
    const failed = []; // every attack is checked, each failure reported
    const before = await modules();
    check(before.includes('hot v1'), 'module hot v1 is not loaded before the attack: ' + before);
    const page = `<!doctype html><meta charset="utf-8"><title>evil</title>
      <iframe name="sink"></iframe>
      <form id="load" method="POST" enctype="text/plain" target="sink"
            action="${target}/api/admin/modules/hot/reload"><input name='{"jar":"hot-v2.jar","x":"' value='"}'></form>
      <form id="say" method="POST" enctype="text/plain" target="sink"
            action="${target}/api/rooms/attack/messages"><input name='{"user":"admin","text":"/echo pwned","x":"' value='"}'></form>`;
    const evil = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(page);
    });
    await new Promise((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilUrl = `http://127.0.0.1:${evil.address().port}/`;
    // the rebound name resolves to the server; no Private Network Access checks: the worst browser for the server
    const b = await open('attack', ['--host-resolver-rules=MAP rebind.attacker.example 127.0.0.1',
      '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,'
        + 'PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks']);
    try {
      await b.page.goto(evilUrl);
      const outcome = await b.page.evaluate(async ([t]) => {
        const seen = {};
        const send = (url, init) => fetch(url, init).then(() => 'sent', (e) => 'failed: ' + e.message);
        seen.unload = await send(`${t}/api/admin/modules/hot/unload`, { method: 'POST', mode: 'no-cors' });
        seen.say = await send(`${t}/api/rooms/attack/messages`, { method: 'POST', mode: 'no-cors',
          headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ user: 'admin', text: '/echo pwned' }) });
        for (const id of ['load', 'say']) {
          const loaded = new Promise((resolve) => { document.querySelector('iframe').onload = resolve; });
          document.getElementById(id).submit();
          await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, 3000))]);
        }
        seen.ws = await new Promise((resolve) => {
          const ws = new WebSocket(t.replace('http:', 'ws:') + '/onebot/v11/ws');
          ws.onopen = () => {
            ws.send(JSON.stringify({ time: 1, self_id: 1, post_type: 'message', message_type: 'private',
              sub_type: 'friend', message_id: 1, user_id: 10001, message: '/echo pwned', raw_message: '/echo pwned',
              font: 0, sender: { user_id: 10001, nickname: 'eve' } }));
            setTimeout(() => resolve('opened'), 1000);
          };
          ws.onerror = () => resolve('refused');
          setTimeout(() => resolve('no answer'), 5000);
        });
        return seen;
      }, [target]);
      if (outcome.ws !== 'refused') {
        failed.push(`the WebSocket from another origin was ${outcome.ws}`);
      }
      // DNS rebinding: a page of rebind.attacker.example whose name now points at the server reads it same-origin
      const rebound = `http://rebind.attacker.example:${port}`;
      await b.page.route(`${rebound}/`, (route) => route.fulfill({ contentType: 'text/html', body: '<title>rebound</title>' }));
      await b.page.goto(`${rebound}/`);
      const read = await b.page.evaluate(async () => {
        const stats = await fetch('/api/admin/stats');
        const say = await fetch('/api/rooms/attack/messages', { method: 'POST',
          headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ user: 'admin', text: 'rebound' }) });
        return { stats: stats.status, body: await stats.text(), say: say.status };
      });
      if (read.stats !== 421 || read.body.includes('"events"')) {
        failed.push('the rebound page read the stats: ' + read.stats + ' ' + read.body.slice(0, 80));
      }
      if (read.say !== 421) {
        failed.push('the rebound page said something: ' + read.say);
      }
      await b.shot('attacked');
    } finally {
      await b.close();
      evil.close();
    }
    const after = await modules();
    if (JSON.stringify(after) !== JSON.stringify(before)) {
      failed.push(`the modules changed: ${before} -> ${after}`);
    }
    const stored = await said();
    if (stored !== 0) {
      failed.push(`${stored} messages from the other origins were stored`);
    }
    check(failed.length === 0, failed.join('; '));
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
