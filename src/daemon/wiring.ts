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
import {
  SOLE_OWNER,
  systemClock,
  type Clock,
  type Leases,
  type ProgressSignal,
  type ProjectClaims,
} from '../domain/index.js';
import { Mirror, type SyncProgress } from '../mirror/index.js';
import { createHttpRemote, parseRouteOverrides, type ResponseMetric } from '../remote/index.js';
import { OutboxPusher, type OutboxPusherOptions } from '../outbox/index.js';
import { isoTime } from '../store/database.js';
import { isSharedMirror, type MirrorHandle } from '../store/handle.js';
import { Coordination } from '../store/postgres/coordination.js';
import { inlineStore } from '../store/thread/inline.js';
import { SerialQueue } from '../store/thread/queue.js';
import type { Store } from '../store/port.js';
import { openStoreThread } from '../store/thread/thread.js';
import { LeaseKeeper, leasesOf } from '../store/thread/leases.js';
import { budgetKey, STATE_KEYS } from '../store/daemon-state.js';
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
   * The mirror: a file path (opened on a store thread of its own) or `postgres://` URL, opened
   * and closed by the engine; or a connection the caller owns, used on this thread.
   */
  db: string | MirrorHandle;
  /** Node options of the store thread (tests that run the sources give it their loader). */
  storeThreadExecArgv?: string[];
  /**
   * How long a unit of work is tried again while another connection holds a SQLite file's
   * write lock, in ms (5 s unless given: `DEFAULT_BUSY_WAIT_MS` of `store/thread/thread-entry.ts`).
   */
  storeBusyWaitMs?: number;
  /** The PostgreSQL password's file, for a `postgres://` `db`. */
  dbPasswordFile?: string | undefined;
  /** On a PostgreSQL mirror, how long a project's lease lasts unless renewed, in ms. */
  leaseMs?: number;
  /**
   * The page size the tasks are read with: the service's maximum, 500, unless given (tests give
   * a few tasks, so that small projects take many pages).
   */
  pageSize?: number;
  /** This installation's version, which other daemons sharing the mirror see in `status`. */
  version?: string;
  logger: Logger;
  clock?: Clock;
  /** Told what advances, what waits on purpose, what is in flight (a one-shot command's stall bound). */
  progress?: ProgressSignal;
  /** Passed to the governors: a command gives up on waits longer than this. */
  maxWaitMs?: number;
  /** Options of every token's governor (each token gets its own, sharing the per-IP window). */
  governor?: Omit<GovernorOptions, 'clock' | 'restore' | 'maxWaitMs' | 'ipWindow'>;
}

/** The settings of a pusher beyond what the engine gives it. */
export type PusherSettings = Partial<
  Pick<
    OutboxPusherOptions,
    | 'idleIntervalMs'
    | 'maxRateLimitWaitMs'
    | 'itemRetryWindowMs'
    | 'onConflict'
    | 'isFresh'
    | 'disk'
    | 'onDone'
  >
>;

/** The wired engine. `close()` persists the budget, ends the connections and closes an owned db. */
export interface Engine {
  /** The mirror's units of work: the one way to the database. */
  store: Store;
  clock: Clock;
  /** The service through every token. */
  remote: RoutedRemote;
  mirror: Mirror;
  /** The projects this process mirrors and pushes: all, or its leases on a shared PostgreSQL mirror. */
  claims: ProjectClaims;
  /** The leases, on a PostgreSQL mirror; undefined on a SQLite file. */
  leases: Leases | undefined;
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
  persistBudget(): Promise<void>;
  /** Ends the connections; `abandon` leaves the unit in hand to the database to roll back. */
  close(options?: { abandon?: boolean }): Promise<void>;
}

/**
 * The composition root: opens the mirror's store (a SQLite file on its own thread; a PostgreSQL
 * database, with its leases; or a connection the caller holds) and wires governor, remote,
 * mirror and pusher over it.
 */
export async function openEngine(
  settings: ServiceSettings,
  options: EngineOptions,
): Promise<Engine> {
  checkTokenSet(settings.tokens);
  const { store, leases } = await openStore(settings, options);
  try {
    return await wire(settings, options, store, leases);
  } catch (error) {
    await leases?.stop().catch(() => undefined);
    await store.close();
    throw error;
  }
}

/**
 * The store `options.db` names: a SQLite file or a PostgreSQL database (with this daemon's
 * leases) on a store thread of its own; or, for a connection the caller holds, on this thread.
 */
