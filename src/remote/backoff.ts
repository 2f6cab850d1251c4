/** Exponential backoff with full jitter: a delay drawn uniformly below a doubling, capped bound. */

/** The delay before attempt `attempt + 1`, after `attempt` failed ones (1-based). */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number,
): number {
  const bound = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * bound);
}
