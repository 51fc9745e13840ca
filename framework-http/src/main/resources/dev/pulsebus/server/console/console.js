// The console's entry point: view switching, then each view starts its own updates.
import { startChat } from './chat.js';
import { startLive } from './live.js';
import { startModules, startErrors, startBench } from './admin.js';
import { startProfile } from './profile.js';

const shown = new Set(['chat']);
const onShow = {};

function show(view) {
  for (const button of document.querySelectorAll('nav button')) {
    button.setAttribute('aria-pressed', String(button.dataset.view === view));
  }
  for (const section of document.querySelectorAll('.view')) {
    section.hidden = section.id !== 'view-' + view;
  }
  shown.add(view);
  if (onShow[view]) {
    onShow[view]();
  }
}

for (const button of document.querySelectorAll('nav button')) {
  button.addEventListener('click', () => show(button.dataset.view));
}

startChat();
startLive();
onShow.modules = startModules();
onShow.profile = startProfile();
onShow.errors = startErrors();
onShow.bench = startBench();
