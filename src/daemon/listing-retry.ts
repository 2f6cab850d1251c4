/**
 * A reconcile whose listing failed, run again with the failed-pass backoff until one lists: the
 * projects a mirror does not know yet (all of them, on a new mirror) would otherwise wait for the
 * daily reconcile, since the poll schedule only retries the projects it knows.
 */
import { backoffDelayMs } from '../domain/backoff.js';
import type { Clock } from '../domain/index.js';
import {
  FAILED_PASS_BACKOFF_BASE_MS,
  FAILED_PASS_BACKOFF_MAX_MS,
  FAILED_PASS_MIN_RETRY_MS,
} from './poll-scheduler.js';

/** Schedules the next reconcile after failed listings; one waits at a time. */
export class ListingRetry {
  private failures = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number,
    /** Runs the reconcile again; the returned promise is tracked by `track`. */
    private readonly reconcile: (signal: AbortSignal) => Promise<unknown>,
    private readonly track: (work: Promise<void>) => void,
  ) {}

  /** A listing failed: the reconcile runs again after the backoff (unless one already waits). */
  failed(signal: AbortSignal): void {
    this.failures += 1;
    if (this.pending !== undefined) return;
    const policy = {
      baseMs: FAILED_PASS_BACKOFF_BASE_MS,
      maxMs: FAILED_PASS_BACKOFF_MAX_MS,
      random: this.random,
    };
    const delay = Math.max(FAILED_PASS_MIN_RETRY_MS, backoffDelayMs(this.failures, policy));
    this.pending = this.clock.sleep(delay, signal).then(async () => {
      this.pending = undefined;
      await this.reconcile(signal);
    });
    this.track(this.pending);
  }

  /** A listing succeeded: the backoff starts over. */
  succeeded(): void {
    this.failures = 0;
  }
}
