/** How long an item waits before its next try after a retryable failure. */

/** The wait after the first failed try. */
export const DEFAULT_BACKOFF_BASE_MS = 1_000;
/** The longest wait between two tries of one item. */
export const DEFAULT_BACKOFF_MAX_MS = 5 * 60 * 1_000;

/** The backoff policy, resolved. */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** A number in [0, 1); `Math.random` outside tests. */
  random: () => number;
}

/**
 * The wait after the `attempts`-th failed try: exponential from `baseMs`, capped at `maxMs`, with
 * "equal jitter" (between half and all of it) so that items failing together spread out.
 */
export function backoffDelayMs(attempts: number, policy: BackoffPolicy): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (policy.random() * ceiling) / 2);
}
