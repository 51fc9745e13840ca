// The modules, recent errors and benchmark views.
import { json, post, el } from './api.js';
import { format } from './charts.js';

function owns(m) {
  const parts = [];
  if (m.commands.length) {
    parts.push('commands: ' + m.commands.map((c) => '/' + c).join(' '));
  }
  if (m.subscriptions.length) {
    parts.push('subscriptions: ' + m.subscriptions.join(' '));
  }
  if (m.routes.length) {
    parts.push('routes: ' + m.routes.join(' '));
  }
  return parts.join('\n') || 'nothing';
}

function renderModules(answer) {
  const rows = answer.modules.map((m) => {
    const tr = el('tr', null, { 'data-module': m.name });
    tr.append(el('td', m.name), el('td', m.version, { class: 'version' }),
      el('td', m.source === 'jar' ? 'jar ' + m.jar : 'classpath'), el('td', owns(m), { class: 'owns msg' }));
    const actions = el('td');
    if (m.source === 'jar') {
      const from = el('select', null, { 'aria-label': 'Jar to reload ' + m.name + ' from' });
      for (const jar of answer.jars) {
        from.append(el('option', jar, { value: jar }));
      }
      from.value = m.jar;
      const reload = el('button', 'Reload', { type: 'button', 'aria-label': 'Reload ' + m.name });
      reload.addEventListener('click', () => change(`/api/admin/modules/${encodeURIComponent(m.name)}/reload`,
        { jar: from.value }, `Reloaded ${m.name} from ${from.value}`));
      const unload = el('button', 'Unload', { type: 'button', 'aria-label': 'Unload ' + m.name });
      unload.addEventListener('click', () => change(`/api/admin/modules/${encodeURIComponent(m.name)}/unload`,
        undefined, `Unloaded ${m.name}`));
      actions.append(from, reload, unload);
    } else {
      actions.textContent = '—';
    }
    tr.append(actions);
    return tr;
  });
  document.getElementById('modules').replaceChildren(...rows);
  const loadedJars = new Set(answer.modules.map((m) => m.jar).filter(Boolean));
  const select = document.getElementById('load-jar');
  const loadable = answer.jars.filter((j) => !loadedJars.has(j));
  select.replaceChildren(...loadable.map((j) => el('option', j, { value: j })));
  select.disabled = loadable.length === 0;
  document.getElementById('load-button').disabled = loadable.length === 0;
  document.getElementById('load-hint').textContent = loadable.length === 0
    ? 'Nothing to load: put a module jar in the server\'s modules/ folder, then open this view again.' : '';
}

async function change(path, body, done) {
  const status = document.getElementById('modules-status');
  const error = document.getElementById('modules-error');
  status.textContent = 'Working…';
  error.textContent = '';
  try {
    renderModules(await post(path, body));
    status.textContent = done;
  } catch (e) {
    status.textContent = '';
    error.textContent = e.message;
    refreshModules();
  }
}

/** Microseconds as a reader takes them: µs below a millisecond, else ms. */
function micros(us) {
  return us >= 1000 ? (us / 1000).toFixed(us >= 10000 ? 0 : 1) + ' ms' : us.toFixed(us >= 10 ? 0 : 1) + ' µs';
}

function bytes(n) {
  return n >= 1048576 ? (n / 1048576).toFixed(1) + ' MiB' : n >= 1024 ? (n / 1024).toFixed(1) + ' KiB' : n + ' B';
}

function costRow(kind, name, f, attrs) {
  const tr = el('tr', null, attrs);
  tr.append(el('td', name), el('td', format(f.calls_per_second)), el('td', f.measured ? micros(f.cpu_per_call_us) : '—'),
    el('td', f.measured ? bytes(f.bytes_per_call) : '—'), el('td', (f.cpu_share * 100).toFixed(1) + ' %'));
  tr.title = `${kind}: ${f.calls} calls in all, ${f.measured} measured, ${f.cpu_seconds.toFixed(3)} s of CPU`;
  return tr;
}

