/**
 * The push engine: sends outbox items to the service, one project's items strictly in queue
 * order, and records each outcome. `pushOnce()` makes one pass (tests, `projmirror push`);
 * `start()`/`stop()` run passes for the daemon.
 */
import type { Logger } from 'pino';
import type { BackoffPolicy } from '../domain/backoff.js';
import { errorLine, type Clock, type RemoteApi } from '../domain/index.js';
import { isoTime, type Db } from '../store/database.js';
import { MirrorStore } from '../store/mirror-store.js';
import { OutboxRepository } from '../store/outbox.js';
import { ProjectsRepository } from '../store/projects.js';
import { mirrorApplyResult, type ApplyResult } from './apply.js';
import type { OutboxItem } from './item.js';
import { sendItem, type Outcome } from './send.js';
import { StoreMirrorWriter } from './store-writer.js';

/** The ceiling of the wait after an item's first retryable failure; it doubles per failure. */
export const DEFAULT_BACKOFF_BASE_MS = 1_000;
/** The longest wait between two tries of one item. */
export const DEFAULT_BACKOFF_MAX_MS = 5 * 60 * 1_000;
/** Longest 429 pause a pass sits out; a longer one ends the pass with the items still pending. */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 2 * 60 * 1_000;
/** How often the running loop looks for new items (a plain SQL INSERT wakes nobody). */
export const DEFAULT_IDLE_INTERVAL_MS = 1_000;

/** Everything the pusher works with; see the defaults above. */
export interface OutboxPusherOptions {
  db: Db;
  remote: RemoteApi;
  clock: Clock;
  logger: Logger;
  /**
   * Writes the service's answer into the mirror; by default through the store's repositories. The
   * daemon passes `mirrorApplyResult(mirror, store)` so that passes in flight see the writes.
   */
  applyResult?: ApplyResult;
  /** The reason a project is read-only, or null; the mirrored `projects.read_only_reason` by default. */
  isReadOnly?: (projectId: string) => string | null;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Jitter source in [0, 1); `Math.random` by default. */
  random?: () => number;
  maxRateLimitWaitMs?: number;
  idleIntervalMs?: number;
}

/** Options of one pass. */
export interface PushOnceOptions {
  signal?: AbortSignal;
  /** Try items waiting on backoff too (a one-shot `push` should not sit out a backoff). */
  ignoreBackoff?: boolean;
}

/** What one pass did. */
export interface PushReport {
  /** Requests made. */
  sent: number;
  done: number;
  failed: number;
  /** Items put back to pending with a backoff after a 5xx, network error or malformed answer. */
  retried: number;
  /** 429 answers (waited out, not counted as failures). */
  rateLimited: number;
  /** Items still pending or sending when the pass ended. */
  pending: number;
}

/** Sends queued edits; see the module comment. */
export class OutboxPusher {
  private readonly outbox: OutboxRepository;
  private readonly remote: RemoteApi;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly applyResult: ApplyResult;
  private readonly isReadOnly: (projectId: string) => string | null;
  private readonly backoff: BackoffPolicy;
  private readonly maxRateLimitWaitMs: number;
  private readonly idleIntervalMs: number;
  private recovered = false;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private waker: AbortController | undefined;

  constructor(options: OutboxPusherOptions) {
    this.outbox = new OutboxRepository(options.db);
    this.remote = options.remote;
    this.clock = options.clock;
    this.logger = options.logger;
    this.applyResult = options.applyResult ?? defaultApplyResult(options.db, options.clock);
    const projects = new ProjectsRepository(options.db);
    this.isReadOnly = options.isReadOnly ?? ((projectId) => projects.readOnlyReason(projectId));
    this.backoff = {
      baseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
      maxMs: options.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS,
      random: options.random ?? Math.random,
    };
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS;
    this.idleIntervalMs = options.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS;
  }

