// The chat view: a room's history, then its new messages by the chat API's long-poll; messages said
// here are posted to the same API. Every message is rendered as text (textContent), never as HTML.
import { ApiError, json, post, sleep, el } from './api.js';

const ROOM = /^[A-Za-z0-9._-]{1,64}$/;
const DEFAULT_ROOM = 'console';

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

async function loadRooms() {
  const select = document.getElementById('room');
  let names = [];
  try {
    names = (await json('/api/admin/rooms')).rooms;
  } catch (e) {
    status('Rooms not listed: ' + e.message);
  }
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
    try {
      const said = await post(`/api/rooms/${encodeURIComponent(room)}/messages`, { user, text });
      input.value = '';
      render(said);
      status('');
    } catch (err) {
      status(err instanceof ApiError ? `Not sent (${err.status}): ${err.message}` : 'Not sent: ' + err.message);
    }
  });
  const wanted = new URLSearchParams(location.search).get('room');
  if (wanted && ROOM.test(wanted)) {
    room = wanted;
  }
  loadRooms().then(() => open(room));
}
