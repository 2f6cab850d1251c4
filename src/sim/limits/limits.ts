/**
 * The service's limits (spec sections 7 and 8): a per-token burst over a rolling window, a
 * per-token daily quota, and a per-IP fallback shared by every token used from that IP.
 *
 * Counting: a request refused with 429 counts against no limit. A request that passes the IP
 * check counts against its IP (even when it then fails authentication); an authenticated request
 * that passes the token checks counts against the token's burst window and daily quota. Health
 * checks, CORS preflights and paths that match no operation are never counted.
 */
import type { Clock } from '../../domain/index.js';
import { SimError } from '../errors.js';
import { RollingWindow } from './rolling-window.js';

/** The limits in force; `Infinity` turns a single limit off. */
export interface LimitSettings {
  /** False turns every limit off (and the quota headers with them). */
  enabled: boolean;
  burst: number;
  burstWindowMs: number;
  quota: number;
  /** The length of the quota "day". */
  dayMs: number;
  /** An instant at which a quota day starts; days follow each other from there. */
  dayEpochMs: number;
  ipLimit: number;
  ipWindowMs: number;
}

/** Where a token stands against its limits. */
export interface TokenUsage {
  burstUsed: number;
  quotaUsed: number;
  quotaRemaining: number;
  /** When the current quota day ends (ms since the epoch). */
  resetAt: number;
}

const MS_PER_SECOND = 1_000;

/** Decides whether a request may proceed and keeps the counts. */
export class Limits {
  private readonly burstWindow: RollingWindow;
  private readonly ipWindow: RollingWindow;
  private readonly quotaUse = new Map<string, { day: number; used: number }>();
  /** The most requests one IP had within one window, for tests of the per-IP limit. */
  private ipPeakCount = 0;

  constructor(
    readonly settings: LimitSettings,
    private readonly clock: Clock,
  ) {
    this.burstWindow = new RollingWindow(settings.burstWindowMs);
    this.ipWindow = new RollingWindow(settings.ipWindowMs);
  }

  /** The 429 refusing a request from `ip`, if its window is full. */
  checkIp(ip: string): SimError | undefined {
    const { enabled, ipLimit, ipWindowMs } = this.settings;
    if (!enabled || this.ipWindow.count(ip, this.clock.now()) < ipLimit) return undefined;
    return new SimError(
      429,
      'ip_rate_limited',
      `more than ${ipLimit} requests in ${ipWindowMs / MS_PER_SECOND} s from this IP`,
      { 'Retry-After': String(Math.ceil(ipWindowMs / MS_PER_SECOND)) },
    );
  }

  /** Counts one request from `ip`. */
  countIp(ip: string): void {
    if (!this.settings.enabled) return;
    const now = this.clock.now();
    this.ipWindow.record(ip, now);
    this.ipPeakCount = Math.max(this.ipPeakCount, this.ipWindow.count(ip, now));
  }

  /** The most requests one IP had within one window so far. */
  ipPeak(): number {
    return this.ipPeakCount;
  }

  /** The 429 refusing a request of the token `hash` (quota first, then burst), if any. */
  checkToken(hash: string): SimError | undefined {
    const { enabled, quota, burst, burstWindowMs } = this.settings;
    if (!enabled) return undefined;
    const usage = this.usage(hash);
    if (usage.quotaUsed >= quota) {
      return new SimError(429, 'quota_exceeded', `more than ${quota} requests today`, {
        ...this.quotaHeaders(hash),
        'Retry-After': httpDate(usage.resetAt),
      });
    }
    if (usage.burstUsed >= burst) {
      return new SimError(
        429,
        'rate_limited',
        `more than ${burst} requests in ${burstWindowMs / MS_PER_SECOND} s`,
        {
          ...this.quotaHeaders(hash),
          'Retry-After': String(Math.ceil(burstWindowMs / MS_PER_SECOND)),
        },
      );
    }
    return undefined;
  }

  /** Counts one request of the token `hash` against its burst window and daily quota. */
  countToken(hash: string): void {
    if (!this.settings.enabled) return;
    const now = this.clock.now();
    this.burstWindow.record(hash, now);
    const day = this.dayIndex(now);
    const use = this.quotaUse.get(hash);
    if (use === undefined || use.day !== day) this.quotaUse.set(hash, { day, used: 1 });
    else use.used += 1;
  }

  /** `X-Quota-Limit` and `X-Quota-Remaining` for the token (none when the quota is off). */
  quotaHeaders(hash: string): Record<string, string> {
    const { enabled, quota } = this.settings;
    if (!enabled || !Number.isFinite(quota)) return {};
    return {
      'X-Quota-Limit': String(quota),
      'X-Quota-Remaining': String(this.usage(hash).quotaRemaining),
    };
  }

  /** Where the token stands now. */
  usage(hash: string): TokenUsage {
    const now = this.clock.now();
    const day = this.dayIndex(now);
    const use = this.quotaUse.get(hash);
    const quotaUsed = use !== undefined && use.day === day ? use.used : 0;
    return {
      burstUsed: this.burstWindow.count(hash, now),
      quotaUsed,
      quotaRemaining: Math.max(0, this.settings.quota - quotaUsed),
      resetAt: this.settings.dayEpochMs + (day + 1) * this.settings.dayMs,
    };
  }

  /** Forgets every count. */
  reset(): void {
    this.burstWindow.clear();
    this.ipWindow.clear();
    this.quotaUse.clear();
    this.ipPeakCount = 0;
  }

  private dayIndex(now: number): number {
    return Math.floor((now - this.settings.dayEpochMs) / this.settings.dayMs);
  }
}

/** An HTTP date no earlier than `time` (rounded up to the second, so nobody retries early). */
export function httpDate(time: number): string {
  return new Date(Math.ceil(time / MS_PER_SECOND) * MS_PER_SECOND).toUTCString();
}
