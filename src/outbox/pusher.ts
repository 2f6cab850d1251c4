/**
 * The push engine: sends outbox items to the service, one project's items strictly in queue
 * order, and records each outcome. A head that fails transiently is retried within the pass
 * (see `retries.ts`) while its project's later items wait and other projects go on. `pushOnce()`
 * makes one pass (tests, `projmirror push`); `start()`/`stop()` run passes for the daemon.
 */
import type { Logger } from 'pino';
import type { BackoffPolicy } from '../domain/backoff.js';
import {
  errorLine,
  isDiskFull,
  UNWATCHED,
  type ProgressSignal,
  SOLE_OWNER,
  type Clock,
  type ProjectClaims,
  type RemoteApi,
} from '../domain/index.js';
import type { Store } from '../store/port.js';
import type { OutboxItem } from './item.js';
import {
  DEFAULT_BACKOFF_BASE_MS,
  DEFAULT_BACKOFF_MAX_MS,
  DEFAULT_ITEM_RETRY_WINDOW_MS,
  RunRetries,
} from './retries.js';
import { sendItem, type DiskReports, type OnConflict, type Outcome } from './send.js';

/** Longest 429 pause a pass sits out; a longer one ends the pass with the items still pending. */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 2 * 60 * 1_000;
/** How often the running loop looks for new items (a plain SQL INSERT wakes nobody). */
export const DEFAULT_IDLE_INTERVAL_MS = 1_000;

/** Everything the pusher works with; see the defaults above and in `retries.ts`. */
export interface OutboxPusherOptions {
  /** The store: its outbox units claim items and write the answers through the mirror's writer. */
  store: Pick<Store, 'outbox' | 'mirror'>;
  /** `hold` (default) keeps an item the service changed since it was queued in `conflict`. */
  onConflict?: OnConflict;
  /**
   * True when the mirror of a project is current enough to check an item against it without
   * reading its target again (the daemon's realtime view); by default never: each checked item's
   * target is re-read first, one request.
   */
  isFresh?: (projectId: string) => boolean;
  remote: RemoteApi;
  clock: Clock;
  logger: Logger;
  /** The projects whose items this pusher sends: all, unless daemons share a PostgreSQL mirror. */
  claims?: ProjectClaims;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /**
   * How long a pass keeps retrying an item after its first transient failure (5xx, dropped
   * connection) before leaving it pending; 0 tries each item once per pass.
   */
  itemRetryWindowMs?: number;
  /** Jitter source in [0, 1); `Math.random` by default. */
  random?: () => number;
  maxRateLimitWaitMs?: number;
  idleIntervalMs?: number;
  /** Told of each item settled and each wait a 429 imposes (a one-shot push's stall bound). */
  progress?: ProgressSignal;
  /**
   * Told of each write refused for a full disk and of each answer recorded (the daemon's
   * `DiskWatch`, which logs the state); without it such a failed pass is logged as any other.
   */
  disk?: DiskReports;
  /** Told of each item done: its edit is a change of its project (the daemon's change rates). */
  onDone?: (item: OutboxItem) => void;
}

/** Options of one pass. */
export interface PushOnceOptions {
  signal?: AbortSignal;
  /** Try items waiting on an earlier pass's backoff too (a one-shot `push` should not sit it out). */
  ignoreBackoff?: boolean;
}

/** What one pass did. */
export interface PushReport {
  /**
   * HTTP requests sent, as the service counts them: writes, re-reads and listings, every retry
   * (a 5xx, a dropped connection, a 429 waited out) and each try through another token included.
   */
  requests: number;
  /** Tries of an item that sent its write (each retry of an item counts once more). */
  sent: number;
  done: number;
  failed: number;
  /** Transient failures (5xx, network error, malformed answer to a create), each retried later. */
  retried: number;
  /** 429 answers (waited out, not counted as failures). */
  rateLimited: number;
  /** Items still pending or sending when the pass ended (of the projects it sends for). */
  pending: number;
  /** Items of projects other daemons sharing the mirror hold: theirs to send. */
  heldElsewhere: number;
  /** Items put in `conflict` (the service changed a field they change since they were queued). */
  conflicts: number;
  /** Targets read again before the check (GET requests). */
  rereads: number;
}

/** What one pass keeps: projects done for it, its retries, and how it was started. */
interface Pass {
  held: Set<string>;
  retries: RunRetries;
  ignoreBackoff: boolean;
  signal: AbortSignal | undefined;
}

