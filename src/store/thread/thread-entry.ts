/**
 * The store thread: opens the mirror named in `workerData`, owns that connection, and runs the
 * units of work the main thread sends, one at a time, answering each. Its waits (a lock another
 * connection holds, a slow disk, a PostgreSQL server that does not answer) are its own: the main
 * thread goes on answering health checks, signals and the realtime channel. A PostgreSQL
 * mirror's leases live here too, beside the connection that fences them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import pino, { type Logger } from 'pino';
import { StoreError, systemClock } from '../../domain/index.js';
import type { MirrorHandle } from '../handle.js';
import { Coordination } from '../postgres/coordination.js';
import { LeaseKeeper } from './leases.js';
import { createHost } from './host.js';
import { openMirror } from '../open.js';
import { SerialQueue } from './queue.js';
import { runUnit, sendError, type UnitAnswer, type UnitHost, type UnitRequest } from './units.js';
import type { StoreThreadData, ThreadMessage } from './thread.js';

if (parentPort === null) throw new Error('the store thread runs as a worker');
const port = parentPort;
const post = (message: ThreadMessage) => port.postMessage(message);

/** How long a unit is tried again while another connection holds the lock (SQLite's wait). */
const DEFAULT_BUSY_WAIT_MS = 5_000;
/** The lock wait of one statement: short, so that the thread is never long inside SQLite. */
const STATEMENT_BUSY_MS = 100;
/** The pause between tries of a unit that met a held lock. */
const BUSY_STEP_MS = 50;
const { location, leases, logLevel, busyWaitMs } = workerData as StoreThreadData;
/** This thread's patience with a held lock: `busyWaitMs` when given (tests shorten it). */
const BUSY_WAIT_MS = busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
/**
 * The main thread abandoned the store (SIGTERM): every unit not begun fails, a lock is no longer
 * waited for, and the thread ends without waiting for the unit in hand.
 */
let abandoned = false;

/**
 * Runs a unit, trying it again while the database is locked by another connection, for up to
 * `BUSY_WAIT_MS` in all. A unit that met the lock did nothing (its transaction never began, or
 * rolled back), so trying it again is safe; between tries the thread is out of SQLite, and an
 * abandon (SIGTERM) ends the wait at the next try.
 */
async function runPatiently(host: UnitHost, request: UnitRequest): Promise<unknown> {
  const started = Date.now();
  for (;;) {
    if (abandoned) throw new StoreError('the store is closing');
    try {
      return await runUnit(host, request.group, request.method, request.args);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const busy = typeof code === 'string' && code.startsWith('SQLITE_BUSY');
      if (!busy || Date.now() - started >= BUSY_WAIT_MS) throw error;
      await sleep(BUSY_STEP_MS);
    }
  }
}

/** Log lines of the thread (the leases'), handed to the main thread's logger. */
function threadLogger(): Logger {
  return pino(
    { level: logLevel, base: undefined },
    { write: (line: string) => post({ log: line }) },
  );
}

/** The leases of a PostgreSQL mirror, once started (`startLeases`). */
let keeper: LeaseKeeper | undefined;
let toldLeases = '';

/** Tells the main thread what the leases hold, when that changed since it was last told. */
function postLeases(): void {
  if (keeper === undefined) return;
  const snapshot = keeper.snapshot();
  const text = JSON.stringify(snapshot);
  if (text === toldLeases) return;
  toldLeases = text;
  post({ leases: snapshot });
}

/**
 * Tells the main thread something it acts on at once (a unit's answer, projects taken), after
 * what the leases hold now: it asks its copy whose a project is as it goes on (a listing's
 * projects passed, a claim's items pushed, a project taken passed), and a pass of a project its
 * copy does not show held is skipped as held elsewhere. A message that cannot be copied to the
 * main thread (a unit's answer) fails that unit alone.
 */
function tell(message: UnitAnswer | { acquired: string[] }): void {
  postLeases();
  try {
    post(message);
  } catch (error) {
    if (!('id' in message)) throw error;
    post({ id: message.id, error: sendError(error) });
  }
}

/**
 * The leases of a PostgreSQL mirror, told to the main thread after each heartbeat, and before a
 * unit's answer and the projects a heartbeat took (`tell`).
 */
async function startLeases(mirror: MirrorHandle, queue: SerialQueue): Promise<void> {
  if (leases === undefined) return;
  keeper = await LeaseKeeper.start({
    coordination: new Coordination(mirror),
    ...leases,
    logger: threadLogger(),
    serially: (work) => queue.run(work),
  });
  keeper.onHeartbeat(postLeases);
  keeper.onAcquired((projectIds) => tell({ acquired: projectIds }));
}

/**
 * Closes the connection and ends the thread: once the units asked are done, or at once when the
 * main thread abandons the store (a unit in hand is left to the database to roll back; a
 * PostgreSQL statement waiting on a stalled network is not waited for).
 */
async function close(db: MirrorHandle, queue: SerialQueue): Promise<void> {
  if (!abandoned) await queue.drained();
  if (db.open) db.close();
  port.close();
  // A socket PostgreSQL never answers would keep the thread alive.
  process.exit(0);
}

async function main(): Promise<void> {
  const queue = new SerialQueue();
  // The patience, when set, bounds a PostgreSQL session's wait for a lock too.
  const db = await openMirror(location, 'write', {
    busyTimeoutMs: STATEMENT_BUSY_MS,
    lockTimeoutMs: busyWaitMs,
  });
  await startLeases(db, queue);
  const host = createHost(db, systemClock, keeper);
  port.on('message', (message: UnitRequest | { close: true; abandon: boolean }) => {
    if ('close' in message) {
      abandoned ||= message.abandon;
      void close(db, queue);
      return;
    }
    void queue.run(async () => {
      let answer: UnitAnswer;
      try {
        answer = { id: message.id, value: await runPatiently(host as UnitHost, message) };
      } catch (error) {
        answer = { id: message.id, error: sendError(error) };
      }
      tell(answer);
    });
  });
  if (keeper === undefined) return post({ ready: true });
  const held = keeper.snapshot();
  toldLeases = JSON.stringify(held);
  post({ ready: true, holder: keeper.holder, leases: held });
}

main().catch((error: unknown) => post({ failed: sendError(error) }));
