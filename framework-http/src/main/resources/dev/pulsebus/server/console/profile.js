// The profile view: starts a recording of the running server (POST /api/admin/profile), follows it while it
// records and draws, then frames its flame graph (sandboxed: the graph's script runs in an origin of its own)
// and links its recording and collapsed stacks. The files' addresses carry the profile's own key, so the
// frame and the links need no token.
import { json, post } from './api.js';

const MODES = { cpu: 'CPU', alloc: 'allocation', wall: 'wall' };
let following = false;
let asked = 0; // requests for the profile's state made
let drawn = 0; // the newest of them whose answer was drawn

function text(id, value) {
  document.getElementById(id).textContent = value;
}

function render(p) {
  const progress = document.getElementById('profile-progress');
  const busy = p.state === 'recording' || p.state === 'drawing';
  document.getElementById('profile-start').disabled = busy;
  progress.hidden = !busy;
  progress.max = p.seconds || 1;
  progress.value = p.elapsed_seconds || 0;
  if (p.state === 'none') {
    text('profile-status', 'No profile yet.');
  } else if (p.state === 'recording') {
    text('profile-status', `Recording ${MODES[p.mode]}: ${p.elapsed_seconds.toFixed(1)} of ${p.seconds} s…`);
  } else if (p.state === 'drawing') {
    text('profile-status', 'Drawing the flame graph…');
  } else if (p.state === 'failed') {
    text('profile-status', '');
    text('profile-error', 'The profile failed: ' + p.error);
  } else {
    const events = p.events === 1 ? '1 event' : `${p.events} events`;
    text('profile-status', `${MODES[p.mode]} profile of ${p.seconds} s (${p.started}): ${events}, `
      + `${p.module_stacks} of them in a module's code.`);
  }
  const done = p.state === 'done';
  const graph = document.getElementById('profile-graph');
  document.getElementById('profile-files').hidden = !done;
  graph.hidden = !done;
  if (done) {
    document.getElementById('profile-download').href = p.recording;
    document.getElementById('profile-stacks').href = p.stacks;
    document.getElementById('profile-open').href = p.flame_graph;
    // the graph measures its canvas once, as it loads: it is loaded where it is laid out, not while its view is
    // hidden (a profile that ends while another view is shown is loaded when this one is shown again)
    if (graph.getAttribute('src') !== p.flame_graph && graph.getClientRects().length > 0) {
      graph.setAttribute('src', p.flame_graph);
    }
  }
  return busy;
}

/**
 * Asks for the profile's state and returns it, or null when the answer is older than one already drawn: a slow
 * answer saying "drawing" must not hide the graph that a later answer showed.
 */
async function latest(request) {
  const n = ++asked;
  const p = await request();
  if (n < drawn) {
    return null;
  }
  drawn = n;
  return p;
}

/** Reads the profile's state twice a second while it is recorded or drawn, one request at a time. */
function follow() {
  if (following) {
    return;
  }
  following = true;
  const tick = async () => {
    let busy = true;
    try {
      const p = await latest(() => json('/api/admin/profile'));
      busy = p === null || render(p);
    } catch (e) {
      text('profile-error', e.message);
    }
    if (busy) {
      setTimeout(tick, 500);
    } else {
      following = false;
    }
  };
  setTimeout(tick, 500);
}

async function refresh() {
  try {
    const p = await latest(() => json('/api/admin/profile'));
    if (p !== null && render(p)) {
      follow();
    }
  } catch (e) {
    text('profile-error', e.message);
  }
}

export function startProfile() {
  document.getElementById('profile-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    text('profile-error', '');
    const mode = document.getElementById('profile-mode').value;
    const seconds = Number(document.getElementById('profile-seconds').value);
    try {
      const p = await latest(() => post('/api/admin/profile', { mode, seconds }));
      if (p !== null) {
        render(p);
      }
      follow();
    } catch (err) {
      text('profile-error', err.message);
    }
  });
  return refresh;
}
