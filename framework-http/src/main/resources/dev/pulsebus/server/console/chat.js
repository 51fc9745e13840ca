// The chat view: a room's history, then its new messages by the chat API's long-poll; messages said
// here are posted to the same API. Every message is rendered as text (textContent), never as HTML.
import { ApiError, json, post, sleep, el } from './api.js';

const ROOM = /^[A-Za-z0-9._-]{1,64}$/;
const DEFAULT_ROOM = 'console';
const LAST_ROOM = 'pulsebus.room'; // localStorage: the room this browser used last

/** The room last used in this browser, or null. */
function lastRoom() {
  try {
    const name = localStorage.getItem(LAST_ROOM);
    return name && ROOM.test(name) ? name : null;
  } catch (e) {
    return null; // storage refused (a privacy setting): start as if new
  }
}

function remember(name) {
  try {
    localStorage.setItem(LAST_ROOM, name);
  } catch (e) {
    // not kept: the next visit opens the most active room
  }
}

let room = DEFAULT_ROOM;
let lastSeq = 0;
let poll = null; // the AbortController of the running poll loop
const seen = new Set();

const log = () => document.getElementById('log');
const status = (text) => { document.getElementById('chat-status').textContent = text; };

function render(m) {
  if (m.room !== room || seen.has(m.seq)) {
    return;
  }
  seen.add(m.seq);
  lastSeq = Math.max(lastSeq, m.seq);
  const item = el('li', null, { class: 'message' + (m.user === 'bot' ? ' bot' : ''), 'data-user': m.user,
    'data-seq': String(m.seq) });
  item.append(el('span', m.user, { class: 'user' }), el('span', m.text, { class: 'text' }),
    el('time', new Date(m.time).toLocaleTimeString(), { datetime: m.time }));
  const list = log();
  let before = null; // in seq order, even when a poll and a say's answer cross
  for (const other of list.children) {
    if (Number(other.dataset.seq) > m.seq) {
      before = other;
      break;
    }
  }
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.insertBefore(item, before);
  if (atEnd) {
    list.scrollTop = list.scrollHeight;
  }
}

async function open(name) {
  if (poll) {
    poll.abort();
  }
  room = name;
  remember(name);
  lastSeq = 0;
  seen.clear();
  log().replaceChildren();
  const controller = new AbortController();
  poll = controller;
  try {
    const history = await json(`/api/rooms/${encodeURIComponent(room)}/messages?limit=100`,
      { signal: controller.signal });
    history.messages.forEach(render);
    status('');
  } catch (e) {
    if (controller.signal.aborted) {
      return;
    }
    status('Cannot read the room: ' + e.message);
  }
  follow(controller);
}

/** Long-polls the room until the controller is aborted (another room opened). */
async function follow(controller) {
  while (!controller.signal.aborted) {
    try {
      const r = room;
      const answer = await json(`/api/rooms/${encodeURIComponent(r)}/poll?after=${lastSeq}&timeout_ms=25000`,
        { signal: controller.signal });
      if (answer && !controller.signal.aborted) {
        answer.messages.forEach(render);
      }
    } catch (e) {
      if (controller.signal.aborted) {
        return;
      }
      status('Reconnecting: ' + e.message);
      await sleep(1000);
    }
  }
}

/**
 * Lists the rooms (most recently active first) and picks the one to open: {@code wanted} (?room= or the
 * last one used here), else the most recently active, else {@link DEFAULT_ROOM}.
 */
async function loadRooms(wanted) {
  const select = document.getElementById('room');
  let names = [];
  try {
    names = (await json('/api/admin/rooms')).rooms;
  } catch (e) {
    status('Rooms not listed: ' + e.message);
  }
  room = wanted || names[0] || DEFAULT_ROOM;
  if (!names.includes(room)) {
    names = [room, ...names];
  }
  select.replaceChildren(...names.map((n) => el('option', n, { value: n })));
  select.value = room;
}

function addRoom(name) {
  const select = document.getElementById('room');
  if (![...select.options].some((o) => o.value === name)) {
    select.prepend(el('option', name, { value: name }));
  }
  select.value = name;
}

export function startChat() {
  document.getElementById('room').addEventListener('change', (e) => open(e.target.value));
  document.getElementById('new-room').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = document.getElementById('new-room-name');
    const name = input.value.trim();
    if (!ROOM.test(name)) {
      status('A room name is 1 to 64 of A-Z a-z 0-9 . _ -');
      return;
    }
    input.value = '';
    addRoom(name);
    open(name);
  });
  document.getElementById('say').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = document.getElementById('message');
    const text = input.value;
    if (!text.trim()) {
      return;
    }
    const user = document.getElementById('user').value.trim() || 'you';
    // Cleared now, not when the answer comes: by then the next message may be half typed.
    input.value = '';
    try {
      render(await post(`/api/rooms/${encodeURIComponent(room)}/messages`, { user, text }));
      status('');
    } catch (err) {
      if (!input.value) {
        input.value = text; // not sent: given back to send again, unless something new was typed
      }
      status(err instanceof ApiError ? `Not sent (${err.status}): ${err.message}` : 'Not sent: ' + err.message);
    }
  });
  const asked = new URLSearchParams(location.search).get('room');
  loadRooms(asked && ROOM.test(asked) ? asked : lastRoom()).then(() => open(room));
}
