/**
 * A token the service refuses for good is not a transient fault: this watch tells `/healthz`
 * at the first refusal, and the daemon once every request has been refused for a while.
 */
import type { Clock } from '../domain/index.js';
import type { ResponseMetric } from '../remote/index.js';

/** The listing of the token's projects: a 403 there refuses the token, not one record. */
const TOKEN_ROUTE = 'listProjects';

/** A refusal of the token: a 401 to anything, or a 403 to the listing of its projects. */
export function refusesToken(metric: ResponseMetric): boolean {
  return metric.status === 401 || (metric.status === 403 && metric.route === TOKEN_ROUTE);
}

/** Watches every response for a run of refusals with no success between. */
export class TokenRefusalWatch {
  private since: number | undefined;
  private last: ResponseMetric | undefined;
  private reported = false;

  /** `onRefused` is told once, at the first refusal `windowMs` or more after the run began. */
  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
    private readonly onRefused: (reason: string) => void,
  ) {}

  /** Takes one response of the service. A success (2xx, 304) ends a run of refusals. */
  observe(metric: ResponseMetric): void {
    if (refusesToken(metric)) {
      const now = this.clock.now();
      this.since ??= now;
      this.last = metric;
      if (!this.reported && now - this.since >= this.windowMs) {
        this.reported = true;
        this.onRefused(this.reason(now));
      }
    } else if (metric.status >= 200 && metric.status < 400) {
      this.since = undefined;
    }
  }

  /** True from a refusal until the next success. */
  get refused(): boolean {
    return this.since !== undefined;
  }

  private reason(now: number): string {
    const minutes = Math.round((now - (this.since ?? now)) / 60_000);
    const last = this.last;
    const answer = last
      ? `last: ${last.route} ${last.status}${last.code ? ` ${last.code}` : ''}`
      : '';
    return `the service has refused the token on every request for ${minutes} min (${answer})`;
  }
}
