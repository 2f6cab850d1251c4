/**
 * The request governor: the one gate in front of everything that talks to the service. It keeps
 * the per-token burst and the per-IP windows, learns the daily quota, pauses the whole token
 * after any 429, and keeps a reserve of the quota for pushes and refreshes.
 *
 * The request windows run on the monotonic clock; the quota's reset is a wall-clock instant, so a
 * wait for it looks at the wall clock at least every `DEFAULT_WALL_CHECK_MS` and a step of the
 * wall clock (NTP, a VM resumed) re-plans it.
 */
import {
  BudgetExhaustedError,
  DEFAULT_WALL_CHECK_MS,
  systemClock,
  WallStepWatch,
  UNWATCHED,
  type BudgetObservation,
  type Clock,
  type ProgressSignal,
  type RequestGate,
  type RequestPurpose,
} from '../domain/index.js';
import { DEFAULT_RESERVE_SHARE, nextReset } from './plan.js';
import { QuotaState, type Hold } from './quota.js';
import { RollingWindow } from './rolling-window.js';
import type { BudgetSnapshot } from './snapshot.js';

/** Requests per token in one burst window (spec: 60 a minute). */
export const DEFAULT_BURST_LIMIT = 60;
/** Length of the per-token burst window. */
export const DEFAULT_BURST_WINDOW_MS = 60_000;
/** Requests per client IP in one window (spec: 300 a minute). */
export const DEFAULT_IP_LIMIT = 300;
/** Length of the per-IP window. */
export const DEFAULT_IP_WINDOW_MS = 60_000;
/** How long a slot is held past its window, so skew between us and the service never adds one. */
export const DEFAULT_WINDOW_SLACK_MS = 500;
/** Longest an acquire waits before rejecting with `BudgetExhaustedError`: forever by default. */
export const DEFAULT_MAX_WAIT_MS = Number.POSITIVE_INFINITY;

/** Options of the governor; every figure has a default above. */
export interface GovernorOptions {
  clock?: Clock;
  burstLimit?: number;
  burstWindowMs?: number;
  ipLimit?: number;
  ipWindowMs?: number;
  /** A per-IP window shared with other governors of this process (one per token). */
  ipWindow?: RollingWindow;
  windowSlackMs?: number;
  /** Polls wait for the daily reset once the remaining quota is at or below this many requests. */
  reserve?: number;
  /** Without `reserve`: the reserve as a share of the learned quota (the daily plan's share). */
  reserveShare?: number;
  /** An acquire that would wait longer rejects at once with `BudgetExhaustedError`. */
  maxWaitMs?: number;
  /** When the daily quota resets if the service has not said: the next UTC midnight by default. */
  assumeResetAt?: (observedAt: number) => number;
  /** State persisted earlier (quota, pause, counts), to resume with after a restart. */
  restore?: BudgetSnapshot;
  /** Called after every change, with the new snapshot (for persistence); must not throw. */
  onChange?: (snapshot: BudgetSnapshot) => void;
  /** Told of every wait (pacing, a 429's pause): a wait the budget imposes is no stall. */
  progress?: ProgressSignal;
}

/** Governs every counted request to the service; see the module comment. */
export class RequestGovernor implements RequestGate {
  private readonly clock: Clock;
  private readonly burst: RollingWindow;
  private readonly ip: RollingWindow;
  private readonly reserve: number | undefined;
  private readonly reserveShare: number;
  private readonly maxWaitMs: number;
  private readonly onChange: ((snapshot: BudgetSnapshot) => void) | undefined;
  private readonly progress: ProgressSignal;
  private readonly quota: QuotaState;
  private readonly steps: WallStepWatch;
  /** Waiters to wake when an observation may shorten their wait. */
  private readonly sleepers = new Set<AbortController>();
  private sentTotal = 0;

  constructor(options: GovernorOptions = {}) {
    this.clock = options.clock ?? systemClock;
    const slackMs = options.windowSlackMs ?? DEFAULT_WINDOW_SLACK_MS;
    this.burst = new RollingWindow(
      options.burstLimit ?? DEFAULT_BURST_LIMIT,
      options.burstWindowMs ?? DEFAULT_BURST_WINDOW_MS,
      slackMs,
    );
    this.ip =
      options.ipWindow ??
      new RollingWindow(
        options.ipLimit ?? DEFAULT_IP_LIMIT,
        options.ipWindowMs ?? DEFAULT_IP_WINDOW_MS,
        slackMs,
      );
    this.reserve = options.reserve;
    this.reserveShare = options.reserveShare ?? DEFAULT_RESERVE_SHARE;
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.onChange = options.onChange;
    this.progress = options.progress ?? UNWATCHED;
    this.quota = new QuotaState(options.assumeResetAt ?? ((observedAt) => nextReset(observedAt)));
    this.steps = new WallStepWatch(this.clock);
    if (options.restore) this.restore(options.restore);
  }

