import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PollScheduler } from '../../src/daemon/poll-scheduler.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';
import { fixedPlan } from '../fixtures/plan.js';

const HOUR = 3_600_000;

/**
 * A scheduler over a fixed hourly plan of 'a' and 'b', running until `stop()`: each poll answers
 * `answer` (or throws), each project last passed at `lastPassAt` (the start unless given), and
 * `polls` records each poll with its second since the start.
 */
async function runningScheduler(options: {
  answer: (projectId: string) => boolean;
  lastPassAt?: (projectId: string, start: number) => number;
  eligible?: (projectId: string) => boolean;
}) {
  const clock = new FakeClock();
  const start = clock.now();
  const polls: [string, number][] = [];
  /** The polls that asked for a fresh pass. */
  const fresh: string[] = [];
  const { answer, lastPassAt = () => start, eligible } = options;
  const scheduler = new PollScheduler({
    clock,
    logger: pino({ level: 'silent' }),
    plan: fixedPlan(clock, HOUR),
    poll: async (projectId, _signal, asksFresh) => {
      polls.push([projectId, (clock.now() - start) / 1_000]);
      if (asksFresh) fresh.push(projectId);
      return answer(projectId);
    },
    lastPassAt: (projectId) => lastPassAt(projectId, start),
    random: () => 0.999,
    ...(eligible ? { eligible } : {}),
  });
  const controller = new AbortController();
  const done = scheduler.run(controller.signal);
  await flushMicrotasks();
  const stop = async () => {
    controller.abort();
    await done;
  };
  return { clock, start, polls, fresh, scheduler, stop };
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
        return true;
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

  it('places the first poll after the last consistent pass; a failing project retries with backoff', async () => {
    let down = true;
    const { clock, polls, scheduler, stop } = await runningScheduler({
      answer: (projectId) => {
        if (projectId === 'a' && down) throw new Error('service down');
        return true;
      },
      lastPassAt: (projectId, start) => start - (projectId === 'b' ? 50 : 10) * 60_000,
    });
    await clock.advance(11 * 60_000);
    expect(polls).toEqual([['b', 600]]);
    // 'a' is due 20 minutes in; failing, it is tried again after ~10 s, ~20 s, ~40 s, ~80 s...
    await clock.advance(12 * 60_000);
    const retries = polls.filter(([id]) => id === 'a').map(([, at]) => Math.round(at));
    expect(retries.slice(0, 5)).toEqual([1200, 1210, 1230, 1270, 1350]);
    expect(scheduler.failures().get('a')).toBe(retries.length);
    // Back up: the next try passes and the project returns to its hourly slot.
    down = false;
    await clock.advance(11 * 60_000);
    expect(scheduler.failures().has('a')).toBe(false);
    const count = polls.length;
    await clock.advance(30 * 60_000);
    expect(polls.slice(count).filter(([id]) => id === 'a')).toEqual([]);
    await stop();
  });

  it('never retries a failed project later than its regular slot (short intervals)', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const polls: number[] = [];
    const scheduler = new PollScheduler({
      clock,
      logger: pino({ level: 'silent' }),
      plan: fixedPlan(clock, 1_000),
      poll: async (projectId) => {
        if (projectId === 'a') polls.push(clock.now() - start);
        return projectId !== 'a';
      },
      lastPassAt: () => start,
      random: () => 0.999,
    });
    const controller = new AbortController();
    const done = scheduler.run(controller.signal);
    await flushMicrotasks();
    await clock.advance(10_000);
    controller.abort();
    await done;
    // Every second, as the plan says, although the backoff alone would wait 10 s, then 20 s.
    expect(polls.length).toBeGreaterThanOrEqual(8);
    expect(scheduler.failures().get('a')).toBe(polls.length);
  });

  it('leaves the count to whoever recorded a pass the poll joined (each pass counts once)', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    let polls = 0;
    const scheduler = new PollScheduler({
      clock,
      logger: pino({ level: 'silent' }),
      plan: fixedPlan(clock, HOUR),
      poll: async (projectId) => {
        if (projectId !== 'a') return true;
        polls += 1;
        // The first poll joins a refresh's failed pass, which the refresh already counted.
        if (polls === 1) {
          scheduler.recordResult('a', false);
          return undefined;
        }
        return false;
      },
      lastPassAt: () => start - HOUR,
      random: () => 0.999,
    });
    const controller = new AbortController();
    const done = scheduler.run(controller.signal);
    await flushMicrotasks();
    await clock.advance(1);
    expect(polls).toBe(1);
    expect(scheduler.failures().get('a')).toBe(1);
    await clock.advance(11_000);
    expect(polls).toBe(2);
    expect(scheduler.failures().get('a')).toBe(2);
    controller.abort();
    await done;
  });

  it('retries a project the plan does not know yet whose first pass failed, and one made due', async () => {
    // The mirror's projects make the plan; a project whose first pass failed before the mirror
    // held it (the store away during the start-up reconcile) is in no plan, and must not wait for
    // the next reconcile (found by the convergence property).
    let down = true;
    const { clock, start, polls, scheduler, stop } = await runningScheduler({
      answer: (projectId) => projectId !== 'new' || !down,
    });
    scheduler.recordResult('new', false);
    scheduler.dueAt('shared', start + 5_000);
    await flushMicrotasks();
    await clock.advance(31_000);
    // ~10 s after the failure, then ~20 s after that; 'shared' once, at its time.
    expect(polls.map(([id, at]) => [id, Math.round(at)])).toEqual([
      ['shared', 5],
      ['new', 10],
      ['new', 30],
    ]);
    down = false;
    await clock.advance(45_000);
    expect(polls.filter(([id]) => id === 'new')).toHaveLength(3);
    expect(scheduler.failures().has('new')).toBe(false);
    // Passed, it is the plan's to schedule (it would be in the mirror): no more polls here.
    await clock.advance(HOUR / 2);
    expect(polls.filter(([id]) => id === 'new' || id === 'shared')).toHaveLength(4);

    // A listing begun now without 'gone' (failed, and made due) forgets it; 'kept' is retried,
    // and 'late', noted after the listing began, may be new to it.
    scheduler.recordResult('gone', false);
    scheduler.dueAt('gone', clock.now() + 30_000);
    scheduler.recordResult('kept', false);
    const mark = scheduler.mark();
    scheduler.recordResult('late', false);
    scheduler.forget((projectId) => projectId === 'kept', mark);
    await flushMicrotasks();
    const count = polls.length;
    await clock.advance(60_000);
    const after = polls.slice(count).map(([id]) => id);
    expect(after).not.toContain('gone');
    expect(after).toContain('kept');
    expect(after).toContain('late');
    await stop();
  });

  it('asks for a fresh pass (never one begun before) only for a project made due', async () => {
    // Issue 34: a project made due because of a change learned (an event the store refused) must
    // not join a pass whose reads may predate the change.
    const { clock, start, polls, fresh, scheduler, stop } = await runningScheduler({
      answer: () => true,
    });
    scheduler.dueAt('a', start + 5_000);
    await flushMicrotasks();
    await clock.advance(HOUR + 60_000);
    expect(polls.filter(([id]) => id === 'a').length).toBeGreaterThanOrEqual(2);
    expect(polls.filter(([id]) => id === 'b').length).toBeGreaterThanOrEqual(1);
    expect(fresh).toEqual(['a']);
    await stop();
  });

  it('leaves a project the plan does not list to when the daemon may pass it', async () => {
    // On a shared PostgreSQL mirror, a project whose lease lapsed in this daemon's eyes: its due
    // time waits (a pass now would be skipped as held elsewhere, and the due time spent).
    let mine = false;
    const { clock, start, polls, scheduler, stop } = await runningScheduler({
      answer: () => true,
      eligible: (projectId) => projectId !== 'leased' || mine,
    });
    scheduler.dueAt('leased', start);
    await flushMicrotasks();
    await clock.advance(10_000);
    expect(polls).toEqual([]);
    mine = true;
    scheduler.replan();
    await flushMicrotasks();
    await clock.advance(1_000);
    expect(polls).toEqual([['leased', 10]]);
    await stop();
  });
});

