/**
 * The long-running service: an initial sync, then the realtime listener, the budgeted poll
 * schedule, the outbox pusher and the daily reconcile, all under one AbortController.
 * `start()` returns once the loops run; `stop()` aborts them and awaits every one. The parts are
 * built and connected by `createDaemon` (`compose.ts`); this file keeps their lifecycle only.
 */
import type { Logger } from 'pino';
import type { DailyPlan } from '../budget/index.js';
import { errorLine, type Clock, type Leases } from '../domain/index.js';
import type { OutboxPusher } from '../outbox/index.js';
import type { Coalescer } from '../realtime/index.js';
import { isoTime } from '../store/database.js';
import { STATE_KEYS } from '../store/daemon-state.js';
import type { DiskWatch } from './disk-watch.js';
import type { Freshness } from './freshness.js';
import type { InFlight } from './in-flight.js';
import type { MetricsEndpoint } from './metrics-endpoint.js';
import type { MetricsSources } from './metrics.js';
import type { PlanFacts } from './plan-facts.js';
import type { Passes } from './passes.js';
import { planSummary, type Planner } from './planner.js';
import type { PagePolls } from './page-polls.js';
import type { PollRates } from './poll-rates.js';
import type { PollScheduler } from './poll-scheduler.js';
import type { RealtimeLinks } from './realtime-links.js';
import type { RealtimeStatus } from './realtime-status.js';
import type { Schedules } from './schedules.js';
import type { Startup } from './startup.js';
import type { StateNotes } from './state-notes.js';
import type { ObservedStaleness, StalenessListener } from './staleness.js';
import type { StoreHealth, StoreWatch } from './store-watch.js';
import type { TokenRefusalWatch } from './token-refusal.js';
import type { WalWatch } from './wal-watch.js';

/**
 * Waiters on the daemon's one abort signal at a time: each refresh, poll, push and sleep in flight
 * listens to it (and removes its listener when done), so a dozen at once is normal concurrency,
 * not a leak; Node warns past 10 by default.
 */
export const MAX_SIGNAL_LISTENERS = 200;

/** The daemon's parts, as `createDaemon` connects them. */
export interface DaemonParts {
  clock: Clock;
  logger: Logger;
  /** Aborted by `stop()`: every loop and piece of work runs under its signal. */
  controller: AbortController;
  /** The leases, on a PostgreSQL mirror; undefined on a SQLite file. */
  leases: Leases | undefined;
  /** Saves what the governors learned and the routing. */
  persistBudget: () => Promise<void>;
  notes: StateNotes;
  facts: PlanFacts;
  freshness: Freshness;
  rates: PollRates;
  staleness: ObservedStaleness;
  /** Single-page and side-list polls, with their estimates. */
  pagePolls: PagePolls;
  planner: Planner;
  scheduler: PollScheduler;
  passes: Passes;
  startup: Startup;
  storeWatch: StoreWatch;
  walWatch: WalWatch;
  disk: DiskWatch;
  pusher: OutboxPusher;
  coalescer: Coalescer;
  realtime: RealtimeLinks | undefined;
  realtimeStatus: RealtimeStatus;
  schedules: Schedules;
  inFlight: InFlight;
  refusal: TokenRefusalWatch;
  metricsSources: MetricsSources;
  /** `/metrics` and `/healthz`, when a port is given. */
  endpoint: MetricsEndpoint | undefined;
}

