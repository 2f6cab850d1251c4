/**
 * A clock whose time moves only when its owner moves it: the tests' and the benchmarks' way to
 * run quota days, backoff and schedules in milliseconds against the real engines.
 */
import type { Clock } from './clock.js';

interface Sleeper {
  wakeAt: number;
  resolve: () => void;
}

/**
 * A `Clock` whose `sleep` resolves only when `advance` or `stepTo` passes its wake-up time.
 * `advance` and `stepTo` move both readings; `stepWall` moves the wall clock alone, as NTP or a
 * resumed VM does. Wake-up times (`nextWakeAt`, `stepTo`'s target) are on the monotonic reading,
 * which starts equal to the wall one: until the wall is stepped, the two read the same.
 */
export class ManualClock implements Clock {
  private current: number;
  /** How far the wall clock has been stepped away from the monotonic one. */
  private wallOffsetMs = 0;
  private sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 10, 21, 0, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current + this.wallOffsetMs;
  }

  monotonic(): number {
    return this.current;
  }

  /** Steps the wall clock by `deltaMs` (negative: back), leaving monotonic time and sleeps alone. */
  stepWall(deltaMs: number): void {
    this.wallOffsetMs += deltaMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        reject(signal?.reason);
      };
      const sleeper: Sleeper = {
        wakeAt: this.current + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** How many sleeps are pending. */
  get pendingSleeps(): number {
    return this.sleepers.length;
  }

  /** The earliest pending wake-up time, if any. */
  get nextWakeAt(): number | undefined {
    return this.sleepers.reduce<number | undefined>(
      (min, sleeper) => (min === undefined || sleeper.wakeAt < min ? sleeper.wakeAt : min),
      undefined,
    );
  }

  /** Moves time forward by `ms`, waking every sleeper due, in order, letting each one run. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const due = this.sleepers
        .filter((sleeper) => sleeper.wakeAt <= target)
        .sort((a, b) => a.wakeAt - b.wakeAt)[0];
      if (!due) break;
      this.current = Math.max(this.current, due.wakeAt);
      this.sleepers = this.sleepers.filter((other) => other !== due);
      due.resolve();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** Advances to the next pending wake-up; returns false when nothing sleeps. */
  async advanceToNext(): Promise<boolean> {
    const next = this.nextWakeAt;
    if (next === undefined) return false;
    await this.advance(next - this.current);
    return true;
  }

  /** Moves monotonic time to `target` (never back) and wakes every sleeper due by then at once. */
  stepTo(target: number): void {
    this.current = Math.max(this.current, target);
    const due = this.sleepers.filter((sleeper) => sleeper.wakeAt <= this.current);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.wakeAt > this.current);
    for (const sleeper of due) sleeper.resolve();
  }
}

/** Lets pending promise callbacks (and one macrotask turn) run. */
export async function flushMicrotasks(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}