/** What the modules cost, the costliest first: each module's row, then its commands and handlers. */
function renderCosts(answer) {
  const rows = [];
  for (const m of answer.modules) {
    rows.push(costRow('module', m.module, m, { class: 'module', 'data-cost-module': m.module }));
    for (const s of m.sites) {
      const name = s.kind === 'command' ? '/' + s.name : s.name;
      rows.push(costRow(s.kind, name, s, { class: 'site', 'data-cost-site': m.module + ' ' + s.name }));
    }
  }
  if (rows.length === 0) {
    const off = answer.sample_every === 0;
    const tr = el('tr');
    tr.append(el('td', off ? 'Not measured: bus.cost_sample_every is 0.' : 'No module has a command or handler.',
      { colspan: '5' }));
    rows.push(tr);
  }
  document.getElementById('costs').replaceChildren(...rows);
  document.getElementById('cost-hint').textContent = answer.sample_every === 0 ? ''
    : `CPU time and bytes allocated by each module's commands and handlers, measured on one call in `
      + `${answer.sample_every} (bus.cost_sample_every) or fewer for very short calls; rates and shares over the `
      + `last ${Math.round(answer.window_seconds)} s.`;
}

async function refreshModules() {
  try {
    renderModules(await json('/api/admin/modules'));
    renderCosts(await json('/api/admin/modules/cost'));
  } catch (e) {
    document.getElementById('modules-error').textContent = e.message;
  }
}

/** While the Modules view is shown, its costs are read again every 5 seconds. */
function watchCosts() {
  setInterval(async () => {
    if (document.getElementById('view-modules').hidden) {
      return;
    }
    try {
      renderCosts(await json('/api/admin/modules/cost'));
    } catch (e) {
      document.getElementById('modules-error').textContent = e.message;
    }
  }, 5000);
}

export function startModules() {
  document.getElementById('load-module').addEventListener('submit', (e) => {
    e.preventDefault();
    const jar = document.getElementById('load-jar').value;
    if (jar) {
      change('/api/admin/modules/load', { jar }, 'Loaded ' + jar);
    }
  });
  watchCosts();
  return refreshModules;
}

async function refreshErrors() {
  try {
    const answer = await json('/api/admin/errors');
    const rows = answer.errors.slice().reverse().map((e) => {
      const tr = el('tr', null, { class: e.level });
      tr.append(el('td', new Date(e.time_ms).toLocaleTimeString()), el('td', e.level), el('td', e.module),
        el('td', e.handler), el('td', e.message, { class: 'msg' }));
      return tr;
    });
    document.getElementById('errors').replaceChildren(...rows);
  } catch (e) {
    document.getElementById('errors').replaceChildren(el('tr', null).appendChild(el('td', e.message)).parentNode);
  }
}

const KINDS = { queued: 'waited in its lane', transcript: 'handing its record to the transcript', kv: 'KV',
  reply: 'reply', ask: 'waiting for the user', own: 'the command' };

/** One span of a trace: its label, a bar placed on the trace's time line, its duration. */
function spanRow(kind, name, start, duration, from, width) {
  const row = el('div', null, { class: 'span-row', 'data-kind': kind });
  const track = el('div', null, { class: 'track' });
  const bar = el('div', null, { class: 'seg ' + kind });
  bar.style.left = ((start - from) / width * 100).toFixed(2) + '%';
  bar.style.width = (duration / width * 100).toFixed(2) + '%';
  const label = kind === 'own' ? name : name ? `${KINDS[kind] || kind}: ${name}` : KINDS[kind] || kind;
  bar.title = `${label}, ${duration.toFixed(1)} ms from ${start.toFixed(1)} ms`;
  track.append(bar);
  row.append(el('span', label), track,
    el('span', duration.toFixed(1) + ' ms', { class: 'ms' }));
  return row;
}