/** The daemon's lifecycle over its parts. */
export class Daemon {
  readonly clock: Clock;
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly parts: DaemonParts) {
    this.clock = parts.clock;
  }

  /**
   * Starts every loop. Start-up counts as a reconnect (changes made while no daemon ran sent
   * events nobody heard): every project is reconciled first, cheaply since unchanged pages answer
   * 304, and a project whose pass fails is retried with backoff. `onReconcileBegun` is told when
   * the mirror is open and that reconcile has begun.
   */
  async start(onReconcileBegun?: () => void): Promise<void> {
    const { parts } = this;
    const signal = parts.controller.signal;
    await parts.endpoint?.listen();
    parts.storeWatch.start();
    parts.walWatch.start();
    await parts.facts.refresh();
    await parts.rates.load();
    await parts.pagePolls.load();
    // `push` checks this, so that two pushers never resend each other's items (on a shared
    // PostgreSQL mirror, leases keep them apart instead).
    const { leases } = parts;
    if (leases === undefined) {
      await parts.notes.save(STATE_KEYS.daemon, { pid: process.pid }, isoTime(this.clock.now()));
    } else {
      leases.onAcquired((projectIds) => parts.startup.takeOver(projectIds));
      // A project made due while its lease looked lapsed is passed once it is ours again.
      leases.onRenewed(() => parts.scheduler.replan());
      await leases.advertise();
    }
    parts.realtime?.start(signal);
    parts.pusher.start(signal);
    // Tracked like a loop, so that stop() aborts it and waits for it.
    const startup = parts.startup.reconcile(signal);
    this.loops.push(startup);
    onReconcileBegun?.();
    await startup;
    if (signal.aborted) return;
    parts.schedules.start(signal);
    this.loops.push(parts.scheduler.run(signal));
    parts.logger.info({ plan: planSummary(this.plan()) }, 'daemon started');
  }

  /** Stops every loop, finishing the transaction in hand, and persists what was learned. */
  async stop(): Promise<void> {
    const { parts } = this;
    parts.controller.abort(new Error('stopping'));
    parts.storeWatch.stop();
    parts.walWatch.stop();
    parts.coalescer.close();
    await parts.schedules.stop();
    await Promise.allSettled([
      ...this.loops,
      ...parts.inFlight.pending(),
      parts.pusher.stop(),
      parts.realtime?.stop(),
    ]);
    await parts.persistBudget().catch((error: unknown) => {
      if (parts.disk.absorbs(error)) return;
      parts.logger.warn({ err: errorLine(error) }, 'could not save the budget');
    });
    await parts.rates.save();
    await parts.pagePolls.save();
    if (parts.leases === undefined) await parts.notes.delete(STATE_KEYS.daemon);
    await parts.endpoint?.close();
  }

  /** A reconcile of every project now (see `Passes.reconcile`); returns the projects that failed. */
  reconcile(signal: AbortSignal): Promise<string[]> {
    return this.parts.passes.reconcile(signal);
  }

  /** The plan in force, recomputed from what the governors and the mirror know now. */
  plan(): DailyPlan {
    return this.parts.planner.plan();
  }

  /** Where the daemon's metrics read the governor, the mirror and the outbox when scraped. */
  metricsSources(): MetricsSources {
    return this.parts.metricsSources;
  }

  /** Tells `listener` the staleness of each change written from now on, in ms (`/metrics`). */
  onStaleness(listener: StalenessListener): void {
    this.parts.staleness.listen(listener);
  }

  /** True while the realtime channel is connected. */
  get connected(): boolean {
    return this.parts.realtimeStatus.connected;
  }

  /** True when the outbox checks items of `projectId` against the mirror without a re-read. */
  fresh(projectId: string): boolean {
    return this.parts.freshness.isFresh(projectId);
  }

  /** True while the database's disk is full (see `DiskWatch`). */
  get diskFull(): boolean {
    return this.parts.disk.full;
  }

  /** Whether the store makes progress (see `StoreWatch`). */
  storeHealth(): StoreHealth {
    return this.parts.storeWatch.health();
  }

  /** `checkpoint blocked for 14 min` while a reader has blocked the log's checkpoints too long. */
  walBlocked(): string | undefined {
    return this.parts.walWatch.blocked();
  }

  /** True from a refusal of every token until the next success of one (`TokenRefusalWatch`). */
  get tokenRefused(): boolean {
    return this.parts.refusal.refused;
  }
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
