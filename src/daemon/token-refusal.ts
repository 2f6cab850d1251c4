/**
 * A token the service refuses for good is not a transient fault: this watch tells `/healthz`
 * at the first refusal, and the daemon once every request has been refused for a while.
 */
import type { Clock } from '../domain/index.js';
import type { ResponseMetric } from '../remote/index.js';

/** The listing of the token's projects: a 403 there refuses the token, not one record. */
const TOKEN_ROUTE = 'listProjects';

/** A refusal of the token: a 401 to anything, or a 403 to the listing of its projects. */
function refusesToken(metric: ResponseMetric): boolean {
  return metric.status === 401 || (metric.status === 403 && metric.route === TOKEN_ROUTE);
}

/** One token's run of refusals: since when, and the last one. */
interface Run {
  since: number;
  last: ResponseMetric;
}

/**
 * Watches every response for runs of refusals with no success between, per token (the
 * `token` label of each response). The daemon is refused when every token is: a token refused
 * while others work hands its projects over (`src/tokens`), which `status` shows.
 */
export class TokenRefusalWatch {
  private readonly runs = new Map<string, Run>();
  private reported = false;

  /**
   * `onRefused` is told once, at the first refusal `windowMs` or more after every token's run
   * began. `labels` are the tokens (one unnamed token when absent).
   */
  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
    private readonly onRefused: (reason: string) => void,
    private readonly labels: readonly string[] = [''],
  ) {}

  /** Takes one response of the service. A success (2xx, 304) ends its token's run of refusals. */
  observe(metric: ResponseMetric): void {
    const key = this.labels.length === 1 ? (this.labels[0] as string) : (metric.token ?? '');
    if (refusesToken(metric)) {
      const now = this.clock.now();
      this.runs.set(key, { since: this.runs.get(key)?.since ?? now, last: metric });
      const latest = Math.max(...this.labels.map((label) => this.runs.get(label)?.since ?? now));
      if (!this.reported && this.refused && now - latest >= this.windowMs) {
        this.reported = true;
        this.onRefused(this.reason(now, latest));
      }
    } else if (metric.status >= 200 && metric.status < 400) {
      this.runs.delete(key);
    }
  }

  /** True from a refusal of every token until the next success of one. */
  get refused(): boolean {
    return this.labels.every((label) => this.runs.has(label));
  }

  /** The labels of the tokens refused now. */
  refusedTokens(): string[] {
    return this.labels.filter((label) => this.runs.has(label));
  }

  private reason(now: number, since: number): string {
    const minutes = Math.round((now - since) / 60_000);
    const last = this.runs.get(this.labels[this.labels.length - 1] as string)?.last;
    const answer = last
      ? `last: ${last.route} ${last.status}${last.code ? ` ${last.code}` : ''}`
      : '';
    const whom = this.labels.length > 1 ? `every token (${this.labels.join(', ')})` : 'the token';
    return `the service has refused ${whom} on every request for ${minutes} min (${answer})`;
  }
}
