/**
 * Caps the refreshes the realtime channel asks for, so that a flood of messages cannot drain the
 * budget. A hint (a message that says nothing usable, so the whole project is read again) may
 * cause one pass of its project every ten minutes, and a hint naming no project one reconcile
 * every fifteen; data-less events (a real reading of the channel, answered with the smallest
 * read) may cause a dozen refreshes of a project an hour. Past a cap the project is read once
 * more when its slot frees: a flood degrades to one deferred pass per project.
 */
import type { Clock } from '../domain/index.js';

/** Passes one project may get from hints: one per this interval. */
export const HINT_REFRESH_SPACING_MS = 10 * 60_000;
/** Reconciles of every project that hints naming none may cause: one per this interval. */
export const HINT_RECONCILE_SPACING_MS = 15 * 60_000;
/** Refreshes one project may make per hour on data-less events. */
export const DEFAULT_REFRESHES_PER_PROJECT_HOUR = 12;
/** The sliding window the data-less-event cap counts over. */
export const REFRESH_WINDOW_MS = 60 * 60_000;

/** The key under which refreshes of every project are counted. */
export const EVERY_PROJECT = '*';

/** What asked for a refresh. */
export type RefreshCause = 'hint' | 'event';

/** Counts refreshes per project (and for every project). */
export class RefreshLimiter {
  private readonly clock: Clock;
  private readonly perProjectHour: number;
  private readonly lastHint = new Map<string, number>();
  private readonly events = new Map<string, number[]>();

  constructor(clock: Clock, perProjectHour?: number) {
    this.clock = clock;
    this.perProjectHour = perProjectHour ?? DEFAULT_REFRESHES_PER_PROJECT_HOUR;
  }

  /**
   * Takes one refresh of `key` (a project id, or `EVERY_PROJECT` for hints naming none): `true`
   * when it may go now, else the time at which it may.
   */
  take(key: string, cause: RefreshCause): true | number {
    return cause === 'hint' || key === EVERY_PROJECT ? this.takeHint(key) : this.takeEvent(key);
  }

  private takeHint(key: string): true | number {
    const now = this.clock.now();
    const spacing = key === EVERY_PROJECT ? HINT_RECONCILE_SPACING_MS : HINT_REFRESH_SPACING_MS;
    const last = this.lastHint.get(key);
    if (last !== undefined && now < last + spacing) return last + spacing;
    this.lastHint.set(key, now);
    return true;
  }

  private takeEvent(key: string): true | number {
    const now = this.clock.now();
    const times = (this.events.get(key) ?? []).filter((at) => at > now - REFRESH_WINDOW_MS);
    this.events.set(key, times);
    if (times.length < this.perProjectHour) {
      times.push(now);
      return true;
    }
    return (times[0] ?? now) + REFRESH_WINDOW_MS;
  }
}
