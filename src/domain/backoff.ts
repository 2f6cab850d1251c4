/**
 * The one backoff policy: exponential with full jitter. Each user (the client's read retries, the
 * outbox, the realtime reconnect) keeps its own base and cap, named with units, beside its code.
 */

/** A backoff policy, resolved: the first ceiling, the cap, and the jitter source. */
export interface BackoffPolicy {
  /** The ceiling of the delay after the first failure. */
  baseMs: number;
  /** No ceiling (so no delay) exceeds this. */
  maxMs: number;
  /** A number in [0, 1); `Math.random` outside tests. */
  random: () => number;
}

/** Doublings past which the ceiling is the cap whatever the base (and 2 ** n stays finite). */
const MAX_DOUBLINGS = 52;

/** The ceiling of the delay after `failures` failed tries: `baseMs` doubled per failure, capped. */
export function backoffCeilingMs(failures: number, policy: BackoffPolicy): number {
  const doublings = Math.max(0, Math.min(failures - 1, MAX_DOUBLINGS));
  return Math.min(Math.max(policy.baseMs, policy.maxMs), policy.baseMs * 2 ** doublings);
}

/**
 * The delay before the next try after `failures` failed ones (1 for the first): drawn uniformly
 * below the ceiling ("full jitter"), so that clients failing together do not retry in step.
 */
export function backoffDelayMs(failures: number, policy: BackoffPolicy): number {
  return Math.floor(policy.random() * backoffCeilingMs(failures, policy));
}
