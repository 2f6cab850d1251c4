/**
 * The long-running service: an initial sync, then the realtime listener, the budgeted poll
 * schedule, the outbox pusher and the daily reconcile, all under one AbortController.
 * `start()` returns once the loops run; `stop()` aborts them and awaits every one.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { ForeignUseEstimator, type DailyPlan } from '../budget/index.js';
import {
  errorLine,
  DISK_FULL,
  isDiskFull,
  isTransientStoreError,
  MalformedResponseError,
  StoreError,
  type Clock,
  type RealtimeEvent,
} from '../domain/index.js';
import type { OnConflict, OutboxPusher } from '../outbox/index.js';
import { Coalescer, type Change, type RefreshRequest } from '../realtime/index.js';
import { isoTime } from '../store/database.js';
import { STATE_KEYS } from '../store/daemon-state.js';
import type { Store } from '../store/port.js';
import { answeredByPasses, ChangeApplier } from './changes.js';
import { Freshness } from './freshness.js';
import { engineMetricsSources } from './metrics-sources.js';
import { ListingRetry } from './listing-retry.js';
import { PollRates } from './poll-rates.js';
import { PollScheduler } from './poll-scheduler.js';
import { EVERY_PROJECT, RefreshLimiter } from './refresh-limiter.js';
import {
  DEFAULT_CHANGES_RETENTION_DAYS,
  DEFAULT_HISTORY_RETENTION_DAYS,
  DEFAULT_RECONCILE_CRON,
} from './defaults.js';
import { Schedules } from './schedules.js';
import { ObservedStaleness, type StalenessListener } from './staleness.js';
import type { MetricsSources } from './metrics.js';
import type { ProjectSyncResult } from '../mirror/index.js';
import type { Engine } from './wiring.js';
import type { TokenCredential } from '../tokens/index.js';
import { RealtimeLinks } from './realtime-links.js';
import { DEFAULT_STORE_STALL_MS, StoreWatch, type StoreHealth } from './store-watch.js';
import { WalWatch } from './wal-watch.js';
import { DISK_FULL_RETRY_MS, DiskWatch } from './disk-watch.js';
import { planForTokens } from './token-plan.js';

/**
 * Waiters on the daemon's one abort signal at a time: each refresh, poll, push and sleep in flight
 * listens to it (and removes its listener when done), so a dozen at once is normal concurrency,
 * not a leak; Node warns past 10 by default.
 */
export const MAX_SIGNAL_LISTENERS = 200;

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
}

/** What `status` shows of the start-up reconcile: when it began and ended. */
export interface StartupState {
  startedAt: string;
  finishedAt?: string;
  /** Projects whose pass failed in it (each then retried with backoff). */
  failed?: string[];
}

/** The daemon. */
export class Daemon {
  readonly clock: Clock;
  private readonly options: DaemonOptions;
  private readonly logger: Logger;
  private readonly store: Store;
  /** What the plan and the poll schedule read of the mirror, as last read (after each pass). */
  private facts: Array<{ id: string; taskCount: number; lastPassAt: number | undefined }> = [];
  /** Projects whose event the store could not take: passed once it answers again. */
  private readonly awaitingStore = new Set<string>();
  private readonly storeWatch: StoreWatch;
  private readonly walWatch: WalWatch;
  private readonly disk: DiskWatch;
  /** Others' use of each token, by label. */
  private readonly foreign = new Map<string, ForeignUseEstimator>();
  private readonly scheduler: PollScheduler;
  /** Each project's change rate, learned from its passes: the plan polls where the changes are. */
  private readonly rates: PollRates;
  /** The staleness of each change written, for `/metrics`. */
  private readonly staleness: ObservedStaleness;
  private readonly pusher: OutboxPusher;
  private readonly applier: ChangeApplier;
  private readonly coalescer: Coalescer;
  private readonly realtime: RealtimeLinks | undefined;
  private readonly schedules: Schedules;
  private readonly controller = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly refreshes = new Set<Promise<void>>();
  private readonly limiter: RefreshLimiter;
  private readonly recorded = new WeakSet<ProjectSyncResult>();
  private readonly listingRetry: ListingRetry;
  private realtimeConnected = false;
  /** Which projects' mirror is current enough to check outbox items against without a re-read. */
  private readonly freshness = new Freshness();

