/** A manual clock for the simulated day of benchmark 6: time moves only when the benchmark steps it. */
import type { Clock } from '../src/domain/index.js';

interface Sleeper {
  wakeAt: number;
  resolve: () => void;
}

/** A `Clock` whose sleeps resolve only when `stepTo` passes their wake-up time. */
export class StepClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];

  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        reject(signal?.reason as Error);
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
    let next: number | undefined;
    for (const sleeper of this.sleepers) {
      if (next === undefined || sleeper.wakeAt < next) next = sleeper.wakeAt;
    }
    return next;
  }

  /** Moves time to `target` (never back), waking every sleeper due by then at once. */
  stepTo(target: number): void {
    this.current = Math.max(this.current, target);
    const due = this.sleepers.filter((sleeper) => sleeper.wakeAt <= this.current);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.wakeAt > this.current);
    for (const sleeper of due) sleeper.resolve();
  }
}
