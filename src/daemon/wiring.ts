/**
 * The composition root: the mirror file, per token a request governor and an HTTP remote (every
 * governor sharing one per-IP window), the routed remote over them, the mirror engine (whose
 * writer is the one write path into the mirror) and the outbox pusher, wired for a command
 * (`sync`, `push`, `demo`) or the daemon (`run`). Nothing else constructs these classes;
 * observers (progress bars, metrics) subscribe to the wired engine afterwards.
 */
import type { Logger } from 'pino';
import {
  DEFAULT_IP_LIMIT,
  DEFAULT_IP_WINDOW_MS,
  DEFAULT_WINDOW_SLACK_MS,
  RequestGovernor,
  RollingWindow,
  type BudgetSnapshot,
  type GovernorOptions,
} from '../budget/index.js';
import { SOLE_OWNER, systemClock, type Clock, type ProjectClaims } from '../domain/index.js';
import { Mirror, type SyncProgress } from '../mirror/index.js';
import { createHttpRemote, parseRouteOverrides, type ResponseMetric } from '../remote/index.js';
import { answersInto, OutboxPusher, type OutboxPusherOptions } from '../outbox/index.js';
import { isoTime, type Db } from '../store/database.js';
import { dialectOf } from '../store/db.js';
import { openMirror } from '../store/open.js';
import { LeaseKeeper } from './leases.js';
import { budgetKey, DaemonStateRepository, STATE_KEYS } from '../store/daemon-state.js';
import {
  checkTokenSet,
  FAILOVER_WAIT_MS,
  RoutedRemote,
  type RoutingState,
  type TokenCredential,
  type TokenRoute,
  type TokenView,
} from '../tokens/index.js';

/** How to reach the service, already checked by the CLI. */
export interface ServiceSettings {
  baseUrl: URL;
  /** One or more tokens, each with its label. */
  tokens: readonly TokenCredential[];
  caFile?: string | undefined;
  /** Route overrides from the config file. */
  routes?: unknown;
}

/** What a command adds to the settings when wiring the engine. */
export interface EngineOptions {
  /**
   * The mirror: a file path or `postgres://` URL, opened (and closed) by the engine, or a
   * connection the caller owns.
   */
  db: string | Db;
  /** The PostgreSQL password's file, for a `postgres://` `db`. */
  dbPasswordFile?: string | undefined;
  /** On a PostgreSQL mirror, how long a project's lease lasts unless renewed, in ms. */
  leaseMs?: number;
  /** This installation's version, which other daemons sharing the mirror see in `status`. */
  version?: string;
  logger: Logger;
  clock?: Clock;
  /** Passed to the governors: a command gives up on waits longer than this. */
  maxWaitMs?: number;
  /** Options of every token's governor (each token gets its own, sharing the per-IP window). */
  governor?: Omit<GovernorOptions, 'clock' | 'restore' | 'maxWaitMs' | 'ipWindow'>;
}

/** The settings of a pusher beyond what the engine gives it. */
export type PusherSettings = Partial<
  Pick<OutboxPusherOptions, 'idleIntervalMs' | 'maxRateLimitWaitMs' | 'itemRetryWindowMs'>
>;

/** The wired engine. `close()` persists the budget, ends the connections and closes an owned db. */
export interface Engine {
  db: Db;
  clock: Clock;
  /** The service through every token. */
  remote: RoutedRemote;
  mirror: Mirror;
  /** Daemon bookkeeping kept across restarts (budget, plan, start-up). */
  state: DaemonStateRepository;
  /** The projects this process mirrors and pushes: all, or its leases on a shared PostgreSQL mirror. */
  claims: ProjectClaims;
  /** The leases, on a PostgreSQL mirror; undefined on a SQLite file. */
  leases: LeaseKeeper | undefined;
  /** An outbox pusher over the engine: its remote and clock, answers written by the mirror's writer. */
  pusher(settings?: PusherSettings): OutboxPusher;
  /** Calls `listener` after every task page a pass reads. */
  onProgress(listener: (progress: SyncProgress) => void): void;
  /** Calls `listener` after every response (or failure) of the service, with its token's label. */
  onResponse(listener: (metric: ResponseMetric) => void): void;
  /** Every token: its budget, the projects it reads, whether the service refuses it. */
  tokens(): TokenView[];
  /** Requests left today over every token whose quota is known; undefined when none is. */
  quotaRemaining(): number | undefined;
  /** Saves what the governors learned and the routing, so `status` and the next start know it. */
  persistBudget(): void;
  close(): Promise<void>;
}

