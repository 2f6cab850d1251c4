import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { planDay, type DailyPlan } from '../../src/budget/plan.js';
import { PollScheduler } from '../../src/daemon/poll-scheduler.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';

const HOUR = 3_600_000;

function fixedPlan(clock: FakeClock, intervalMs: number): () => DailyPlan {
  return () => {
    const plan = planDay({
      now: clock.now(),
      resetAt: clock.now() + 24 * HOUR,
      quotaLimit: 1000,
      quotaRemaining: 1000,
      foreignRatePerHour: 0,
      realtimeConnected: false,
      projects: [
        { id: 'a', taskCount: 10 },
        { id: 'b', taskCount: 10 },
      ],
    });
    return {
      ...plan,
      intervalMs,
      projects: plan.projects.map((p, i) => ({ ...p, intervalMs, offsetMs: i * (intervalMs / 2) })),
    };
  };
}

describe('PollScheduler', () => {
  it('polls each project once per interval, staggered, in due order', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const polls: [string, number][] = [];
    const plan = fixedPlan(clock, HOUR);
    const scheduler = new PollScheduler({
      clock,
      logger: pino({ level: 'silent' }),
      plan: () => {
        const current = plan();
        return {
          ...current,
          projects: current.projects.map((p, i) => ({
            ...p,
            intervalMs: HOUR,
            offsetMs: i * (HOUR / 2),
          })),
        };
      },
      poll: async (projectId) => {
        polls.push([projectId, (clock.now() - start) / 60_000]);
      },
      lastPassAt: () => undefined,
    });
    const controller = new AbortController();
    const done = scheduler.run(controller.signal);
    await flushMicrotasks();
    await clock.advance(2 * HOUR + 1);
    controller.abort();
    await done;
    expect(polls).toEqual([
      ['a', 0],
      ['b', 30],
      ['a', 60],
      ['b', 90],
      ['a', 120],
    ]);
  });

  it('places the first poll after the last consistent pass and survives a failing poll', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const polls: string[] = [];
    const scheduler = new PollScheduler({
      clock,
      logger: pino({ level: 'silent' }),
      plan: fixedPlan(clock, HOUR),
      poll: async (projectId) => {
        polls.push(projectId);
        if (projectId === 'a') throw new Error('service down');
      },
      lastPassAt: (projectId) => (projectId === 'b' ? start - 50 * 60_000 : start - 10 * 60_000),
    });
    const controller = new AbortController();
    const done = scheduler.run(controller.signal);
    await flushMicrotasks();
    await clock.advance(11 * 60_000);
    expect(polls).toEqual(['b']);
    await clock.advance(40 * 60_000);
    expect(polls).toEqual(['b', 'a']);
    controller.abort();
    await done;
  });
});
