/** A per-key count of events over a rolling time window (the burst and per-IP limits). */

/** Counts, for each key, the events of the last `windowMs` milliseconds. */
export class RollingWindow {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly windowMs: number) {}

  /** How many events `key` had in the window ending at `now`. */
  count(key: string, now: number): number {
    const times = this.hits.get(key);
    if (times === undefined) return 0;
    const firstLive = times.findIndex((time) => time > now - this.windowMs);
    if (firstLive < 0) {
      this.hits.delete(key);
      return 0;
    }
    if (firstLive > 0) times.splice(0, firstLive);
    return times.length;
  }

  /** Records one event of `key` at `now`. */
  record(key: string, now: number): void {
    const times = this.hits.get(key);
    if (times === undefined) this.hits.set(key, [now]);
    else times.push(now);
  }

  /** Forgets every event. */
  clear(): void {
    this.hits.clear();
  }
}
