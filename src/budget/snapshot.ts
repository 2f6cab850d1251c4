/** What the governor knows, as the daemon persists it and `status` shows it. */
export interface BudgetSnapshot {
  /** The daily quota, from the last `X-Quota-Limit`. */
  quotaLimit?: number;
  /** Requests left today: the last `X-Quota-Remaining`, less requests sent since. */
  quotaRemaining?: number;
  /** When the daily quota resets, when the service told us (a `quota_exceeded` 429). */
  quotaResetAt?: number;
  /** No request is sent before this time (a 429's `Retry-After`); absent when not paused. */
  pausedUntil?: number;
  /** Requests sent within the current burst window. */
  sentInWindow: number;
  /** Requests sent since the governor started (plus those of a restored snapshot). */
  sentTotal: number;
  /** When the last response was observed. */
  observedAt?: number;
  /** When this snapshot was taken. */
  takenAt: number;
}