describe('PollScheduler, a project whose parts are polled on their own', () => {
  it('passes it only when asked (a due time, a failed pass), never at its interval', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const polls: [string, number][] = [];
    const plan = fixedPlan(clock, HOUR);
    let failOnce = true;
    const scheduler = new PollScheduler({
      clock,
      logger: pino({ level: 'silent' }),
      plan: () => {
        const current = plan();
        return {
          ...current,
          projects: current.projects.map((p) => ({ ...p, partsPolled: p.projectId === 'a' })),
        };
      },
      poll: async (projectId) => {
        polls.push([projectId, (clock.now() - start) / 60_000]);
        if (projectId === 'a' && failOnce) {
          failOnce = false;
          return false;
        }
        return true;
      },
      lastPassAt: () => start,
    });
    scheduler.dueAt('a', start + HOUR / 2);
    const controller = new AbortController();
    const done = scheduler.run(controller.signal);
    await flushMicrotasks();
    await clock.advance(5 * HOUR);
    controller.abort();
    await done;
    const a = polls.filter(([id]) => id === 'a').map(([, minute]) => minute);
    // Once when made due, once more when that pass failed (after its backoff), then never.
    expect(a).toHaveLength(2);
    expect(a[0]).toBe(30);
    expect(a[1]).toBeLessThan(31);
    // The other project keeps its interval.
    expect(polls.filter(([id]) => id === 'b').length).toBeGreaterThanOrEqual(4);
    // status shows the project's next read as its next part's, when the items say so.
    const next = new PollScheduler({
      clock,
      logger: pino({ level: 'silent' }),
      plan: () => plan(),
      poll: async () => true,
      lastPassAt: () => start,
      items: {
        next: () => undefined,
        poll: async () => {},
        nextByProject: () => new Map([['a', start + 7]]),
        wallStepped: () => {},
      },
    }).nextPolls({
      ...plan(),
      projects: plan().projects.map((p) => ({ ...p, partsPolled: p.projectId === 'a' })),
    });
    expect(next.get('a')).toBe(start + 7);
    expect(next.get('b')).toBeGreaterThan(start);
  });
});