/** Opens the mirror (when given a path) and wires governor, remote, mirror and pusher over it. */
export function wireEngine(settings: ServiceSettings, options: EngineOptions): Engine {
  const owned = typeof options.db === 'string';
  const db =
    typeof options.db === 'string'
      ? openMirror({ db: options.db, passwordFile: options.dbPasswordFile }, 'write')
      : options.db;
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
  const progress = new Set<(progress: SyncProgress) => void>();
  const responses = new Set<(metric: ResponseMetric) => void>();
  const routes = tokenRoutes(settings, options, clock, state, (metric) =>
    responses.forEach((listener) => listener(metric)),
  );
  const remote = new RoutedRemote({
    routes,
    clock,
    logger: logger.child({ subsystem: 'tokens' }),
    restore: state.get<RoutingState>(STATE_KEYS.routing),
  });
  const leases =
    dialectOf(db) === 'postgres'
      ? new LeaseKeeper({
          db,
          tokens: settings.tokens.map((token) => token.label),
          version: options.version ?? 'unknown',
          logger: logger.child({ subsystem: 'leases' }),
          ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
        })
      : undefined;
  const claims = leases ?? SOLE_OWNER;
  const mirror = new Mirror({
    db,
    claims,
    remote,
    clock,
    logger: logger.child({ subsystem: 'mirror' }),
    laneOf: (projectId) => remote.tokenOf(projectId) ?? '',
    onProgress: (event) => progress.forEach((listener) => listener(event)),
  });
  const persistBudget = () => {
    const at = isoTime(clock.now());
    for (const route of routes) state.set(budgetKey(route.label), route.governor.snapshot(), at);
    state.set(STATE_KEYS.routing, remote.saved(), at);
  };
  const engine: Engine = {
    db,
    clock,
    remote,
    mirror,
    state,
    claims,
    leases,
    pusher: (pusherSettings = {}) =>
      new OutboxPusher({
        db,
        claims,
        remote,
        clock,
        logger: logger.child({ subsystem: 'outbox' }),
        applyResult: answersInto(mirror.writer),
        ...pusherSettings,
      }),
    onProgress: (listener) => progress.add(listener),
    onResponse: (listener) => responses.add(listener),
    tokens: () => remote.tokens(),
    quotaRemaining: () => {
      const known = routes.map((route) => route.governor.snapshot().quotaRemaining);
      const counts = known.filter((left): left is number => left !== undefined);
      return counts.length === 0 ? undefined : counts.reduce((sum, left) => sum + left, 0);
    },
    persistBudget,
    close: async () => {
      if (db.open) persistBudget();
      if (db.open) leases?.stop();
      await remote.close();
      if (owned && db.open) db.close();
    },
  };
  return engine;
}

/**
 * Per token a governor (its budget restored from the mirror) and an HTTP client, every governor
 * sharing one per-IP window. With several tokens a governor gives up on waits past
 * `FAILOVER_WAIT_MS`, so that the routed remote hands the project to another token instead.
 */
function tokenRoutes(
  settings: ServiceSettings,
  options: EngineOptions,
  clock: Clock,
  state: DaemonStateRepository,
  onResponse: (metric: ResponseMetric) => void,
): TokenRoute[] {
  checkTokenSet(settings.tokens);
  const shared = options.governor ?? {};
  const ipWindow = new RollingWindow(
    shared.ipLimit ?? DEFAULT_IP_LIMIT,
    shared.ipWindowMs ?? DEFAULT_IP_WINDOW_MS,
    shared.windowSlackMs ?? DEFAULT_WINDOW_SLACK_MS,
  );
  const single = settings.tokens.length === 1;
  const maxWaitMs = single
    ? options.maxWaitMs
    : Math.min(options.maxWaitMs ?? FAILOVER_WAIT_MS, FAILOVER_WAIT_MS);
  const routes = parseRouteOverrides(settings.routes);
  return settings.tokens.map((token) => {
    const restore =
      state.get<BudgetSnapshot>(budgetKey(token.label)) ??
      (single ? state.get<BudgetSnapshot>(STATE_KEYS.budget) : undefined);
    const governor = new RequestGovernor({
      ...shared,
      clock,
      ipWindow,
      ...(restore ? { restore } : {}),
      ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
    });
    const remote = createHttpRemote({
      baseUrl: settings.baseUrl,
      token: token.secret,
      gate: governor,
      clock,
      logger: options.logger.child({ subsystem: 'remote', tokenLabel: token.label }),
      ...(settings.caFile ? { caFile: settings.caFile } : {}),
      ...(settings.routes === undefined ? {} : { routes }),
      onResponse: (metric) => onResponse({ ...metric, token: token.label }),
    });
    return { label: token.label, scope: token.scope, remote, governor };
  });
}