async function openStore(
  settings: ServiceSettings,
  options: EngineOptions,
): Promise<{ store: Store; leases: Leases | undefined }> {
  const clock = options.clock ?? systemClock;
  const leaseSettings = {
    tokens: settings.tokens.map((token) => token.label),
    version: options.version ?? 'unknown',
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  };
  if (typeof options.db === 'string') {
    const location = { db: options.db, passwordFile: options.dbPasswordFile };
    const { storeThreadExecArgv: execArgv, storeBusyWaitMs: busyWaitMs } = options;
    return openStoreThread(location, {
      logger: options.logger,
      leases: leaseSettings,
      ...(execArgv ? { execArgv } : {}),
      ...(busyWaitMs === undefined ? {} : { busyWaitMs }),
    });
  }
  const db = options.db;
  // One line for the store's units and the leases' statements: the connection is one.
  const queue = new SerialQueue();
  const keeper = isSharedMirror(db)
    ? await LeaseKeeper.start({
        coordination: new Coordination(db),
        ...leaseSettings,
        logger: options.logger.child({ subsystem: 'leases' }),
        serially: (work) => queue.run(work),
      })
    : undefined;
  const store = inlineStore(db, { clock, keeper, queue });
  return { store, leases: keeper ? leasesOf(keeper) : undefined };
}

async function wire(
  settings: ServiceSettings,
  options: EngineOptions,
  store: Store,
  leases: Leases | undefined,
): Promise<Engine> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const progress = new Set<(progress: SyncProgress) => void>();
  const responses = new Set<(metric: ResponseMetric) => void>();
  const restored = await restoredBudgets(store, settings);
  const routes = tokenRoutes(settings, options, clock, restored, (metric) =>
    responses.forEach((listener) => listener(metric)),
  );
  const remote = new RoutedRemote({
    routes,
    clock,
    logger: logger.child({ subsystem: 'tokens' }),
    restore: (await store.state.get(STATE_KEYS.routing)) as RoutingState | undefined,
  });
  const claims = leases ?? SOLE_OWNER;
  const mirror = new Mirror({
    store: store.mirror,
    claims,
    remote,
    clock,
    logger: logger.child({ subsystem: 'mirror' }),
    laneOf: (projectId) => remote.tokenOf(projectId) ?? '',
    onProgress: (event) => {
      options.progress?.advanced();
      progress.forEach((listener) => listener(event));
    },
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
  });
  const persistBudget = async () => {
    const at = isoTime(clock.now());
    const saved = routes.map((route) =>
      store.state.set(budgetKey(route.label), route.governor.snapshot(), at),
    );
    await Promise.all([...saved, store.state.set(STATE_KEYS.routing, remote.saved(), at)]);
  };
  let closed = false;
  const engine: Engine = {
    store,
    clock,
    remote,
    mirror,
    claims,
    leases,
    pusher: (pusherSettings = {}) =>
      new OutboxPusher({
        store,
        claims,
        remote,
        clock,
        logger: logger.child({ subsystem: 'outbox' }),
        ...(options.progress ? { progress: options.progress } : {}),
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
    close: async ({ abandon = false } = {}) => {
      if (closed) return;
      closed = true;
      if (!abandon) await persistBudget().catch(() => undefined);
      if (!abandon) await leases?.stop().catch(() => undefined);
      await remote.close();
      await store.close({ abandon });
    },
  };
  return engine;
}

/** What the governors learned before (each token's budget, or a single token's older key). */
async function restoredBudgets(
  store: Store,
  settings: ServiceSettings,
): Promise<Map<string, BudgetSnapshot>> {
  const restored = new Map<string, BudgetSnapshot>();
  const single = settings.tokens.length === 1;
  for (const token of settings.tokens) {
    const saved =
      ((await store.state.get(budgetKey(token.label))) as BudgetSnapshot | undefined) ??
      (single
        ? ((await store.state.get(STATE_KEYS.budget)) as BudgetSnapshot | undefined)
        : undefined);
    if (saved !== undefined) restored.set(token.label, saved);
  }
  return restored;
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
  restored: ReadonlyMap<string, BudgetSnapshot>,
  onResponse: (metric: ResponseMetric) => void,
): TokenRoute[] {
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
    const restore = restored.get(token.label);
    const governor = new RequestGovernor({
      ...shared,
      clock,
      ipWindow,
      ...(restore ? { restore } : {}),
      ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
      ...(options.progress ? { progress: options.progress } : {}),
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
      ...(options.progress ? { progress: options.progress } : {}),
    });
    return { label: token.label, scope: token.scope, remote, governor };
  });
}
