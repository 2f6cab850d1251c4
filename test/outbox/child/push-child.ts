/**
 * One push pass in a child process, wired from the real pieces (HTTP remote, request governor,
 * outbox pusher), for the kill test: `push-child.ts DB_FILE BASE_URL` with the token in
 * PROJMIRROR_TOKEN. Prints the pass's report as one JSON line; exits 0 when nothing is pending.
 */
import pino from 'pino';
import { RequestGovernor } from '../../../src/budget/index.js';
import { systemClock } from '../../../src/domain/index.js';
import { OutboxPusher } from '../../../src/outbox/index.js';
import { createHttpRemote } from '../../../src/remote/index.js';
import { openDatabase } from '../../../src/store/database.js';

const [dbFile = '', baseUrl = ''] = process.argv.slice(2);
const logger = pino({ level: 'silent' });
const db = openDatabase(dbFile);
const remote = createHttpRemote({
  baseUrl,
  token: process.env['PROJMIRROR_TOKEN'] ?? '',
  gate: new RequestGovernor({ clock: systemClock }),
  clock: systemClock,
  logger,
});
const pusher = new OutboxPusher({ db, remote, clock: systemClock, logger });
const report = await pusher.pushOnce({ ignoreBackoff: true });
process.stdout.write(`${JSON.stringify(report)}\n`);
await remote.close();
db.close();
process.exitCode = report.pending === 0 ? 0 : 1;
