/**
 * The composition root: the mirror file, one request governor, one HTTP remote, the mirror engine
 * (whose writer is the one write path into the mirror) and the outbox pusher over them, wired
 * for a command (`sync`, `push`, `demo`) or the daemon (`run`). Nothing else constructs these
 * classes; observers (progress bars, metrics) subscribe to the wired engine afterwards.
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
import { answersInto, OutboxPusher, type OutboxPusherOptions } from '../outbox/index.js';
import { isoTime, type Db } from '../store/database.js';
import { openMirrorFile } from '../store/writable.js';
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
  /** The mirror: a path, opened (and closed) by the engine, or a connection the caller owns. */
  db: string | Db;
  logger: Logger;
  clock?: Clock;
  /** Passed to the governor: a command gives up on waits longer than this. */
  maxWaitMs?: number;
  governor?: Omit<GovernorOptions, 'clock' | 'restore' | 'maxWaitMs'>;
}

/** The settings of a pusher beyond what the engine gives it. */
export type PusherSettings = Partial<
  Pick<OutboxPusherOptions, 'idleIntervalMs' | 'maxRateLimitWaitMs' | 'itemRetryWindowMs'>
>;

/** The wired engine. `close()` persists the budget, ends the connections and closes an owned db. */
export interface Engine {
  db: Db;
  clock: Clock;
  governor: RequestGovernor;
  remote: HttpRemote;
  mirror: Mirror;
  /** Daemon bookkeeping kept across restarts (budget, plan, start-up). */
  state: DaemonStateRepository;
  /** An outbox pusher over the engine: its remote and clock, answers written by the mirror's writer. */
  pusher(settings?: PusherSettings): OutboxPusher;
  /** Calls `listener` after every task page a pass reads. */
  onProgress(listener: (progress: SyncProgress) => void): void;
  /** Calls `listener` after every response (or failure) of the service. */
  onResponse(listener: (metric: ResponseMetric) => void): void;
  /** Saves what the governor learned, so `status` and the next start know it. */
  persistBudget(): void;
  close(): Promise<void>;
}

/** Opens the mirror (when given a path) and wires governor, remote, mirror and pusher over it. */
export function wireEngine(settings: ServiceSettings, options: EngineOptions): Engine {
  const owned = typeof options.db === 'string';
  const db = typeof options.db === 'string' ? openMirrorFile(options.db) : options.db;
  try {
    return wire(settings, { ...options, db }, owned);
  } catch (error) {
    if (owned) db.close();
    throw error;
  }
}

function wire(settings: ServiceSettings, options: EngineOptions & { db: Db }, owned: boolean) {
  const { db, logger } = options;
  const clock = options.clock ?? systemClock;
  const state = new DaemonStateRepository(db);
  const restore = state.get<BudgetSnapshot>(STATE_KEYS.budget);
  const progress = new Set<(progress: SyncProgress) => void>();
  const responses = new Set<(metric: ResponseMetric) => void>();
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
    logger: logger.child({ subsystem: 'remote' }),
    ...(settings.caFile ? { caFile: settings.caFile } : {}),
    ...(settings.routes === undefined ? {} : { routes: parseRouteOverrides(settings.routes) }),
    onResponse: (metric) => responses.forEach((listener) => listener(metric)),
  });
  const mirror = new Mirror({
    db,
    remote,
    clock,
    logger: logger.child({ subsystem: 'mirror' }),
    onProgress: (event) => progress.forEach((listener) => listener(event)),
  });
  const persistBudget = () => {
    state.set(STATE_KEYS.budget, governor.snapshot(), isoTime(clock.now()));
  };
  const engine: Engine = {
    db,
    clock,
    governor,
    remote,
    mirror,
    state,
    pusher: (pusherSettings = {}) =>
      new OutboxPusher({
        db,
        remote,
        clock,
        logger: logger.child({ subsystem: 'outbox' }),
        applyResult: answersInto(mirror.writer),
        ...pusherSettings,
      }),
    onProgress: (listener) => progress.add(listener),
    onResponse: (listener) => responses.add(listener),
    persistBudget,
    close: async () => {
      if (db.open) persistBudget();
      await remote.close();
      if (owned && db.open) db.close();
    },
  };
  return engine;
}