  constructor(options: DaemonOptions) {
    this.options = options;
    setMaxListeners(MAX_SIGNAL_LISTENERS, this.controller.signal);
    const { engine } = options;
    this.store = engine.store;
    this.clock = engine.clock;
    this.logger = options.logger.child({ subsystem: 'daemon' });
    this.storeWatch = new StoreWatch({
      store: this.store,
      logger: this.logger,
      // On a shared PostgreSQL mirror, never longer than a lease: past it, others take over.
      stallMs: Math.min(
        options.storeStallMs ?? DEFAULT_STORE_STALL_MS,
        engine.leases?.leaseMs ?? Infinity,
      ),
      ...optional('probeMs', options.storeProbeMs),
      onBack: () => this.storeBack(),
    });
    this.disk = new DiskWatch(this.clock, this.logger);
    this.walWatch = new WalWatch({
      store: this.store,
      logger: this.logger,
      ...optional('intervalMs', options.checkpointIntervalMs),
      ...optional('blockedMs', options.checkpointBlockedMs),
    });
    this.rates = new PollRates(this.clock, this.store.state, this.logger);
    this.staleness = new ObservedStaleness(this.clock);
    this.scheduler = new PollScheduler({
      clock: this.clock,
      logger: this.logger,
      plan: () => this.plan(),
      poll: (projectId, signal, fresh) => this.syncProject(projectId, signal, 'poll', fresh),
      lastPassAt: (projectId) => this.facts.find((fact) => fact.id === projectId)?.lastPassAt,
      eligible: (projectId) => this.polls(projectId),
      ...(options.random ? { random: options.random } : {}),
    });
    this.listingRetry = new ListingRetry(
      this.clock,
      options.random ?? Math.random,
      (signal) => this.reconcile(signal),
      (work) => this.track(work),
    );
    this.limiter = new RefreshLimiter(this.clock, options.refreshesPerProjectHour);
    this.pusher = engine.pusher({
      ...optional('idleIntervalMs', options.outboxIdleMs),
      onConflict: options.onConflict ?? 'hold',
      isFresh: (projectId) => this.freshness.isFresh(projectId),
      onDone: (item) => this.rates.answered(item.projectId),
    });
    this.applier = new ChangeApplier({
      mirror: engine.mirror,
      remote: engine.remote,
      logger: this.logger,
      syncProject: async (projectId, signal) => {
        await this.syncProject(projectId, signal, 'refresh');
      },
      reconcile: async (signal) => {
        await this.reconcile(signal);
      },
      onApplied: (event, outcome) => {
        if (outcome !== 'changed') return;
        this.rates.announced(event.projectId);
        if (event.type.startsWith('task.') && event.type !== 'task.deleted') {
          this.staleness.written(event.data);
        }
      },
      onFetched: (projectId, outcome, records) => {
        if (outcome !== 'changed') return;
        this.rates.announced(projectId);
        for (const record of records) this.staleness.written(record);
      },
      onUnknownProject: (projectId) => {
        if (options.projects && !options.projects.includes(projectId)) return;
        this.coalescer.push({ kind: 'hint', projectId, reason: 'a project not mirrored yet' });
      },
    });
    this.coalescer = new Coalescer({
      clock: this.clock,
      logger: this.logger,
      ...(options.coalesceMs === undefined ? {} : { windowMs: options.coalesceMs }),
      onEvent: (event) => this.track(this.applyEvent(event)),
      onRefresh: (request) => this.refresh(request),
    });
    this.realtime = options.realtime
      ? new RealtimeLinks({
          ...options.realtime,
          clock: this.clock,
          logger: options.logger.child({ subsystem: 'realtime' }),
          onChange: (change: Change) => {
            if (change.kind === 'hint') this.freshness.stale(change.projectId);
            this.coalescer.push(change);
          },
          onStatus: (connected) => this.setRealtime(connected),
        })
      : undefined;
    this.schedules = new Schedules({
      reconcileCron: options.reconcileCron ?? DEFAULT_RECONCILE_CRON,
      ...(options.reconcileTimezone === undefined ? {} : { timezone: options.reconcileTimezone }),
      clock: this.clock,
      logger: this.logger,
      reconcile: async () => {
        await this.reconcile(this.controller.signal);
      },
      pruneHistory: async () => {
        const days = options.historyRetentionDays ?? DEFAULT_HISTORY_RETENTION_DAYS;
        const removed = await this.store.facts.pruneHistory(this.clock.now(), days);
        this.logger.info({ removed, days }, 'history pruned');
        const changesDays = options.changesRetentionDays ?? DEFAULT_CHANGES_RETENTION_DAYS;
        const pruned = await this.store.facts.pruneChanges(this.clock.now(), changesDays);
        this.logger.info({ removed: pruned, days: changesDays }, 'changes pruned');
      },
    });
  }

