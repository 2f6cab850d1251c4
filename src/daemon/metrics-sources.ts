/** Where the daemon's metrics read the governors, the mirror and the outbox when scraped. */
import { OutboxRepository } from '../store/outbox.js';
import { SyncStateRepository } from '../store/sync-state.js';
import type { MetricsSources } from './metrics.js';
import type { Engine } from './wiring.js';

/** The gauges' sources over a wired engine; `realtimeConnected` tells the channel's state. */
export function engineMetricsSources(
  engine: Engine,
  realtimeConnected: () => boolean,
): MetricsSources {
  const outbox = new OutboxRepository(engine.db);
  const syncState = new SyncStateRepository(engine.db);
  const ms = (at: string | null) => (at === null ? undefined : Date.parse(at));
  return {
    quota: () =>
      engine.tokens().map(({ label, budget }) => ({
        token: label,
        limit: budget.quotaLimit,
        remaining: budget.quotaRemaining,
      })),
    projectTimes: () =>
      syncState.list().map((row) => ({
        projectId: row.projectId,
        lastPassAt: ms(row.lastPassAt),
        lastChangeAt: ms(row.lastChangeAt),
      })),
    outboxDepth: () => outbox.summary(engine.clock.now()).counts,
    realtimeConnected,
  };
}