/** Sends queued edits; see the module comment. */
export class OutboxPusher {
  private readonly outbox: Store['outbox'];
  private readonly mirror: Store['mirror'];
  private readonly onConflict: OnConflict;
  private readonly isFresh: (projectId: string) => boolean;
  private readonly onDone: ((item: OutboxItem) => void) | undefined;
  private readonly remote: RemoteApi;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly backoff: BackoffPolicy;
  private readonly itemRetryWindowMs: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly idleIntervalMs: number;
  private readonly progress: ProgressSignal;
  private readonly claims: ProjectClaims;
  private readonly disk: DiskReports | undefined;
  private recovered = false;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private waker: AbortController | undefined;

  constructor(options: OutboxPusherOptions) {
    this.claims = options.claims ?? SOLE_OWNER;
    this.outbox = options.store.outbox;
    this.mirror = options.store.mirror;
    this.onConflict = options.onConflict ?? 'hold';
    this.isFresh = options.isFresh ?? (() => false);
    this.onDone = options.onDone;
    this.remote = options.remote;
    this.clock = options.clock;
    this.logger = options.logger;
    this.backoff = {
      baseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
      maxMs: options.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS,
      random: options.random ?? Math.random,
    };
    this.itemRetryWindowMs = options.itemRetryWindowMs ?? DEFAULT_ITEM_RETRY_WINDOW_MS;
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS;
    this.idleIntervalMs = options.idleIntervalMs ?? DEFAULT_IDLE_INTERVAL_MS;
    this.progress = options.progress ?? UNWATCHED;
    this.disk = options.disk;
  }

