/**
 * The composition root: one request governor, one HTTP remote and one mirror engine over one
 * database, wired for a command or the daemon. Nothing else constructs these classes.
 */
import type { Logger } from 'pino';
import { RequestGovernor, type BudgetSnapshot, type GovernorOptions } from '../budget/index.js';
import { systemClock, type Clock } from '../domain/index.js';
import { Mirror, type SyncProgress } from '../mirror/index.js';
import {
  createHttpRemote,
  parseRouteOverrides,
  type HttpRemote,
  type ResponseMetric,
} from '../remote/index.js';
import { outboxChanges, OutboxPusher, type OutboxPusherOptions } from '../outbox/index.js';
import { isoTime, type Db } from '../store/database.js';
import { DaemonStateRepository, STATE_KEYS } from '../store/daemon-state.js';

/** How to reach the service, already checked by the CLI. */
export interface ServiceSettings {
  baseUrl: URL;
  token: string;
  caFile?: string | undefined;
  /** Route overrides from the config file. */
  routes?: unknown;
}

/** What a command adds to the settings when wiring the engine. */
export interface EngineOptions {
  db: Db;
  logger: Logger;
  clock?: Clock;
  /** Passed to the governor: a command gives up on waits longer than this. */
  maxWaitMs?: number;
  governor?: Omit<GovernorOptions, 'clock' | 'restore' | 'maxWaitMs'>;
  onProgress?: (progress: SyncProgress) => void;
  onResponse?: (metric: ResponseMetric) => void;
}

/** The wired engine. `close()` persists the budget and ends the connections (not the db). */
export interface Engine {
  clock: Clock;
  governor: RequestGovernor;
  remote: HttpRemote;
  mirror: Mirror;
  /** Saves what the governor learned, so `status` and the next start know it. */
  persistBudget(): void;
  close(): Promise<void>;
}

/** Wires governor, remote and mirror for `settings` over `options.db`. */
export function wireEngine(settings: ServiceSettings, options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const state = new DaemonStateRepository(options.db);
  const restore = state.get<BudgetSnapshot>(STATE_KEYS.budget);
  const governor = new RequestGovernor({
    ...options.governor,
    clock,
    ...(restore ? { restore } : {}),
    ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
  });
  const remote = createHttpRemote({
    baseUrl: settings.baseUrl,
    token: settings.token,
    gate: governor,
    clock,
    logger: options.logger.child({ subsystem: 'remote' }),
    ...(settings.caFile ? { caFile: settings.caFile } : {}),
    ...(settings.routes === undefined ? {} : { routes: parseRouteOverrides(settings.routes) }),
    ...(options.onResponse ? { onResponse: options.onResponse } : {}),
  });
  const mirror = new Mirror({
    db: options.db,
    remote,
    clock,
    logger: options.logger.child({ subsystem: 'mirror' }),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const persistBudget = () => {
    state.set(STATE_KEYS.budget, governor.snapshot(), isoTime(clock.now()));
  };
  return {
    clock,
    governor,
    remote,
    mirror,
    persistBudget,
    close: async () => {
      if (options.db.open) persistBudget();
      await remote.close();
    },
  };
}

/** An outbox pusher over the engine: its remote, its clock, and writes through its mirror (so a pass in flight sees them). */
export function createPusher(
  engine: Engine,
  db: Db,
  logger: Logger,
  options: Partial<
    Pick<OutboxPusherOptions, 'idleIntervalMs' | 'maxRateLimitWaitMs' | 'itemRetryWindowMs'>
  > = {},
): OutboxPusher {
  return new OutboxPusher({
    db,
    remote: engine.remote,
    clock: engine.clock,
    logger: logger.child({ subsystem: 'outbox' }),
    applyResult: (_db, item, response) => {
      engine.mirror.writer.applyConfirmed(item.projectId, outboxChanges(item, response), item.op);
    },
    ...options,
  });
}
