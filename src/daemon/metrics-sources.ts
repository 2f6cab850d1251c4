/** Where the daemon's metrics read the governors, the mirror and the outbox when scraped. */
import type { Store } from '../store/port.js';
import type { DiskState, MetricsSources, ProjectTimes } from './metrics.js';
import type { WalState } from './wal-watch.js';
import type { Engine } from './wiring.js';

/** How long a scrape waits for the store before it answers with the last values read. */
export const METRICS_STORE_WAIT_MS = 500;

/** The gauges' sources over a wired engine; `realtimeConnected` tells the channel's state. */
export function engineMetricsSources(
  engine: Engine,
  realtimeConnected: () => boolean,
  wal: () => WalState | undefined = () => undefined,
  disk: () => DiskState = () => ({ full: false, refusedTotal: 0 }),
): MetricsSources {
  const { store } = engine;
  const ms = (at: string | null) => (at === null ? undefined : Date.parse(at));
  const projectTimes = lastKnown<ProjectTimes[]>([], async () =>
    (await store.facts.projectTimes()).map((row) => ({
      projectId: row.projectId,
      lastPassAt: ms(row.lastPassAt),
      lastChangeAt: ms(row.lastChangeAt),
    })),
  );
  const outboxDepth = lastKnown<Record<string, number>>(
    {},
    async () => (await store.outbox.summary(engine.clock.now())).counts,
  );
  return {
    quota: () =>
      engine.tokens().map(({ label, budget }) => ({
        token: label,
        limit: budget.quotaLimit,
        remaining: budget.quotaRemaining,
      })),
    projectTimes,
    outboxDepth,
    realtimeConnected,
    storeQueue: () => storeQueue(store),
    wal,
    disk,
  };
}

/** The store's queue as the metrics show it. */
function storeQueue(store: Store): { depth: number; oldestAgeMs: number } {
  const { depth, oldestAskedAt } = store.progress();
  return { depth, oldestAgeMs: oldestAskedAt === undefined ? 0 : Date.now() - oldestAskedAt };
}

/**
 * `read`, or when the store has not answered within `METRICS_STORE_WAIT_MS` (a lock held, a
 * database away), the last value it gave: a scrape never waits on the database.
 */
function lastKnown<T>(initial: T, read: () => Promise<T>): () => Promise<T> {
  let last = initial;
  return () =>
    new Promise<T>((resolve) => {
      const timer = setTimeout(() => resolve(last), METRICS_STORE_WAIT_MS);
      read().then(
        (value) => {
          last = value;
          clearTimeout(timer);
          resolve(value);
        },
        () => {
          clearTimeout(timer);
          resolve(last);
        },
      );
    });
}
