// Starts telegram-test-api (found through NODE_PATH) on 127.0.0.1:<port> and says so on stdout.
// Run by TelegramEmulator; stops when its parent closes stdin.
const TelegramServer = require('telegram-test-api');
const port = Number(process.argv[2]);
const server = new TelegramServer({ port, host: '127.0.0.1', storeTimeout: 600 });
server.start().then(() => console.log(`listening ${server.config.apiURL}`));
process.stdin.on('end', () => server.stop().then(() => process.exit(0)));
process.stdin.resume();