/** A slow call as a time line: what it waited for before it, then the command, then each of its parts. */
function traceBox(t) {
  const box = el('section', null, { class: 'trace', 'data-trace': t.trace_id, 'data-command': t.command });
  const from = Math.min(0, ...t.spans.map((s) => s.start_ms));
  const to = Math.max(t.total_ms, ...t.spans.map((s) => s.start_ms + s.duration_ms));
  const width = Math.max(0.001, to - from);
  const head = el('h4', `/${t.command} `);
  head.append(el('span', `${t.module} · ${t.total_ms.toFixed(1)} ms, its own code ${t.own_ms.toFixed(1)} ms · `
    + `${t.outcome} · ${t.chat} · ${t.user} · ${new Date(t.started).toLocaleTimeString()} · trace ${t.trace_id}`));
  box.append(head);
  const before = t.spans.filter((s) => s.start_ms < 0);
  const within = t.spans.filter((s) => s.start_ms >= 0);
  for (const s of before) {
    box.append(spanRow(s.kind, s.name, s.start_ms, s.duration_ms, from, width));
  }
  box.append(spanRow('own', '/' + t.command, 0, t.total_ms, from, width));
  for (const s of within) {
    box.append(spanRow(s.kind, s.name, s.start_ms, s.duration_ms, from, width));
  }
  if (t.spans_dropped > 0) {
    box.append(el('p', `and ${t.spans_dropped} more parts`, { class: 'hint' }));
  }
  return box;
}

async function refreshSlow() {
  try {
    const answer = await json('/api/admin/slow');
    document.getElementById('slow-hint').textContent = answer.threshold_ms === 0
      ? 'Slow commands are not traced: bus.slow_handler_ms is 0.'
      : `The last 100 command calls that took ${answer.threshold_ms} ms or more (waits for a user's answer left out),`
        + ' newest first, each with what it waited for and what it did.';
    const boxes = answer.traces.map(traceBox);
    document.getElementById('slow').replaceChildren(...(boxes.length ? boxes
      : [el('p', 'None so far.', { class: 'status' })]));
  } catch (e) {
    document.getElementById('slow').replaceChildren(el('p', e.message, { class: 'error' }));
  }
}

export function startErrors() {
  let timer = null;
  return () => {
    refreshErrors();
    refreshSlow();
    if (!timer) {
      timer = setInterval(() => {
        if (!document.getElementById('view-errors').hidden) {
          refreshErrors();
          refreshSlow();
        }
      }, 2000);
    }
  };
}

function drawBench(rows) {
  const c = document.getElementById('c-bench');
  const withOps = rows.filter((r) => r.ops_per_sec > 0);
  c.height = Math.max(40, withOps.length * 16 + 8);
  const g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  const max = Math.log10(Math.max(10, ...withOps.map((r) => r.ops_per_sec)));
  g.font = '11px system-ui, sans-serif';
  withOps.forEach((r, i) => {
    const y = 4 + i * 16;
    const w = (Math.log10(Math.max(1, r.ops_per_sec)) / max) * (c.width - 300);
    g.fillStyle = '#59636e';
    g.fillText(r.name, 2, y + 11);
    g.fillStyle = '#1f6feb';
    g.fillRect(230, y + 2, w, 11);
    g.fillStyle = '#1f2328';
    g.fillText(format(r.ops_per_sec), 234 + w, y + 11);
  });
  c.dataset.points = String(withOps.length);
}

export function startBench() {
  return async () => {
    const status = document.getElementById('bench-status');
    try {
      const results = await json('/api/admin/bench');
      const rows = results.results || [];
      const meta = results.meta || {};
      status.textContent = results.missing || `${rows.length} rows` + (meta.commit ? ' from ' + meta.commit : '')
        + (meta.quick ? ' (quick run)' : '');
      document.getElementById('bench').replaceChildren(...rows.map((r) => {
        const tr = el('tr');
        const n = (v) => (v === null || v === undefined ? '' : format(v));
        tr.append(el('td', r.name), el('td', n(r.ops_per_sec)), el('td', n(r.p50_us)), el('td', n(r.p99_us)),
          el('td', n(r.alloc_bytes_per_op)), el('td', r.note || '', { class: 'msg' }));
        return tr;
      }));
      drawBench(rows);
    } catch (e) {
      status.textContent = e.message;
    }
  };
}
