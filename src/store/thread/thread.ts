/**
 * The store on its own thread (a worker that owns the connection, `thread-entry.ts`): the main
 * thread sends units of work as messages and awaits their answers, so that no statement, lock
 * wait or transaction ever holds up its event loop. Units run in the order sent. A PostgreSQL
 * mirror's leases live on that thread too; the main thread holds a copy of what they hold
 * (`LeaseCopy`, read through the one `LeaseView`), refreshed after every heartbeat, and before each unit's answer and each
 * notice of projects a heartbeat took, so that the main thread never acts on an older copy.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Leases } from '../../domain/index.js';
import type { MirrorLocation } from '../open.js';
import type { Store } from '../port.js';
import { isPostgresUrl } from '../postgres/target.js';
import { LeaseCopy, LeaseView, type LeaseSnapshot } from './leases.js';
import { storeOver } from './store-face.js';
import { receiveError, UnitTracker, type SentError, type UnitAnswer } from './units.js';

/** What the store thread tells the main thread. */
export type ThreadMessage =
  | UnitAnswer
  | { ready: true; holder?: string; leases?: LeaseSnapshot }
  | { failed: SentError }
  | { leases: LeaseSnapshot }
  | { acquired: string[] }
  | { log: string };

/** A daemon's settings for its leases on a shared PostgreSQL mirror. */
export interface LeaseSettings {
  tokens: readonly string[];
  version: string;
  leaseMs?: number;
}

/** What the thread is started with. */
export interface StoreThreadData {
  location: MirrorLocation;
  /** The leases to keep, on a PostgreSQL mirror. */
  leases?: LeaseSettings | undefined;
  /** How long a unit is tried again while another connection holds SQLite's lock, in ms. */
  busyWaitMs?: number | undefined;
  logLevel: string;
}

/**
 * The store thread's young generation, in MiB (V8 sizes it itself otherwise). A unit's objects
 * (a page's rows as they arrive, its statements' answers) live briefly; left to itself V8 grew
 * the space to 43 MiB of heap by the end of a cold sync of 1,000,000 tasks, against 19 MiB with
 * this bound, for the same CPU (benchmark 5). Only the old generation is left unbounded: a
 * bound there could fail a unit that needs more, this one only collects sooner.
 */
export const STORE_THREAD_YOUNG_GENERATION_MIB = 8;

/** The thread's module: the compiled `.js`, or the `.ts` beside this file when run from source. */
function entryUrl(): URL {
  const source = import.meta.url.endsWith('.ts');
  return new URL(source ? './thread-entry.ts' : './thread-entry.js', import.meta.url);
}

/** A store thread, opened. */
export interface StoreThread {
  store: Store;
  /** The leases, on a PostgreSQL mirror opened with lease settings. */
  leases: Leases | undefined;
}

/**
 * Opens the mirror at `location` for writing on a new store thread; resolves once it is open,
 * or rejects with the error that kept it from opening (a usage error for a file that is not a
 * mirror, say). `execArgv` runs the thread with other Node options (tests running sources).
 */
export function openStoreThread(
  location: MirrorLocation,
  options: { execArgv?: string[]; leases?: LeaseSettings; busyWaitMs?: number; logger: Logger },
): Promise<StoreThread> {
  const data: StoreThreadData = {
    location,
    leases: isPostgresUrl(location.db) ? options.leases : undefined,
    busyWaitMs: options.busyWaitMs,
    logLevel: options.logger.level,
  };
  const worker = new Worker(entryUrl(), {
    workerData: data,
    resourceLimits: { maxYoungGenerationSizeMb: STORE_THREAD_YOUNG_GENERATION_MIB },
    ...(options.execArgv ? { execArgv: options.execArgv } : {}),
  });
  const tracker = new UnitTracker(() => Date.now());
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  let gone: Error | undefined;
  const ask = (group: string, method: string, args: unknown[]) =>
    new Promise<unknown>((resolveUnit, rejectUnit) => {
      if (gone) {
        rejectUnit(gone);
        return;
      }
      const id = next++;
      tracker.begin(id);
      waiting.set(id, { resolve: resolveUnit, reject: rejectUnit });
      worker.postMessage({ id, group, method, args });
    });
  const { store, port } = storeOver(ask, {
    progress: () => tracker.progress(),
    close: async ({ abandon = false }: { abandon?: boolean } = {}) => {
      if (gone) return;
      const ended = new Promise<void>((done) => worker.once('exit', () => done()));
      // Not worker.terminate(): a thread ended inside SQLite takes the process down with it.
      worker.postMessage({ close: true, abandon });
      await ended;
    },
  });
  const logger = options.logger.child({ subsystem: 'leases' });
  let leases: { view: LeaseView; copy: LeaseCopy } | undefined;
  return new Promise<StoreThread>((resolve, reject) => {
    const fail = (error: Error) => {
      gone ??= error;
      for (const [id, unit] of waiting) {
        tracker.end(id);
        unit.reject(error);
      }
      waiting.clear();
      reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the store thread has ended')));
    worker.on('message', (message: ThreadMessage) => {
      if ('id' in message) {
        const unit = waiting.get(message.id);
        if (unit === undefined) return;
        waiting.delete(message.id);
        tracker.end(message.id);
        if ('error' in message) unit.reject(receiveError(message.error));
        else unit.resolve(message.value);
      } else if ('ready' in message) {
        if (message.holder !== undefined && message.leases !== undefined) {
          const copy = new LeaseCopy(message.leases);
          leases = { view: new LeaseView(message.holder, copy, port.leases), copy };
        }
        resolve({ store, leases: leases?.view });
      } else if ('failed' in message) {
        fail(receiveError(message.failed));
      } else if ('leases' in message) {
        leases?.copy.update(message.leases);
        leases?.view.renewed();
      } else if ('acquired' in message) {
        leases?.view.acquired(message.acquired);
      } else {
        relayLog(logger, message.log);
      }
    });
  });
}

/** A log line the thread wrote, written by the main thread's logger (its format, its level). */
function relayLog(logger: Logger, line: string): void {
  const { level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
  const name = logger.levels.labels[Number(level)] ?? 'info';
  (logger[name as 'info'] as (obj: object, msg?: string) => void).call(
    logger,
    fields,
    typeof msg === 'string' ? msg : undefined,
  );
}
