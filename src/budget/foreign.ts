/**
 * Notices other clients sharing the token: when `X-Quota-Remaining` falls faster than our own
 * requests explain, the difference is someone else's use, as a rate the plan subtracts.
 */

/** How far back the estimate looks. */
export const DEFAULT_FOREIGN_WINDOW_MS = 60 * 60 * 1000;

interface Sample {
  at: number;
  remaining: number;
  ownSent: number;
}

/** Estimates other clients' request rate on the same token. */
export class ForeignUseEstimator {
  private readonly windowMs: number;
  private samples: Sample[] = [];

  constructor(windowMs = DEFAULT_FOREIGN_WINDOW_MS) {
    this.windowMs = windowMs;
  }

  /** Records the service's remaining count at `at`, and how many requests we had sent by then. */
  observe(at: number, remaining: number, ownSent: number): void {
    const last = this.samples[this.samples.length - 1];
    // A rise in remaining is a quota reset: start over.
    if (last && remaining > last.remaining) this.samples = [];
    this.samples.push({ at, remaining, ownSent });
    const horizon = at - this.windowMs;
    while (this.samples.length > 2 && (this.samples[1]?.at ?? at) <= horizon) this.samples.shift();
  }

  /** Others' requests per hour over the window, 0 when they spent nothing. */
  ratePerHour(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at <= first.at) return 0;
    const spent = first.remaining - last.remaining;
    const own = last.ownSent - first.ownSent;
    const foreign = Math.max(0, spent - own);
    return (foreign * 3_600_000) / (last.at - first.at);
  }
}