  /**
   * Writes an event into the mirror, unless another daemon holds its project (a shared
   * PostgreSQL mirror). An event that does not check becomes a hint; one the store could not
   * take (a lock held too long, the database away) makes its project due for a pass as soon as
   * the store answers again, so that nothing it said is lost.
   */
  private async applyEvent(event: RealtimeEvent): Promise<void> {
    const { claims } = this.options.engine;
    try {
      if (!claims.mine(event.projectId) && (await this.store.mirror.hasProject(event.projectId))) {
        // Another daemon's, or ours with a lease not renewed while the database was away: a
        // pass settles it (skipped at once when the project is truly held elsewhere).
        this.scheduler.dueAt(event.projectId, this.clock.now());
        return;
      }
      await this.applier.applyEvent(event);
    } catch (error) {
      if (error instanceof MalformedResponseError) {
        this.freshness.stale(event.projectId);
        this.coalescer.push({ kind: 'hint', projectId: event.projectId, reason: 'bad data' });
      } else {
        this.missed([event.projectId], error);
      }
    }
  }

  /**
   * What a unit of work learned but could not write is not lost: each of `projectIds` is passed
   * again, as soon as the store answers when the store refused the write (a lock held too long,
   * the database away), else (a read that failed) with the failed-pass backoff.
   */
  private missed(projectIds: readonly string[], error: unknown): void {
    if (this.controller.signal.aborted) return;
    for (const projectId of projectIds) this.freshness.stale(projectId);
    if (isDiskFull(error)) {
      // The write probe writes nothing and answers on a full disk: retried once a minute.
      this.disk.refused(error);
      const at = this.clock.now() + this.diskFullRetryMs;
      for (const projectId of projectIds) this.scheduler.dueAt(projectId, at);
      return;
    }
    if (isTransientStoreError(error) || error instanceof StoreError) {
      for (const projectId of projectIds) this.awaitingStore.add(projectId);
      this.storeWatch.troubleSeen();
    } else {
      for (const projectId of projectIds) this.scheduler.recordResult(projectId, false);
    }
  }

  /** The store answers again: every project whose event it could not take is passed now. */
  private storeBack(): void {
    const due = [...this.awaitingStore];
    this.awaitingStore.clear();
    for (const projectId of due) this.scheduler.dueAt(projectId, this.clock.now());
    if (due.length > 0) this.logger.info({ projects: due }, 'passing what the store missed');
  }

  /** `checkpoint blocked for 14 min` while a reader has blocked the log's checkpoints too long. */
  walBlocked(): string | undefined {
    return this.walWatch.blocked();
  }

  /** While the disk is full, how long before a project whose write it refused is passed again. */
  private get diskFullRetryMs(): number {
    return this.options.diskFullRetryMs ?? DISK_FULL_RETRY_MS;
  }

