/**
 * When an item that failed transiently (5xx, network error, dropped connection, malformed answer
 * to a create) is tried again. Within one run it is retried after the shared exponential backoff
 * until its next try would start a retry window after its first failure in that run; then it is
 * left pending for a later run, due after the backoff of all its attempts so far.
 */
import { backoffDelayMs, type BackoffPolicy } from '../domain/backoff.js';
import type { OutboxItem } from './item.js';

/** How long one run keeps retrying an item after its first transient failure. */
export const DEFAULT_ITEM_RETRY_WINDOW_MS = 2 * 60 * 1_000;
/** The ceiling of the wait after an item's first transient failure; it doubles per failure. */
export const DEFAULT_BACKOFF_BASE_MS = 1_000;
/** The longest wait between two tries of one item. */
export const DEFAULT_BACKOFF_MAX_MS = 5 * 60 * 1_000;

/** When a failed item is due again, and whether the run that saw it fail will try it then. */
export interface RetryPlan {
  dueAt: number;
  withinRun: boolean;
}

/** The retries of one run: each failing item's first failure and its failures since. */
export class RunRetries {
  private readonly items = new Map<number, { since: number; failures: number }>();

  constructor(
    private readonly backoff: BackoffPolicy,
    private readonly windowMs: number,
  ) {}

  /** Records a transient failure of `item` at `now` and plans its next try. */
  failed(item: OutboxItem, now: number): RetryPlan {
    const entry = this.items.get(item.id) ?? { since: now, failures: 0 };
    entry.failures += 1;
    const dueAt = now + backoffDelayMs(entry.failures, this.backoff);
    if (dueAt - entry.since < this.windowMs) {
      this.items.set(item.id, entry);
      return { dueAt, withinRun: true };
    }
    this.items.delete(item.id);
    return { dueAt: now + backoffDelayMs(item.attempts, this.backoff), withinRun: false };
  }

  /** True while this run will try `item` again when it is due. */
  retrying(item: OutboxItem): boolean {
    return this.items.has(item.id);
  }
}
