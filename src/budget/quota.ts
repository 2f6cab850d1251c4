/**
 * What the service tells us about the token's budget: the daily quota learned from the
 * `X-Quota-*` headers, the reset time learned from a `quota_exceeded` 429, and the pause that
 * any 429 imposes on the whole token.
 */
import type { BudgetObservation } from '../domain/index.js';

/** A reason to hold requests back, and until when. */
export interface Hold {
  until: number;
  reason: string;
}

/** The learned quota and pause of one token. */
export class QuotaState {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: number | undefined;
  observedAt: number | undefined;
  pausedUntil: number | undefined;
  private pauseReason = 'paused by the service';

  constructor(private readonly assumeResetAt: (observedAt: number) => number) {}

  /** Learns from one response observed at `now`. */
  learn(observation: BudgetObservation, now: number): void {
    if (this.resetAt !== undefined && this.resetAt <= now) this.resetAt = undefined;
    if (isCount(observation.quotaLimit)) this.limit = observation.quotaLimit;
    if (isCount(observation.quotaRemaining)) this.remaining = observation.quotaRemaining;
    this.observedAt = now;
    if (observation.status === 429) this.learnPause(observation, now);
  }

  /** Counts one request sent at `now` against the remaining quota (until the next response). */
  spend(now: number): void {
    if (this.remaining !== undefined && this.quotaResetTime() > now) {
      this.remaining = Math.max(0, this.remaining - 1);
    }
  }

  /** The pause in force at `now`, if any. */
  pause(now: number): Hold | undefined {
    if (this.pausedUntil === undefined || this.pausedUntil <= now) return undefined;
    return { until: this.pausedUntil, reason: this.pauseReason };
  }

  /** Holds requests while the quota is at or below `floor`, until the reset; none once it passed. */
  quotaHold(now: number, floor: number, reason: string): Hold | undefined {
    if (this.remaining === undefined || this.remaining > floor) return undefined;
    const until = this.quotaResetTime();
    if (until <= now) return undefined;
    const of = this.limit === undefined ? '' : ` of ${this.limit}`;
    return { until, reason: `${reason} (${this.remaining}${of} requests left today)` };
  }

  /**
   * The wall clock stepped by `stepMs`: the pause and a reset learned from a `Retry-After` are
   * durations the service gave, so they move with it; a reset assumed at midnight stays put.
   */
  wallStepped(stepMs: number): void {
    if (this.pausedUntil !== undefined) this.pausedUntil += stepMs;
    if (this.resetAt !== undefined) this.resetAt += stepMs;
  }

  private learnPause(observation: BudgetObservation, now: number): void {
    const until = now + Math.max(0, observation.retryAfterMs ?? 0);
    if (this.pausedUntil === undefined || until > this.pausedUntil) {
      this.pausedUntil = until;
      this.pauseReason = `paused by the service after HTTP 429${observation.code ? ` ${observation.code}` : ''}`;
    }
    if (observation.code === 'quota_exceeded') {
      this.remaining = 0;
      this.resetAt = until;
    }
  }

  private quotaResetTime(): number {
    return this.resetAt ?? this.assumeResetAt(this.observedAt ?? 0);
  }
}

function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0;
}
