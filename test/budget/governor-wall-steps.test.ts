/**
 * The governor under a wall clock that steps: the request windows and a 429's pause are
 * intervals (monotonic), the quota's reset is a wall-clock instant (re-planned on a step).
 */
import { describe, expect, it } from 'vitest';
import { RequestGovernor } from '../../src/budget/index.js';
import { DEFAULT_WALL_CHECK_MS } from '../../src/domain/index.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

/** Starts an acquire and records the monotonic time it resolved at. */
function track(governor: RequestGovernor, clock: FakeClock) {
  const state: { at?: number } = {};
  const promise = governor.acquire('poll').then(() => {
    state.at = clock.monotonic();
  });
  return { state, promise };
}

describe('RequestGovernor under a wall clock that steps', () => {
  it('ends the quota hold within one look at the wall clock when it steps past the reset', async () => {
    const clock = new FakeClock(at('2026-11-21T21:00:00Z'));
    const governor = new RequestGovernor({ clock });
    governor.observe({ status: 200, quotaLimit: 100, quotaRemaining: 0 });
    const waiting = track(governor, clock);
    await clock.advance(HOUR);
    expect(waiting.state.at).toBeUndefined();
    const steppedAt = clock.monotonic();
    clock.stepWall(3 * HOUR); // 22:00 → 01:00: past the reset at midnight
    await clock.advance(DEFAULT_WALL_CHECK_MS);
    await waiting.promise;
    expect(waiting.state.at! - steppedAt).toBeLessThanOrEqual(DEFAULT_WALL_CHECK_MS);
    // The new day's first answer tells the quota: a step back over midnight holds nothing again.
    governor.observe({ status: 200, quotaLimit: 100, quotaRemaining: 99 });
    clock.stepWall(-2 * HOUR);
    expect(governor.readyAt('poll')).toBe(clock.now());
  });

  it('keeps a 429 pause and the request window as long as they were when the clock steps back', async () => {
    const clock = new FakeClock(at('2026-11-21T12:00:00Z'));
    const governor = new RequestGovernor({ clock });
    governor.observe({ status: 429, code: 'rate_limited', retryAfterMs: 30_000 });
    const paused = track(governor, clock);
    const start = clock.monotonic();
    clock.stepWall(-HOUR);
    while (paused.state.at === undefined) {
      if (!(await clock.advanceToNext())) throw new Error('nothing sleeps');
      await flushMicrotasks();
    }
    expect(paused.state.at - start).toBe(30_000);
    expect(governor.snapshot().pausedUntil).toBeUndefined();

    // 59 more fill the window; one hour back, the 61st still waits only for the window.
    const filled = Array.from({ length: 59 }, () => track(governor, clock));
    await Promise.all(filled.map((t) => t.promise));
    const windowFullAt = clock.monotonic();
    clock.stepWall(-HOUR);
    const next = track(governor, clock);
    while (next.state.at === undefined) {
      if (!(await clock.advanceToNext())) throw new Error('nothing sleeps');
      await flushMicrotasks();
    }
    expect(next.state.at - windowFullAt).toBeLessThanOrEqual(60_500);
  });

  it('moves a pause forward with a forward step, so the service is not asked early', () => {
    const clock = new FakeClock(at('2026-11-21T12:00:00Z'));
    const governor = new RequestGovernor({ clock });
    governor.observe({ status: 429, code: 'rate_limited', retryAfterMs: 30_000 });
    clock.stepWall(HOUR);
    expect(governor.readyAt('poll') - clock.now()).toBe(30_000);
  });
});
