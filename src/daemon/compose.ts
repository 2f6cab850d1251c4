/**
 * The daemon's composition root: every part of `projmirror run` on the main thread, built over
 * the wired engine (`openEngine`, `wiring.ts`) and connected through the small interfaces each
 * part declares. Nothing else constructs the daemon's parts; `Daemon` keeps their lifecycle.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { OnConflict } from '../outbox/index.js';
import { Coalescer } from '../realtime/index.js';
import type { TokenCredential } from '../tokens/index.js';
import { ChangeApplier } from './changes.js';
import { ChangeRouter } from './change-router.js';
import { Daemon, MAX_SIGNAL_LISTENERS } from './daemon.js';
import { DEFAULT_RECONCILE_CRON } from './defaults.js';
import { FailureLog } from './failure-log.js';
import { ObservedStaleness } from './staleness.js';
import { DISK_FULL_RETRY_MS, DiskWatch } from './disk-watch.js';
import { Freshness } from './freshness.js';
import { daemonHealth } from './health.js';
import { InFlight } from './in-flight.js';
import { ListingRetry } from './listing-retry.js';
import { MetricsEndpoint, type MetricsAddress } from './metrics-endpoint.js';
import { engineMetricsSources } from './metrics-sources.js';
import { DaemonMetrics, type HealthCheck, type MetricsSources } from './metrics.js';
import { PlanFacts } from './plan-facts.js';
import { MissedWork } from './missed.js';
import { Passes } from './passes.js';
import { PlanLedger, Planner } from './planner.js';
import { PagePolls, type PagedProjectPlan } from './page-polls.js';
import { PollRates } from './poll-rates.js';
import { PollScheduler } from './poll-scheduler.js';
import { RealtimeLinks } from './realtime-links.js';
import { RealtimeStatus } from './realtime-status.js';
import { RefreshLimiter } from './refresh-limiter.js';
import { pruneRetained } from './retention.js';
import { Schedules } from './schedules.js';
import { Startup } from './startup.js';
import { StateNotes } from './state-notes.js';
import { DEFAULT_STORE_STALL_MS, StoreWatch } from './store-watch.js';
import { TokenRefusalWatch } from './token-refusal.js';
import { WalWatch } from './wal-watch.js';
import type { Engine } from './wiring.js';

/** What the daemon is built from: the wired engine and the daemon's own settings. */
export interface DaemonOptions {
  engine: Engine;
  logger: Logger;
  /** Mirror only these projects (default: every project the tokens list). */
  projects?: string[] | undefined;
  /** The realtime channel: one connection per token, each hearing the projects its token sees. */
  realtime?:
    { url: URL; tokens: readonly TokenCredential[]; caFile?: string | undefined } | undefined;
  reconcileCron?: string;
  /** The IANA zone the reconcile's cron expression is read in (UTC by default). */
  reconcileTimezone?: string;
  historyRetentionDays?: number;
  /** Days the change feed's rows are kept, pruned with the history. */
  changesRetentionDays?: number;
  /** Share of the daily quota kept for pushes and refreshes. */
  reserveShare?: number;
  minPollIntervalMs?: number;
  reconcileIntervalMs?: number;
  /** No project waits longer than this between polls (`--max-staleness`); by default one that fits the budget. */
  maxStalenessMs?: number;
  /** False polls every project alike, as before issue 35 (benchmark 10's baseline); true by default. */
  pollByRate?: boolean;
  /** Window in which realtime hints for one project collapse into one refresh. */
  coalesceMs?: number;
  /** How often the outbox is checked for new items when idle (SQL inserts need no signal). */
  outboxIdleMs?: number;
  /** `hold` (default) keeps outbox items the service changed since they were queued in conflict. */
  onConflict?: OnConflict;
  /** Told whenever realtime connects or disconnects. */
  onRealtimeStatus?: (connected: boolean) => void;
  /** Refreshes one project may make per hour on realtime hints (`DEFAULT_REFRESHES_PER_PROJECT_HOUR`). */
  refreshesPerProjectHour?: number;
  /** Jitter source in [0, 1) for the failed-pass backoff; `Math.random` by default. */
  random?: () => number;
  /** Units waiting this long with none completing make the store unhealthy (`DEFAULT_STORE_STALL_MS`). */
  storeStallMs?: number;
  /** How often the store's write probe is asked, in ms of real time (`DEFAULT_STORE_PROBE_MS`). */
  storeProbeMs?: number;
  /** How often the write-ahead log is checkpointed, in ms of real time (`DEFAULT_CHECKPOINT_INTERVAL_MS`). */
  checkpointIntervalMs?: number;
  /** Complete checkpoints blocked this long by a reader warn, and degrade /healthz (`DEFAULT_CHECKPOINT_BLOCKED_MS`). */
  checkpointBlockedMs?: number;
  /** While the disk is full, a project whose write it refused is passed again after this long (`DISK_FULL_RETRY_MS`). */
  diskFullRetryMs?: number;
  /** Every token refused this long tells `onTokenRefused` (`--token-refused-minutes`); never when absent. */
  tokenRefusedMs?: number;
  /** Told once when every token has been refused for `tokenRefusedMs`, with why in words. */
  onTokenRefused?: (reason: string) => void;
  /** Serves `/metrics` and `/healthz` here from `start()` to `stop()` (`--metrics-port`). */
  metrics?: (MetricsAddress & { version: string }) | undefined;
}

