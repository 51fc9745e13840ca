// The live view: once a second the server's stats snapshot (running totals, turned into rates here) and
// its /health; the charts of events, commands by outcome, latency (of the bus handlers, or of the commands
// when no handler has run lately: a bot of commands alone), long-poll waiters, heap, GC pauses and KV writes;
// and the configuration edits that wait for a restart or a module reload.
import { json, api, el } from './api.js';
import { LineChart, format } from './charts.js';

const OUTCOMES = ['ok', 'error', 'other'];
let charts;
let last = null;

function chart(id, names) {
  return new LineChart(document.getElementById(id), names);
}

function show(id, text) {
  document.getElementById(id).textContent = text;
}

function commandTotals(commands) {
  const t = { ok: 0, error: 0, other: 0 };
  for (const [outcome, n] of Object.entries(commands || {})) {
    t[outcome === 'ok' || outcome === 'error' ? outcome : 'other'] += n;
  }
  return t;
}

// Edits of the configuration not in force yet: each setting and when it applies.
function showPending(pending) {
  const rows = (pending || []).map((p) => el('li', `${p.key} changed; applies ${p.applies}`));
  document.getElementById('pending').replaceChildren(...(rows.length ? rows
    : [el('li', 'None: every edit is in force.')]));
}

function update(s) {
  showPending(s.pending);
  const prev = last;
  if (prev && s.time_ms <= prev.time_ms) {
    return; // the same snapshot again
  }
  last = s;
  if (!prev) {
    return; // rates need two
  }
  const dt = (s.time_ms - prev.time_ms) / 1000;
  const rate = (a, b) => Math.max(0, (a - b) / dt);
  const events = rate(s.events, prev.events);
  const now = commandTotals(s.commands);
  const before = commandTotals(prev.commands);
  const commands = OUTCOMES.map((o) => rate(now[o], before[o]));
  const heap = s.heap_used_bytes / 1048576;
  const gc = rate(s.gc_pause_ms, prev.gc_pause_ms);
  const kv = rate(s.kv_writes, prev.kv_writes);
  charts.events.push([events]);
  charts.commands.push(commands);
  const handlers = s.handler_p99_ms > 0 || !(s.command_p99_ms > 0);
  const p50 = handlers ? s.handler_p50_ms : s.command_p50_ms;
  const p99 = handlers ? s.handler_p99_ms : s.command_p99_ms;
  charts.latency.push([p50, p99]);
  charts.waiters.push([s.longpoll_waiters]);
  charts.heap.push([heap]);
  charts.gc.push([gc]);
  charts.kv.push([kv]);
  show('v-events', format(events));
  show('v-commands', commands.map(format).join(' / '));
  show('latency-of', handlers ? 'Handler' : 'Command');
  show('v-latency', format(p50) + ' / ' + format(p99));
  show('v-waiters', String(s.longpoll_waiters));
  show('v-heap', format(heap) + ' of ' + format(s.heap_max_bytes / 1048576));
  show('v-gc', format(gc));
  show('v-kv', format(kv));
}

async function health() {
  const summary = document.getElementById('health-summary');
  try {
    const res = await api('/health');
    const h = await res.json();
    summary.textContent = h.status + ' · ' + h.version;
    summary.className = 'badge ' + h.status;
    const list = document.getElementById('health');
    const rows = [];
    for (const [name, component] of Object.entries(h.components || {})) {
      const state = typeof component === 'string' ? component : component.status;
      rows.push(el('dt', name), el('dd', state, { class: state }));
    }
    rows.push(el('dt', 'uptime'), el('dd', h.uptime_s + ' s'));
    rows.push(el('dt', 'events'), el('dd', `${h.events.received} received, ${h.events.handled} handled`));
    if (h.error) {
      rows.push(el('dt', 'error'), el('dd', h.error, { class: 'DOWN' }));
    }
    list.replaceChildren(...rows);
  } catch (e) {
    summary.textContent = 'unreachable';
    summary.className = 'badge DOWN';
  }
}

async function tick() {
  try {
    update(await json('/api/admin/stats'));
  } catch (e) {
    show('v-events', e.message);
  }
  await health();
}

export function startLive() {
  charts = {
    events: chart('c-events', ['events']),
    commands: chart('c-commands', OUTCOMES),
    latency: chart('c-latency', ['p50', 'p99']),
    waiters: chart('c-waiters', ['waiters']),
    heap: chart('c-heap', ['heap']),
    gc: chart('c-gc', ['gc']),
    kv: chart('c-kv', ['kv']),
  };
  tick();
  setInterval(tick, 1000);
}