  /** Resolves when one request may be sent now, having counted it; see `RequestGate`. */
  async acquire(purpose: RequestPurpose, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.wallNow();
      const hold = this.holdFor(purpose, now);
      if (hold === undefined) {
        this.take(now);
        return;
      }
      if (hold.until - now > this.maxWaitMs)
        throw new BudgetExhaustedError(hold.until, hold.reason);
      await this.sleepUntil(Math.min(hold.until - now, DEFAULT_WALL_CHECK_MS), signal);
    }
  }

  /** Learns the quota and any 429 pause from one response; see `RequestGate`. */
  observe(observation: BudgetObservation): void {
    this.quota.learn(observation, this.wallNow());
    for (const sleeper of this.sleepers) sleeper.abort();
    this.changed();
  }

  /** When a request of `purpose` could be sent, on what is known now: `now` when at once. */
  readyAt(purpose: RequestPurpose): number {
    const now = this.wallNow();
    return this.holdFor(purpose, now)?.until ?? now;
  }

  /** What the governor knows now. */
  snapshot(): BudgetSnapshot {
    const now = this.wallNow();
    const snapshot: BudgetSnapshot = {
      sentInWindow: this.burst.count(this.clock.monotonic()),
      sentTotal: this.sentTotal,
      takenAt: now,
    };
    const { limit, remaining, resetAt, observedAt } = this.quota;
    if (limit !== undefined) snapshot.quotaLimit = limit;
    if (remaining !== undefined) snapshot.quotaRemaining = remaining;
    if (resetAt !== undefined && resetAt > now) snapshot.quotaResetAt = resetAt;
    const pause = this.quota.pause(now);
    if (pause !== undefined) snapshot.pausedUntil = pause.until;
    if (observedAt !== undefined) snapshot.observedAt = observedAt;
    return snapshot;
  }

  /** The first thing that keeps a request of `purpose` back at `now`, with how long. */
  private holdFor(purpose: RequestPurpose, now: number): Hold | undefined {
    const pause = this.quota.pause(now);
    if (pause) return pause;
    const spent = this.quota.quotaHold(now, 0, 'daily quota spent');
    if (spent) return spent;
    if (purpose === 'poll') {
      const reserved = this.quota.quotaHold(
        now,
        this.reserveFloor(),
        'quota down to the reserve kept for pushes and refreshes',
      );
      if (reserved) return reserved;
    }
    const monotonic = this.clock.monotonic();
    const freeAt = Math.max(this.burst.freeAt(monotonic), this.ip.freeAt(monotonic));
    if (freeAt <= monotonic) return undefined;
    return { until: now + (freeAt - monotonic), reason: 'request window full' };
  }

  /** Requests kept back from polls: the `reserve` option, else the share of the learned quota. */
  private reserveFloor(): number {
    if (this.reserve !== undefined) return this.reserve;
    return Math.ceil((this.quota.limit ?? 0) * this.reserveShare);
  }

  private take(now: number): void {
    const monotonic = this.clock.monotonic();
    this.burst.take(monotonic);
    this.ip.take(monotonic);
    this.quota.spend(now);
    this.sentTotal += 1;
    this.changed();
  }

  /** Sleeps `ms`, or less if an observation wakes every waiter to look again. */
  private async sleepUntil(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const sleeper = new AbortController();
    const onAbort = () => sleeper.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.sleepers.add(sleeper);
    const wait = this.progress.waiting();
    try {
      await this.clock.sleep(ms, sleeper.signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!sleeper.signal.aborted) throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.sleepers.delete(sleeper);
      wait.end();
    }
  }

  private restore(saved: BudgetSnapshot): void {
    this.sentTotal = saved.sentTotal;
    this.quota.limit = saved.quotaLimit;
    this.quota.remaining = saved.quotaRemaining;
    this.quota.resetAt = saved.quotaResetAt;
    this.quota.observedAt = saved.observedAt;
    this.quota.pausedUntil = saved.pausedUntil;
    // The restored window's slots are stamped at the snapshot's time: never earlier than they were.
    const takenAt = this.clock.monotonic() - Math.max(0, this.clock.now() - saved.takenAt);
    for (let slot = 0; slot < saved.sentInWindow; slot += 1) this.burst.take(takenAt);
  }

  /** The wall clock's time, having moved what a step of it moves (see `QuotaState.wallStepped`). */
  private wallNow(): number {
    const stepMs = this.steps.step();
    if (stepMs !== 0) this.quota.wallStepped(stepMs);
    return this.clock.now();
  }

  private changed(): void {
    this.onChange?.(this.snapshot());
  }
}