  /** True while the database's disk is full (see `DiskWatch`). */
  get diskFull(): boolean {
    return this.disk.full;
  }

  /** Whether the store makes progress (see `StoreWatch`). */
  storeHealth(): StoreHealth {
    return this.storeWatch.health();
  }

  /** Reads again what the plan and the schedule need of the mirror. */
  private async refreshFacts(): Promise<void> {
    try {
      this.facts = await this.store.facts.planFacts();
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not read the mirror for the plan');
    }
  }

  /** Saves a daemon state key; a store that is away only costs a warning. */
  private async saveState(key: string, value: unknown, at: string): Promise<void> {
    await this.store.state.set(key, value, at).catch((error: unknown) => {
      this.logger.warn({ key, err: errorLine(error) }, 'could not save the daemon state');
    });
  }

  /** A project whose lease this daemon took over: pass it now, and push its items. */
  private takeOver(projectIds: readonly string[]): void {
    if (this.controller.signal.aborted) return;
    this.logger.info({ projects: projectIds }, 'took over projects');
    // Their estimates as the daemon that held them kept them, before this one's first look.
    const adopted = this.rates.adopt(projectIds);
    for (const projectId of projectIds) {
      const pass = adopted.then(() => this.syncProject(projectId, this.controller.signal, 'poll'));
      this.track(pass.then(() => undefined));
    }
    this.pusher.wake();
  }

  /**
   * Starts every loop. Start-up counts as a reconnect (changes made while no daemon ran sent
   * events nobody heard): every project is reconciled first, cheaply since unchanged pages answer
   * 304, and a project whose pass fails is retried with backoff. `onReconcileBegun` is told when
   * the mirror is open and that reconcile has begun.
   */
  async start(onReconcileBegun?: () => void): Promise<void> {
    const signal = this.controller.signal;
    // `push` checks this, so that two pushers never resend each other's items (on a shared
    // PostgreSQL mirror, leases keep them apart instead).
    const { leases } = this.options.engine;
    this.storeWatch.start();
    this.walWatch.start();
    await this.refreshFacts();
    await this.rates.load();
    if (leases === undefined) {
      await this.saveState(STATE_KEYS.daemon, { pid: process.pid }, isoTime(this.clock.now()));
    } else {
      leases.onAcquired((projectIds) => this.takeOver(projectIds));
      // A project made due while its lease looked lapsed is passed once it is ours again.
      leases.onRenewed(() => this.scheduler.replan());
      await leases.advertise();
    }
    this.realtime?.start(signal);
    this.pusher.start(signal);
    // Tracked like a loop, so that stop() aborts it and waits for it.
    const startup = this.startupReconcile(signal);
    this.loops.push(startup);
    onReconcileBegun?.();
    await startup;
    if (signal.aborted) return;
    this.schedules.start(signal);
    this.loops.push(this.scheduler.run(signal));
    this.logger.info({ plan: summary(this.plan()) }, 'daemon started');
  }

  /** Stops every loop, finishing the transaction in hand, and persists what was learned. */
  async stop(): Promise<void> {
    this.controller.abort(new Error('stopping'));
    this.storeWatch.stop();
    this.walWatch.stop();
    this.coalescer.close();
    await this.schedules.stop();
    await Promise.allSettled([
      ...this.loops,
      ...this.refreshes,
      this.pusher.stop(),
      this.realtime?.stop(),
    ]);
    await this.options.engine.persistBudget().catch((error: unknown) => {
      this.logger.warn({ err: errorLine(error) }, 'could not save the budget');
    });
    await this.rates.save();
    if (this.options.engine.leases === undefined) {
      await this.store.state.delete(STATE_KEYS.daemon).catch(() => undefined);
    }
  }