/** Builds the daemon and every part of it over `options.engine`; see the module comment. */
export function createDaemon(options: DaemonOptions): Daemon {
  const { engine, projects } = options;
  const { clock, store } = engine;
  const logger = options.logger.child({ subsystem: 'daemon' });
  const controller = new AbortController();
  const { signal } = controller;
  setMaxListeners(MAX_SIGNAL_LISTENERS, signal);
  const random = options.random ?? Math.random;
  const polls = (projectId: string) =>
    (projects?.includes(projectId) ?? true) && engine.claims.mine(projectId);

  const disk = new DiskWatch(clock, logger);
  const failures = new FailureLog(clock, logger);
  const notes = new StateNotes(store.state, logger, disk);
  const inFlight = new InFlight(signal, logger);
  const facts = new PlanFacts(store.facts, logger);
  const freshness = new Freshness();
  const rates = new PollRates(clock, store.state, logger);
  const staleness = new ObservedStaleness(clock);
  const walWatch = new WalWatch({
    store,
    logger,
    ...optional('intervalMs', options.checkpointIntervalMs),
    ...optional('blockedMs', options.checkpointBlockedMs),
  });
  const storeWatch = new StoreWatch({
    store,
    logger,
    // On a shared PostgreSQL mirror, never longer than a lease: past it, others take over.
    stallMs: Math.min(
      options.storeStallMs ?? DEFAULT_STORE_STALL_MS,
      engine.leases?.leaseMs ?? Infinity,
    ),
    ...optional('probeMs', options.storeProbeMs),
    onBack: () => missed.storeBack(),
  });
  const planner: Planner = new Planner({
    clock,
    tokens: () => engine.tokens(),
    facts,
    rates,
    polls,
    realtimeConnected: () => realtimeStatus.connected,
    settings: {
      ...optional('reserveShare', options.reserveShare),
      ...optional('minPollIntervalMs', options.minPollIntervalMs),
      ...optional('reconcileIntervalMs', options.reconcileIntervalMs),
      ...optional('maxStalenessMs', options.maxStalenessMs),
    },
    pollByRate: options.pollByRate !== false,
    // With realtime connected the plan's passes are reconciles, read whole (docs/budget.md).
    shape: (plan) => pagePolls.shape(plan, realtimeStatus.connected),
  });
  const pagePolls: PagePolls = new PagePolls({
    clock,
    logger,
    state: store.state,
    pageSize: engine.mirror.pageSize,
    facts: () => facts.all(),
    pollPage: async (projectId, page, pollSignal) => {
      const result = await engine.mirror.pollPage(projectId, page, {
        signal: pollSignal,
        purpose: 'poll',
      });
      if (result.outcome.kind === 'written') staleness.polled(result.outcome.changedAt);
      return result;
    },
    pollLists: (projectId, pollSignal) =>
      engine.mirror.pollLists(projectId, { signal: pollSignal, purpose: 'poll' }),
    // Its outcome goes to the poll schedule, as a poll's: a failed pass is retried with backoff
    // (the project's parts polled, nothing else would pass it before the next reconcile).
    escalate: async (projectId, pollSignal) => {
      const ok = await passes.syncProject(projectId, pollSignal, 'poll', true);
      if (ok !== undefined && !pollSignal.aborted) scheduler.recordResult(projectId, ok);
    },
    afterRequests: async () => {
      await facts.refresh();
      await ledger.afterRequests();
    },
    random,
  });
  const scheduler: PollScheduler = new PollScheduler({
    clock,
    logger,
    plan: () => planner.plan(),
    poll: (projectId, pollSignal, fresh) =>
      passes.syncProject(projectId, pollSignal, 'poll', fresh),
    lastPassAt: (projectId) => facts.lastPassAt(projectId),
    eligible: polls,
    items: pagePolls,
    ...(options.random ? { random: options.random } : {}),
  });
  const realtimeStatus: RealtimeStatus = new RealtimeStatus({
    clock,
    freshness,
    rates,
    facts,
    scheduler,
    onStatus: options.onRealtimeStatus,
  });
  const missed: MissedWork = new MissedWork({
    clock,
    logger,
    signal,
    freshness,
    disk,
    scheduler,
    storeWatch,
    diskFullRetryMs: options.diskFullRetryMs ?? DISK_FULL_RETRY_MS,
  });
  const ledger = new PlanLedger({
    clock,
    logger,
    disk,
    rates,
    planner,
    scheduler,
    notes,
    persistBudget: () => engine.persistBudget(),
  });
  const listingRetry: ListingRetry = new ListingRetry(
    clock,
    random,
    (retrySignal) => passes.reconcile(retrySignal),
    (work) => inFlight.track(work),
  );
  const passes: Passes = new Passes({
    mirror: engine.mirror,
    logger,
    failures,
    projects,
    scheduler,
    rates,
    parts: pagePolls,
    staleness,
    freshness,
    disk,
    missed,
    facts,
    listingRetry,
    ledger,
  });
  const pusher = engine.pusher({
    ...optional('idleIntervalMs', options.outboxIdleMs),
    onConflict: options.onConflict ?? 'hold',
    isFresh: (projectId) => freshness.isFresh(projectId),
    disk,
    onDone: (item) => rates.answered(item.projectId),
  });
  const startup = new Startup({
    clock,
    logger,
    passes,
    notes,
    rates,
    parts: pagePolls,
    pusher,
    replan: () => scheduler.replan(),
    inFlight,
    signal,
  });
  const applier = new ChangeApplier({
    mirror: engine.mirror,
    remote: engine.remote,
    logger,
    syncProject: async (projectId, refreshSignal) => {
      await passes.syncProject(projectId, refreshSignal, 'refresh');
    },
    reconcile: async (reconcileSignal) => {
      await passes.reconcile(reconcileSignal);
    },
    // A change an event or a fetched record wrote: counted once in the change rates, and timed.
    onApplied: (event, outcome) => {
      if (outcome !== 'changed') return;
      rates.announced(event.projectId);
      if (event.type.startsWith('task.') && event.type !== 'task.deleted') {
        staleness.written(event.data);
      }
    },
    onFetched: (projectId, outcome, records) => {
      if (outcome !== 'changed') return;
      rates.announced(projectId);
      for (const record of records) staleness.written(record);
    },
    onUnknownProject: (projectId) => router.unknownProject(projectId),
  });
  const coalescer = new Coalescer({
    clock,
    logger,
    ...(options.coalesceMs === undefined ? {} : { windowMs: options.coalesceMs }),
    onEvent: (event) => router.event(event),
    onRefresh: (request) => router.refresh(request),
  });
  const router: ChangeRouter = new ChangeRouter({
    clock,
    logger,
    signal,
    projects,
    claims: engine.claims,
    hasProject: (projectId) => store.mirror.hasProject(projectId),
    applier,
    hints: coalescer,
    scheduler,
    freshness,
    missed,
    limiter: new RefreshLimiter(clock, options.refreshesPerProjectHour),
    facts,
    inFlight,
    rates,
  });
  const realtime = options.realtime
    ? new RealtimeLinks({
        ...options.realtime,
        clock,
        logger: options.logger.child({ subsystem: 'realtime' }),
        onChange: (change) => router.heard(change),
        onStatus: (connected) => realtimeStatus.set(connected),
      })
    : undefined;
  const schedules = new Schedules({
    reconcileCron: options.reconcileCron ?? DEFAULT_RECONCILE_CRON,
    ...(options.reconcileTimezone === undefined ? {} : { timezone: options.reconcileTimezone }),
    clock,
    logger,
    reconcile: async () => {
      await passes.reconcile(signal);
    },
    pruneHistory: () => pruneRetained(store.facts, clock, logger, options),
  });
  const { refusal, metricsSources, endpoint } = observers(options, {
    staleness,
    planner,
    pagePolls,
    realtimeStatus,
    storeWatch,
    walWatch,
    disk,
  });
  return new Daemon({
    clock,
    logger,
    controller,
    leases: engine.leases,
    persistBudget: () => engine.persistBudget(),
    notes,
    facts,
    freshness,
    rates,
    staleness,
    pagePolls,
    planner,
    scheduler,
    passes,
    startup,
    storeWatch,
    walWatch,
    disk,
    pusher,
    coalescer,
    realtime,
    realtimeStatus,
    schedules,
    inFlight,
    refusal,
    metricsSources,
    endpoint,
  });
}

