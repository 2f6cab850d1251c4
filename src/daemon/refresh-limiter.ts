/**
 * Caps the refreshes the realtime channel asks for (data-less events, unparseable messages), so
 * that a flood of them cannot drain the budget: each project may refresh a few times an hour, and
 * past that the project is read once more when its window frees a slot (one deferred pass per
 * project, however many hints came meanwhile).
 */
import type { Clock } from '../domain/index.js';

/** Refreshes one project may make per hour on realtime hints. */
export const DEFAULT_REFRESHES_PER_PROJECT_HOUR = 12;
/** Refreshes of every project (hints that name none) per hour. */
export const DEFAULT_FULL_REFRESHES_PER_HOUR = 4;
/** The sliding window both caps count over. */
export const REFRESH_WINDOW_MS = 60 * 60_000;

/** The key under which refreshes of every project are counted. */
export const EVERY_PROJECT = '*';

/** Counts refreshes per project in a sliding hour. */
export class RefreshLimiter {
  private readonly clock: Clock;
  private readonly perProject: number;
  private readonly full: number;
  private readonly taken = new Map<string, number[]>();

  constructor(clock: Clock, perProjectHour?: number, fullPerHour?: number) {
    this.clock = clock;
    this.perProject = perProjectHour ?? DEFAULT_REFRESHES_PER_PROJECT_HOUR;
    this.full = fullPerHour ?? DEFAULT_FULL_REFRESHES_PER_HOUR;
  }

  /**
   * Takes one refresh of `key` (a project id, or `EVERY_PROJECT`): `true` when it may go now,
   * else the time at which the window frees a slot.
   */
  take(key: string): true | number {
    const now = this.clock.now();
    const times = (this.taken.get(key) ?? []).filter((at) => at > now - REFRESH_WINDOW_MS);
    this.taken.set(key, times);
    const cap = key === EVERY_PROJECT ? this.full : this.perProject;
    if (times.length < cap) {
      times.push(now);
      return true;
    }
    return (times[0] ?? now) + REFRESH_WINDOW_MS;
  }
}
