/**
 * A rolling-window limiter: at most `limit` slots in any `windowMs`, each slot counted when it is
 * taken. Slots are kept as timestamps; a slot taken at `t` frees at `t + windowMs + slackMs`.
 */

/** Counts requests taken within a rolling window; may be shared by several governors (per IP). */
export class RollingWindow {
  private readonly stamps: number[] = [];

  constructor(
    /** Most slots allowed in any window. */
    readonly limit: number,
    /** Length of the window. */
    readonly windowMs: number,
    /** Extra time a slot is held past the window, covering clock and transit skew. */
    readonly slackMs = 0,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`window limit ${limit} < 1`);
  }

  /** Slots still held at `now`. */
  count(now: number): number {
    this.prune(now);
    return this.stamps.length;
  }

  /** When the next slot frees: `now` when one is free already. */
  freeAt(now: number): number {
    this.prune(now);
    if (this.stamps.length < this.limit) return now;
    const oldest = this.stamps[this.stamps.length - this.limit] ?? now;
    return oldest + this.windowMs + this.slackMs;
  }

  /** Takes one slot at `now` (the caller checked `freeAt(now) <= now`). */
  take(now: number): void {
    let at = this.stamps.length;
    while (at > 0 && (this.stamps[at - 1] ?? now) > now) at -= 1;
    this.stamps.splice(at, 0, now);
  }

  private prune(now: number): void {
    const horizon = now - this.windowMs - this.slackMs;
    let drop = 0;
    while (drop < this.stamps.length && (this.stamps[drop] ?? now) <= horizon) drop += 1;
    if (drop > 0) this.stamps.splice(0, drop);
  }
}
