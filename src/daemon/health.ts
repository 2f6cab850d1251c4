/** What `/healthz` answers: the daemon's health from its watches. */
import type { DiskWatch } from './disk-watch.js';
import type { HealthCheck } from './metrics.js';
import type { RealtimeStatus } from './realtime-status.js';
import type { StoreWatch } from './store-watch.js';
import type { TokenRefusalWatch } from './token-refusal.js';
import type { WalWatch } from './wal-watch.js';

/** The watches health is read from. */
export interface HealthSources {
  refusal: Pick<TokenRefusalWatch, 'refused' | 'refusedTokens'>;
  storeWatch: Pick<StoreWatch, 'health'>;
  walWatch: Pick<WalWatch, 'blocked'>;
  disk: Pick<DiskWatch, 'full'>;
  realtime: Pick<RealtimeStatus, 'connected'>;
  /** False when no realtime channel is configured: its absence is then no fault. */
  realtimeConfigured: boolean;
}

/**
 * Unhealthy at once when every token is refused, while configured realtime is down, while the
 * disk is full, and while the database has completed no unit of work for longer than its bound.
 * A reader blocking checkpoints degrades health but keeps it 200: the mirror is current.
 */
export function daemonHealth(sources: HealthSources): HealthCheck {
  const { refusal, storeWatch, walWatch, disk, realtime } = sources;
  return () => {
    const store = storeWatch.health();
    const wal = walWatch.blocked();
    return {
      ok:
        !refusal.refused &&
        store.ok &&
        !disk.full &&
        (!sources.realtimeConfigured || realtime.connected),
      detail: {
        realtime: realtime.connected,
        database: store.ok ? 'ok' : store.reason,
        wal: wal ?? 'ok',
        disk: disk.full ? 'full' : 'ok',
        tokenRefused: refusal.refused,
        tokensRefused: refusal.refusedTokens(),
      },
    };
  };
}