  /** Where the daemon's metrics read the governor, the mirror and the outbox when scraped. */
  metricsSources(): MetricsSources {
    return {
      ...engineMetricsSources(
        this.options.engine,
        () => this.realtimeConnected,
        () => this.walWatch.state(),
        () => ({ full: this.disk.full, refusedTotal: this.disk.refusedTotal }),
      ),
      pollPlan: () =>
        this.plan().projects.map((p) => ({
          projectId: p.projectId,
          ratePerHour: p.ratePerHour,
          intervalMs: p.intervalMs,
          expectedStalenessMs: p.expectedStalenessMs,
        })),
    };
  }

  /** Tells `listener` the staleness of each change written from now on, in ms (`/metrics`). */
  onStaleness(listener: StalenessListener): void {
    this.staleness.listen(listener);
  }

  /** True while the realtime channel is connected. */
  get connected(): boolean {
    return this.realtimeConnected;
  }

  /** True when the outbox checks items of `projectId` against the mirror without a re-read. */
  fresh(projectId: string): boolean {
    return this.freshness.isFresh(projectId);
  }

  /** Whether this daemon polls `projectId`: one it was asked for (`--projects`), and holds. */
  private polls(projectId: string): boolean {
    return (
      (this.options.projects?.includes(projectId) ?? true) &&
      this.options.engine.claims.mine(projectId)
    );
  }

  /**
   * The plan in force, recomputed from what the governors and the mirror know now: each token's
   * quota spread over the projects it reads.
   */
  plan(): DailyPlan {
    return planForTokens({
      now: this.clock.now(),
      tokens: this.options.engine.tokens(),
      projects: this.facts
        .filter((project) => this.polls(project.id))
        .map(({ id, taskCount }) => ({ id, taskCount })),
      foreignRatePerHour: (label) => this.foreignUse(label).ratePerHour(),
      realtimeConnected: this.realtimeConnected,
      settings: {
        ...optional('reserveShare', this.options.reserveShare),
        ...optional('minPollIntervalMs', this.options.minPollIntervalMs),
        ...optional('reconcileIntervalMs', this.options.reconcileIntervalMs),
        ...optional('maxStalenessMs', this.options.maxStalenessMs),
      },
      ...(this.options.pollByRate === false
        ? {}
        : {
            rates: this.rates.pooled(this.facts.map((project) => project.id)),
            unannouncedRates: this.rates.pooledUnannounced(this.facts.map((project) => project.id)),
          }),
    });
  }

  /**
   * A reconcile of every project: one listing, then a pass over each. Each project's outcome
   * goes to the poll schedule (a failed one is retried with backoff, though the mirror does not
   * hold it yet); a failed listing counts as a failure of every project, and the reconcile is
   * retried with backoff. Returns the projects that failed.
   */
  async reconcile(signal: AbortSignal): Promise<string[]> {
    const mark = this.scheduler.mark();
    const report = await this.options.engine.mirror.syncAll(this.options.projects, {
      signal,
      purpose: 'poll',
    });
    const failed: string[] = [];
    if (report.error) {
      this.logger.warn({ err: report.error }, 'reconcile failed');
      if (!signal.aborted) failed.push(...(this.options.projects ?? this.facts.map((f) => f.id)));
      if (!signal.aborted) this.listingRetry.failed(signal);
    } else {
      this.listingRetry.succeeded();
    }
    for (const result of report.projects) {
      this.notePassed(result);
      if (!result.ok && result.errorCode !== 'not_attempted' && !signal.aborted) {
        this.logger.warn({ projectId: result.projectId, err: result.error }, 'pass failed');
      }
      if (!this.firstToRecord(result)) continue;
      if (!result.ok && result.errorCode !== 'not_attempted') failed.push(result.projectId);
      else if (result.ok) this.scheduler.recordResult(result.projectId, true);
    }
    if (!signal.aborted) for (const id of failed) this.scheduler.recordResult(id, false);
    await this.rates.forget(report.removedProjects);
    await this.refreshFacts();
    // A project neither listed nor mirrored (its first pass failed, then it went) is not tried
    // again. Only a complete listing says so (a token that failed to list may still see it).
    if (report.listed !== undefined && report.listingError === undefined) {
      const kept = new Set([...report.listed, ...this.facts.map((fact) => fact.id)]);
      this.scheduler.forget((projectId) => kept.has(projectId), mark);
    }
    await this.afterRequests();
    return failed;
  }

