import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, type RequestPurpose } from '../../src/domain/index.js';
import {
  RequestGovernor,
  RollingWindow,
  nextReset,
  type BudgetSnapshot,
} from '../../src/budget/index.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';

/** Starts an acquire and records when (on the fake clock) it resolved. */
function track(governor: RequestGovernor, clock: FakeClock, purpose: RequestPurpose = 'poll') {
  const state: { at?: number; error?: unknown } = {};
  const promise = governor.acquire(purpose).then(
    () => {
      state.at = clock.now();
    },
    (error: unknown) => {
      state.error = error;
    },
  );
  return { state, promise };
}

/** The largest number of times falling in any half-open window [t, t + windowMs). */
function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    const start = sorted[i]!;
    max = Math.max(max, sorted.filter((t) => t >= start && t < start + windowMs).length);
  }
  return max;
}

async function runAll(clock: FakeClock, pending: () => boolean): Promise<void> {
  await flushMicrotasks();
  while (pending()) {
    if (!(await clock.advanceToNext())) throw new Error('acquires pending but nothing sleeps');
  }
}

describe('RequestGovernor windows', () => {
  it('never lets more than 60 requests into any 60 s window', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const governor = new RequestGovernor({ clock });
    const tracked = Array.from({ length: 150 }, () => track(governor, clock));
    await runAll(clock, () => tracked.some((t) => t.state.at === undefined));
    const times = tracked.map((t) => t.state.at!);
    expect(maxInWindow(times, 60_000)).toBe(60);
    expect(times.filter((t) => t === start)).toHaveLength(60);
    // The 61st goes as soon as the first slot leaves the window (plus the slack).
    expect(Math.max(...times)).toBe(start + 2 * 60_500);
  });

  it('keeps several tokens sharing one IP under the per-IP limit', async () => {
    const clock = new FakeClock();
    const ipWindow = new RollingWindow(300, 60_000);
    const governors = Array.from({ length: 6 }, () => new RequestGovernor({ clock, ipWindow }));
    const tracked = governors.flatMap((g) => Array.from({ length: 70 }, () => track(g, clock)));
    await runAll(clock, () => tracked.some((t) => t.state.at === undefined));
    const times = tracked.map((t) => t.state.at!);
    expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(300);
    expect(times.filter((t) => t === times[0])).toHaveLength(300);
  });
});

describe('RequestGovernor 429 pauses', () => {
  it('pauses every pending and future acquire until Retry-After has passed', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const governor = new RequestGovernor({ clock, burstLimit: 2 });
    await governor.acquire('poll');
    await governor.acquire('poll');
    const waiting = track(governor, clock, 'push'); // waits for a burst slot
    governor.observe({ status: 429, retryAfterMs: 90_000, code: 'rate_limited' });
    const later = track(governor, clock, 'refresh');
    await clock.advance(89_999);
    expect(waiting.state.at).toBeUndefined();
    expect(later.state.at).toBeUndefined();
    await clock.advance(1);
    expect(waiting.state.at).toBe(start + 90_000);
    expect(later.state.at).toBe(start + 90_000);
    expect(governor.snapshot().pausedUntil).toBeUndefined();
  });

  it('never shortens a pause with a later, shorter Retry-After', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock });
    governor.observe({ status: 429, retryAfterMs: 60_000 });
    governor.observe({ status: 429, retryAfterMs: 1_000 });
    expect(governor.snapshot().pausedUntil).toBe(clock.now() + 60_000);
  });
});