/** The parts that watch the daemon from outside: token refusals, `/metrics` and `/healthz`. */
function observers(
  options: DaemonOptions,
  parts: {
    staleness: ObservedStaleness;
    planner: Planner;
    pagePolls: Pick<PagePolls, 'escalated'>;
    realtimeStatus: RealtimeStatus;
    storeWatch: StoreWatch;
    walWatch: WalWatch;
    disk: DiskWatch;
  },
) {
  const { engine } = options;
  const { planner, realtimeStatus, walWatch, disk } = parts;
  const refusal = new TokenRefusalWatch(
    engine.clock,
    options.tokenRefusedMs ?? Infinity,
    (reason) => options.onTokenRefused?.(reason),
    engine.tokens().map((token) => token.label),
  );
  engine.onResponse((metric) => refusal.observe(metric));
  const metricsSources: MetricsSources = {
    ...engineMetricsSources(
      engine,
      () => realtimeStatus.connected,
      () => walWatch.state(),
      () => ({ full: disk.full, refusedTotal: disk.refusedTotal }),
    ),
    pollPlan: () =>
      planner.plan().projects.map((p) => ({
        projectId: p.projectId,
        ratePerHour: p.ratePerHour,
        intervalMs: p.intervalMs,
        expectedStalenessMs: p.expectedStalenessMs,
        hotPages: (p as PagedProjectPlan).hotPages,
      })),
    pagePollEscalations: () => parts.pagePolls.escalated,
  };
  const health = daemonHealth({
    ...parts,
    refusal,
    realtime: realtimeStatus,
    realtimeConfigured: options.realtime !== undefined,
  });
  const endpoint = options.metrics
    ? metricsEndpoint(options, options.metrics, metricsSources, health, parts.staleness)
    : undefined;
  return { refusal, metricsSources, endpoint };
}

/** `/metrics` over `sources`, recording every response of the service, and `/healthz`. */
function metricsEndpoint(
  options: DaemonOptions,
  { host, port, version }: MetricsAddress & { version: string },
  sources: MetricsSources,
  health: HealthCheck,
  staleness: ObservedStaleness,
): MetricsEndpoint {
  const metrics = new DaemonMetrics(sources, { version });
  staleness.listen((ms) => metrics.recordStaleness(ms));
  options.engine.onResponse((metric) =>
    metrics.recordResponse(metric.route, metric.status, metric.ms, metric.code, metric.token),
  );
  return new MetricsEndpoint(metrics, { host, port }, health, options.logger);
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
