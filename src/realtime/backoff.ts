/** Exponential backoff with full jitter for reconnecting. */

/** The first reconnect waits up to this long. */
export const DEFAULT_RECONNECT_BASE_MS = 1_000;
/** No reconnect waits longer than this. */
export const DEFAULT_RECONNECT_MAX_MS = 60_000;

/** Options of `Backoff`; `random` returns a number in [0, 1) and is injectable for tests. */
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  random?: () => number;
}

/**
 * Delays for successive failed attempts: attempt n waits a uniform random time in
 * [0, min(max, base * 2^n)) ("full jitter"), so many clients never retry in step.
 */
export class Backoff {
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;
  private attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? DEFAULT_RECONNECT_BASE_MS;
    this.maxMs = Math.max(this.baseMs, options.maxMs ?? DEFAULT_RECONNECT_MAX_MS);
    this.random = options.random ?? Math.random;
  }

  /** The number of failed attempts since the last reset. */
  get failures(): number {
    return this.attempt;
  }

  /** The ceiling of the next delay, without consuming an attempt. */
  get nextCeilingMs(): number {
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.attempt, 52));
  }

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const delay = Math.floor(this.random() * this.nextCeilingMs);
    this.attempt += 1;
    return delay;
  }

  /** Starts over from the base delay, after a connection that stayed up. */
  reset(): void {
    this.attempt = 0;
  }
}