  /**
   * One pass: every project's items in queue order until none is left to try. A 429 is waited
   * out; a transient failure is retried after a backoff within the item's retry window, and past
   * it the item stays pending and its project is done for this pass.
   */
  async pushOnce(options: PushOnceOptions = {}): Promise<PushReport> {
    await this.recoverOnce();
    const report: PushReport = {
      requests: 0,
      sent: 0,
      done: 0,
      failed: 0,
      retried: 0,
      rateLimited: 0,
      pending: 0,
      heldElsewhere: 0,
      conflicts: 0,
      rereads: 0,
    };
    const pass: Pass = {
      held: new Set<string>(),
      retries: new RunRetries(this.backoff, this.itemRetryWindowMs),
      ignoreBackoff: options.ignoreBackoff ?? false,
      signal: options.signal,
    };
    while (!(pass.signal?.aborted ?? false)) {
      const { ready, wakeAt } = await this.dueHeads(pass);
      if (ready.length > 0) {
        if (!(await this.sendEach(ready, pass, report))) break;
      } else if (
        wakeAt === undefined ||
        !(await this.nap(wakeAt - this.clock.now(), pass.signal))
      ) {
        break;
      }
    }
    for (const [projectId, n] of await this.outbox.unfinishedByProject()) {
      if (this.claims.mine(projectId)) report.pending += n;
      else report.heldElsewhere += n;
    }
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

  /** Ends the current wait (idle, or for a retry) early to look for new items (after an enqueue). */
  wake(): void {
    this.waker?.abort();
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.pushOnce({ signal });
      } catch (error) {
        // A full disk is a state the disk watch logs, at most once a minute, not once a pass.
        if (this.disk !== undefined && isDiskFull(error)) this.disk.refused(error);
        else this.logger.error({ err: errorLine(error) }, 'outbox pass failed');
      }
      await this.nap(await this.safeIdleDelayMs(), signal);
    }
  }

  /** The idle delay; the default one when the queue cannot be read (the loop must not end). */
  private async safeIdleDelayMs(): Promise<number> {
    try {
      return await this.idleDelayMs();
    } catch (error) {
      this.logger.error({ err: errorLine(error) }, 'outbox queue unreadable');
      return this.idleIntervalMs;
    }
  }

  /** Sleeps `ms` on the clock unless `wake()` or `signal` cuts it short; false once `signal` aborted. */
  private async nap(ms: number, signal?: AbortSignal): Promise<boolean> {
    this.waker = new AbortController();
    const wakers = signal === undefined ? [this.waker.signal] : [signal, this.waker.signal];
    try {
      await this.clock.sleep(ms, AbortSignal.any(wakers));
    } catch {
      // Woken early, or stopping: the signal tells which.
    }
    return !(signal?.aborted ?? false);
  }

  /**
   * Once: items a previous run left `sending` go back to `pending`. Not on a shared mirror,
   * where they may be another daemon's in flight: taking over a project's lease recovers them.
   */
  private async recoverOnce(): Promise<void> {
    if (this.recovered) return;
    this.recovered = true;
    if (this.claims !== SOLE_OWNER) return;
    const count = await this.outbox.recoverInterrupted(this.clock.now());
    if (count > 0)
      this.logger.warn(
        { items: count },
        'outbox items left sending by a previous run go back to pending',
      );
  }

  /** Tries each head once; false when the pass should end (stopping, or a pause too long). */
  private async sendEach(heads: OutboxItem[], pass: Pass, report: PushReport): Promise<boolean> {
    for (const head of heads) {
      if (pass.signal?.aborted) return false;
      const outcome = await this.attempt(head, pass, report);
      if (outcome.kind === 'aborted') return false;
      if (outcome.kind === 'retry' && !outcome.withinRun) pass.held.add(head.projectId);
      if (outcome.kind === 'wait' && !(await this.sitOut(outcome.untilMs, pass.signal))) {
        return false;
      }
    }
    return true;
  }

  private async attempt(head: OutboxItem, pass: Pass, report: PushReport): Promise<Outcome> {
    const outcome = await sendItem(head, {
      outbox: this.outbox,
      remote: this.remote,
      clock: this.clock,
      logger: this.logger,
      retries: pass.retries,
      signal: pass.signal,
      onConflict: this.onConflict,
      isFresh: this.isFresh,
      mirror: this.mirror,
      ...(this.disk ? { disk: this.disk } : {}),
      onReread: () => {
        report.rereads += 1;
      },
      onSent: () => {
        report.requests += 1;
      },
    });
    if (outcome.kind !== 'aborted') this.progress.advanced();
    if (outcome.sent) report.sent += 1;
    if (outcome.kind === 'conflict') report.conflicts += 1;
    if (outcome.kind === 'done') {
      report.done += 1;
      this.onDone?.(head);
    }
    if (outcome.kind === 'failed') report.failed += 1;
    if (outcome.kind === 'retry') report.retried += 1;
    if (outcome.kind === 'wait' && outcome.rateLimited) report.rateLimited += 1;
    return outcome;
  }

  /** Waits until `untilMs` if that is within the limit; false when the pass should end instead. */
  private async sitOut(untilMs: number, signal?: AbortSignal): Promise<boolean> {
    const waitMs = untilMs - this.clock.now();
    if (waitMs > this.maxRateLimitWaitMs) return false;
    const wait = this.progress.waiting();
    try {
      await this.clock.sleep(waitMs, signal);
      return true;
    } catch {
      return false;
    } finally {
      wait.end();
    }
  }

  /**
   * The heads to try now: pending, of a project not done for this pass, and due (or, with
   * `ignoreBackoff`, waiting on an earlier pass). And when the first head this pass retries is due.
   */
  private async dueHeads(pass: Pass): Promise<{ ready: OutboxItem[]; wakeAt: number | undefined }> {
    const heads = await this.heads();
    const now = this.clock.now();
    const ready: OutboxItem[] = [];
    let wakeAt: number | undefined;
    for (const head of heads) {
      if (head.state !== 'pending' || pass.held.has(head.projectId)) continue;
      const dueAt = head.nextAttemptAt === null ? now : Date.parse(head.nextAttemptAt);
      if (dueAt <= now || (pass.ignoreBackoff && !pass.retries.retrying(head))) ready.push(head);
      else if (pass.retries.retrying(head)) wakeAt = Math.min(wakeAt ?? dueAt, dueAt);
    }
    return { ready, wakeAt };
  }

  /** The first unfinished item of each project this pusher sends for. */
  private async heads(): Promise<OutboxItem[]> {
    return (await this.outbox.heads()).filter((head) => this.claims.mine(head.projectId));
  }

  private async idleDelayMs(): Promise<number> {
    const heads = await this.heads();
    const now = this.clock.now();
    let delay = this.idleIntervalMs;
    for (const head of heads) {
      if (head.state !== 'pending' || head.nextAttemptAt === null) continue;
      delay = Math.min(delay, Math.max(0, Date.parse(head.nextAttemptAt) - now));
    }
    return delay;
  }
}