  /**
   * One pass: every project's items in queue order, each item tried at most once (a 429 is
   * waited out and tried again). A project stops at its first item put back for a retry.
   */
  async pushOnce(options: PushOnceOptions = {}): Promise<PushReport> {
    this.recoverOnce();
    const report: PushReport = {
      sent: 0,
      done: 0,
      failed: 0,
      retried: 0,
      rateLimited: 0,
      pending: 0,
    };
    const held = new Set<string>();
    const signal = options.signal;
    pass: for (;;) {
      const heads = this.readyHeads(held, options.ignoreBackoff ?? false);
      if (heads.length === 0) break;
      for (const head of heads) {
        if (signal?.aborted) break pass;
        const outcome = await this.attempt(head, report, signal);
        if (outcome.kind === 'retry' || outcome.kind === 'aborted') held.add(head.projectId);
        if (outcome.kind === 'aborted') break pass;
        if (outcome.kind === 'wait' && !(await this.sitOut(outcome.untilMs, signal))) break pass;
      }
    }
    report.pending = this.outbox.countUnfinished();
    return report;
  }

  /** Starts passes in the background until `signal` aborts or `stop()` is called. */
  start(signal?: AbortSignal): void {
    if (this.loop !== undefined) return;
    this.controller = new AbortController();
    const combined =
      signal === undefined
        ? this.controller.signal
        : AbortSignal.any([signal, this.controller.signal]);
    this.loop = this.run(combined);
  }

  /** Stops the background passes and waits for the one in hand to put its item down. */
  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = undefined;
    this.controller = undefined;
  }

  /** Cuts the running loop's idle wait short (call after enqueueing in this process). */
  wake(): void {
    this.waker?.abort();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.pushOnce({ signal });
      } catch (error) {
        this.logger.error({ err: errorLine(error) }, 'outbox pass failed');
      }
      this.waker = new AbortController();
      try {
        await this.clock.sleep(this.idleDelayMs(), AbortSignal.any([signal, this.waker.signal]));
      } catch {
        // Woken early, or stopping: the loop condition tells which.
      }
    }
  }

  private recoverOnce(): void {
    if (this.recovered) return;
    this.recovered = true;
    const count = this.outbox.recoverInterrupted(this.clock.now());
    if (count > 0)
      this.logger.warn(
        { items: count },
        'outbox items left sending by a previous run go back to pending',
      );
  }

  private async attempt(
    head: OutboxItem,
    report: PushReport,
    signal?: AbortSignal,
  ): Promise<Outcome> {
    const outcome = await sendItem(head, {
      outbox: this.outbox,
      remote: this.remote,
      clock: this.clock,
      logger: this.logger,
      applyResult: this.applyResult,
      isReadOnly: this.isReadOnly,
      backoff: this.backoff,
      signal,
    });
    if (outcome.sent) report.sent += 1;
    if (outcome.kind === 'done') report.done += 1;
    if (outcome.kind === 'failed') report.failed += 1;
    if (outcome.kind === 'retry') report.retried += 1;
    if (outcome.kind === 'wait' && outcome.rateLimited) report.rateLimited += 1;
    return outcome;
  }

  /** Waits until `untilMs` if that is within the limit; false when the pass should end instead. */
  private async sitOut(untilMs: number, signal?: AbortSignal): Promise<boolean> {
    const waitMs = untilMs - this.clock.now();
    if (waitMs > this.maxRateLimitWaitMs) return false;
    try {
      await this.clock.sleep(waitMs, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** The first unfinished item of each project, when it is pending, due and its project not held. */
  private readyHeads(held: Set<string>, ignoreBackoff: boolean): OutboxItem[] {
    const now = isoTime(this.clock.now());
    return this.outbox
      .heads()
      .filter(
        (head) =>
          head.state === 'pending' &&
          !held.has(head.projectId) &&
          (ignoreBackoff || head.nextAttemptAt === null || head.nextAttemptAt <= now),
      );
  }

  private idleDelayMs(): number {
    const now = this.clock.now();
    let delay = this.idleIntervalMs;
    for (const head of this.outbox.heads()) {
      if (head.state !== 'pending' || head.nextAttemptAt === null) continue;
      delay = Math.min(delay, Math.max(0, Date.parse(head.nextAttemptAt) - now));
    }
    return delay;
  }
}

/** The stand-alone `ApplyResult`: `mirrorApplyResult` over a `StoreMirrorWriter` of `db`. */
export function defaultApplyResult(db: Db, clock: Clock): ApplyResult {
  const store = new MirrorStore(db);
  return mirrorApplyResult(new StoreMirrorWriter(store, clock), store);
}