describe('RequestGovernor quota', () => {
  it('learns the quota from the headers and counts requests sent since', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock });
    expect(governor.snapshot().quotaLimit).toBeUndefined();
    governor.observe({ status: 200, quotaLimit: 5000, quotaRemaining: 4200 });
    await governor.acquire('poll');
    await governor.acquire('push');
    expect(governor.snapshot()).toMatchObject({
      quotaLimit: 5000,
      quotaRemaining: 4198,
      sentTotal: 2,
      sentInWindow: 2,
      observedAt: clock.now(),
    });
    governor.observe({ status: 304, quotaLimit: 5000, quotaRemaining: 4199 });
    expect(governor.snapshot().quotaRemaining).toBe(4199);
  });

  it('keeps polls back at the reserve but lets pushes and refreshes through', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock, reserve: 10 });
    governor.observe({ status: 200, quotaLimit: 5000, quotaRemaining: 10 });
    const poll = track(governor, clock, 'poll');
    await governor.acquire('push');
    await governor.acquire('refresh');
    await flushMicrotasks();
    expect(poll.state.at).toBeUndefined();
    expect(governor.snapshot().quotaRemaining).toBe(8);
    const midnight = nextReset(clock.now());
    await clock.advance(midnight - clock.now() - 1);
    expect(poll.state.at).toBeUndefined();
    await clock.advance(1);
    expect(poll.state.at).toBe(midnight);
  });

  it('keeps a fifth of the learned quota in reserve by default', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock, maxWaitMs: 0 });
    governor.observe({ status: 200, quotaLimit: 5000, quotaRemaining: 1001 });
    await governor.acquire('poll');
    await expect(governor.acquire('poll')).rejects.toThrow(
      /quota down to the reserve kept for pushes and refreshes \(1000 of 5000 requests left today\)/,
    );
    await governor.acquire('push');
  });

  it('wakes a held poll as soon as a response shows the quota was reset', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock, reserve: 10 });
    governor.observe({ status: 200, quotaLimit: 5000, quotaRemaining: 3 });
    const poll = track(governor, clock, 'poll');
    await clock.advance(1_000);
    expect(poll.state.at).toBeUndefined();
    governor.observe({ status: 200, quotaLimit: 5000, quotaRemaining: 5000 });
    await flushMicrotasks();
    expect(poll.state.at).toBe(clock.now());
  });

  it('holds every purpose when the quota is spent', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock, maxWaitMs: 60_000 });
    governor.observe({ status: 200, quotaLimit: 5000, quotaRemaining: 0 });
    await expect(governor.acquire('push')).rejects.toThrow(/daily quota spent \(0 of 5000/);
  });
});

describe('RequestGovernor maxWaitMs', () => {
  it('rejects with BudgetExhaustedError and the reset time after quota_exceeded', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock, maxWaitMs: 120_000 });
    const resetAt = clock.now() + 5 * 3_600_000;
    governor.observe({ status: 429, retryAfterMs: resetAt - clock.now(), code: 'quota_exceeded' });
    const error = await governor.acquire('push').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect((error as BudgetExhaustedError).resumeAt).toBe(resetAt);
    expect((error as Error).message).toMatch(/HTTP 429 quota_exceeded; requests resume at /);
    expect(governor.snapshot()).toMatchObject({ quotaRemaining: 0, quotaResetAt: resetAt });
    expect(clock.pendingSleeps).toBe(0);
  });

  it('waits when the wait is within maxWaitMs and rejects when it is not', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock, burstLimit: 1, maxWaitMs: 60_500 });
    await governor.acquire('poll');
    const second = track(governor, clock);
    await runAll(clock, () => second.state.at === undefined);
    expect(second.state.at).toBe(clock.now());
    const strict = new RequestGovernor({ clock, burstLimit: 1, maxWaitMs: 1_000 });
    await strict.acquire('poll');
    const error = await strict.acquire('poll').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect((error as BudgetExhaustedError).resumeAt).toBe(clock.now() + 60_500);
  });
});

describe('RequestGovernor lifecycle', () => {
  it('rejects a waiting acquire with the abort reason and leaves no sleeper', async () => {
    const clock = new FakeClock();
    const governor = new RequestGovernor({ clock });
    governor.observe({ status: 429, retryAfterMs: 60_000 });
    const controller = new AbortController();
    const pending = governor.acquire('poll', controller.signal);
    await flushMicrotasks();
    expect(clock.pendingSleeps).toBe(1);
    controller.abort(new Error('stopping'));
    await expect(pending).rejects.toThrow('stopping');
    expect(clock.pendingSleeps).toBe(0);
  });

  it('reports every change and resumes from a persisted snapshot', async () => {
    const clock = new FakeClock();
    const saved: BudgetSnapshot[] = [];
    const governor = new RequestGovernor({ clock, onChange: (s) => saved.push(s) });
    await governor.acquire('poll');
    governor.observe({ status: 429, retryAfterMs: 30_000, quotaLimit: 5000, quotaRemaining: 7 });
    expect(saved).toHaveLength(2);
    const last = saved.at(-1)!;
    expect(last).toMatchObject({
      sentTotal: 1,
      sentInWindow: 1,
      pausedUntil: clock.now() + 30_000,
    });

    const restarted = new RequestGovernor({ clock, burstLimit: 2, restore: last });
    expect(restarted.snapshot()).toMatchObject({ quotaRemaining: 7, sentTotal: 1 });
    const next = track(restarted, clock, 'push');
    await clock.advance(29_999);
    expect(next.state.at).toBeUndefined();
    await clock.advance(1);
    expect(next.state.at).toBe(clock.now());
    // The restored slot plus this one fill the window of two.
    expect(restarted.snapshot().sentInWindow).toBe(2);
  });
});
