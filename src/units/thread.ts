/**
 * The store on its own thread (a worker that owns the connection, `thread-entry.ts`): the main
 * thread sends units of work as messages and awaits their answers, so that no statement, lock
 * wait or transaction ever holds up its event loop. Units run in the order sent.
 */
import { Worker } from 'node:worker_threads';
import type { StoreHost } from './host.js';
import type { MirrorLocation } from '../store/open.js';
import { isPostgresUrl } from '../store/postgres/target.js';
import type { Store } from '../store/port.js';
import { portOver, receiveError, UnitTracker, type SentError, type UnitAnswer } from './units.js';

/** What the store thread tells the main thread. */
export type ThreadMessage = UnitAnswer | { ready: true } | { failed: SentError };

/** The thread's module: the compiled `.js`, or the `.ts` beside this file when run from source. */
function entryUrl(): URL {
  const source = import.meta.url.endsWith('.ts');
  return new URL(source ? './thread-entry.ts' : './thread-entry.js', import.meta.url);
}

/**
 * Opens the mirror at `location` for writing on a new store thread; resolves once it is open,
 * or rejects with the error that kept it from opening (a usage error for a file that is not a
 * mirror, say). `execArgv` runs the thread with other Node options (tests running sources).
 */
export function openStoreThread(
  location: MirrorLocation,
  options: { execArgv?: string[] } = {},
): Promise<Store> {
  // Set to 1 to abandon: the thread then fails every unit it has not begun, and ends.
  const stopping = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(entryUrl(), {
    workerData: { location, stopping },
    ...(options.execArgv ? { execArgv: options.execArgv } : {}),
  });
  const tracker = new UnitTracker(() => Date.now());
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  let gone: Error | undefined;
  return new Promise<Store>((resolve, reject) => {
    const fail = (error: Error) => {
      gone ??= error;
      for (const [id, unit] of waiting) {
        tracker.end(id, false);
        unit.reject(error);
      }
      waiting.clear();
      reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the store thread has ended')));
    worker.on('message', (message: ThreadMessage) => {
      if ('ready' in message) {
        resolve(store);
        return;
      }
      if ('failed' in message) {
        void worker.terminate();
        fail(receiveError(message.failed));
        return;
      }
      const unit = waiting.get(message.id);
      if (unit === undefined) return;
      waiting.delete(message.id);
      tracker.end(message.id, !('error' in message));
      if ('error' in message) unit.reject(receiveError(message.error));
      else unit.resolve(message.value);
    });
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
    const port = portOver<StoreHost>(ask);
    const store: Store = Object.assign(Object.create(port) as Store, {
      dialect: isPostgresUrl(location.db) ? ('postgres' as const) : ('sqlite' as const),
      progress: () => tracker.progress(),
      close: async ({ abandon = false }: { abandon?: boolean } = {}) => {
        if (gone) return;
        const ended = new Promise<void>((done) => worker.once('exit', () => done()));
        if (abandon) {
          // Not worker.terminate(): a thread ended inside SQLite takes the process down with it.
          Atomics.store(stopping, 0, 1);
          Atomics.notify(stopping, 0);
        }
        worker.postMessage({ close: true });
        await ended;
      },
    });
  });
}