  /** The start-up reconcile, recorded for `status`. */
  private async startupReconcile(signal: AbortSignal): Promise<void> {
    const startedAt = isoTime(this.clock.now());
    await this.saveState(STATE_KEYS.startup, { startedAt } satisfies StartupState, startedAt);
    const failed = await this.reconcile(signal);
    if (signal.aborted) return;
    const finishedAt = isoTime(this.clock.now());
    const state: StartupState = { startedAt, finishedAt, failed };
    await this.saveState(STATE_KEYS.startup, state, finishedAt);
    this.logger.info({ failed: failed.length }, 'start-up reconcile finished');
  }

  /**
   * One pass; its outcome goes to the poll schedule. True when it passed. A refresh, or a poll
   * made due by something learned (`fresh`), never joins a pass begun before it.
   */
  private async syncProject(
    projectId: string,
    signal: AbortSignal,
    purpose: 'poll' | 'refresh',
    fresh = purpose === 'refresh',
  ): Promise<boolean | undefined> {
    const { mirror } = this.options.engine;
    const result = await mirror.syncProject(projectId, { signal, purpose, fresh });
    if (!result.ok) this.logger.warn({ projectId, err: result.error }, 'pass failed');
    this.notePassed(result);
    const first = this.firstToRecord(result);
    if (purpose === 'refresh' && first && !signal.aborted) {
      this.scheduler.recordResult(projectId, result.ok);
    }
    await this.refreshFacts();
    await this.afterRequests();
    // A pass skipped because another daemon holds the project passed nothing.
    return first && result.errorCode !== 'held_elsewhere' ? result.ok : undefined;
  }

  /**
   * True for the first caller of a pass: a poll, a refresh and a reconcile that joined one pass
   * share its result, which the poll schedule must count once (a failure twice would double the
   * backoff).
   */
  private firstToRecord(result: ProjectSyncResult): boolean {
    if (this.recorded.has(result)) return false;
    this.recorded.add(result);
    return true;
  }

  /**
   * Runs a refresh the realtime channel asked for, within the refresh caps
   * (`refresh-limiter.ts`): past its cap a project is instead made due once when its slot frees.
   * A reconcile after a reconnect is never capped.
   */
  private refresh(request: RefreshRequest): void {
    if (answeredByPasses(request)) {
      this.rates.hint(request.scope === 'all' ? this.facts.map((f) => f.id) : [request.projectId]);
    }
    if (request.scope !== 'all' || request.reason !== 'reconnected') {
      const key = request.scope === 'all' ? EVERY_PROJECT : request.projectId;
      const hinted = request.scope === 'all' || (request.scope === 'project' && request.hinted);
      const allowed = this.limiter.take(key, hinted ? 'hint' : 'event');
      if (allowed !== true) {
        const ids = request.scope === 'all' ? this.facts.map((f) => f.id) : [request.projectId];
        for (const id of ids) this.scheduler.dueAt(id, allowed);
        this.logger.info({ projectId: key, at: isoTime(allowed) }, 'refresh deferred: cap');
        return;
      }
    }
    const projectIds =
      request.scope === 'all' ? this.facts.map((fact) => fact.id) : [request.projectId];
    this.track(
      this.applier.refresh(request, this.controller.signal).catch((error: unknown) => {
        // A pass records its own outcome (the poll schedule retries it); a fetched task or
        // list that could not be read or written makes its project due.
        if (!answeredByPasses(request)) this.missed(projectIds, error);
        throw error;
      }),
    );
  }

  /** Feeds the estimates of others' use and saves budgets and plan for `status`. */
  private async afterRequests(): Promise<void> {
    // The estimates learned are kept as they are learned: a crash loses none of them.
    await this.rates.save();
    for (const { label, budget } of this.options.engine.tokens()) {
      if (budget.quotaRemaining === undefined) continue;
      this.foreignUse(label).observe(this.clock.now(), budget.quotaRemaining, budget.sentTotal);
    }
    await this.options.engine.persistBudget().catch((error: unknown) => {
      this.logger.warn({ err: errorLine(error) }, 'could not save the budget');
    });
    try {
      const plan = this.plan();
      const next = Object.fromEntries(this.scheduler.dueTimes(plan));
      await this.saveState(STATE_KEYS.plan, { ...summary(plan), next }, isoTime(this.clock.now()));
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not save the plan');
    }
  }

  /** The estimate of others' use of the token `label`. */
  private foreignUse(label: string): ForeignUseEstimator {
    let estimator = this.foreign.get(label);
    if (estimator === undefined) {
      estimator = new ForeignUseEstimator();
      this.foreign.set(label, estimator);
    }
    return estimator;
  }

  /** A pass that passed after the realtime channel connected makes its project current. */
  private notePassed(result: ProjectSyncResult): void {
    this.rates.passed(result);
    this.staleness.passed(result);
    if (result.ok && result.startedAt !== undefined) {
      this.freshness.passed(result.projectId, result.startedAt);
    }
    if (result.ok) this.disk.wrote();
    else if (result.errorCode === DISK_FULL) {
      // Tried again within a minute, whatever the failed-pass backoff has grown to.
      this.disk.refused(result.error);
      this.scheduler.dueAt(result.projectId, this.clock.now() + this.diskFullRetryMs);
    }
  }

  private setRealtime(connected: boolean): void {
    if (connected === this.realtimeConnected) return;
    this.realtimeConnected = connected;
    if (connected) this.freshness.connected(this.clock.now());
    else this.freshness.disconnected();
    if (connected) this.rates.connected(this.facts.map((fact) => fact.id));
    else this.rates.disconnected();
    this.options.onRealtimeStatus?.(connected);
    this.scheduler.replan();
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => {
        if (!this.controller.signal.aborted) {
          this.logger.warn({ err: errorLine(error) }, 'refresh failed');
        }
      })
      .finally(() => this.refreshes.delete(tracked));
    this.refreshes.add(tracked);
  }
}

/** The plan as `status` shows it. */
function summary(plan: DailyPlan) {
  return {
    computedAt: plan.computedAt,
    resetAt: plan.resetAt,
    intervalMs: plan.intervalMs,
    plannedPollRequests: plan.plannedPollRequests,
    reserve: plan.reserve,
    foreignRequests: plan.foreignRequests,
    stalenessBoundMs: plan.stalenessBoundMs,
    ...(plan.maxStalenessMs === undefined ? {} : { maxStalenessMs: plan.maxStalenessMs }),
    ...(plan.boundHeld === undefined ? {} : { boundHeld: plan.boundHeld }),
    ...(plan.expectedStalenessMs === undefined
      ? {}
      : { expectedStalenessMs: plan.expectedStalenessMs }),
    tokens: plan.tokens ?? [],
    /** Each project's rate, interval and expected staleness, for `status` and `/metrics`. */
    projects: Object.fromEntries(
      plan.projects.map((p) => [
        p.projectId,
        {
          intervalMs: p.intervalMs,
          expectedStalenessMs: p.expectedStalenessMs,
          ...(p.ratePerHour === undefined ? {} : { ratePerHour: p.ratePerHour }),
        },
      ]),
    ),
  };
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

/**
 * The pid of a `projmirror run` alive on this mirror, if any, from its `STATE_KEYS.daemon` row
 * (which outlives a crash; the pid does not).
 */
export function runningDaemonPid(saved: unknown): number | undefined {
  const pid = (saved as { pid?: unknown } | undefined)?.pid;
  if (typeof pid !== 'number' || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
