import { describe, expect, it } from 'vitest';
import { RequestGovernor } from '../../src/budget/index.js';
import { ManualClock, ProgressWatch } from '../../src/domain/index.js';

describe('ProgressWatch', () => {
  it('counts silence from the last progress, names the oldest request in flight', async () => {
    const clock = new ManualClock();
    const watch = new ProgressWatch(clock);
    const first = watch.pending('the answer to GET listProjects');
    watch.pending('the answer to GET listTasks of p_1 page 2');
    await clock.advance(700);
    expect(watch.silentMs()).toBe(700);
    expect(watch.stalledOn()).toBe('the answer to GET listProjects');
    watch.advanced();
    first.end();
    expect(watch.silentMs()).toBe(0);
    expect(watch.stalledOn()).toBe('the answer to GET listTasks of p_1 page 2');
  });

  it('is never silent during an expected wait, and counts from its end', async () => {
    const clock = new ManualClock();
    const watch = new ProgressWatch(clock);
    const wait = watch.waiting();
    await clock.advance(10_000);
    expect(watch.silentMs()).toBe(0);
    wait.end();
    wait.end();
    await clock.advance(300);
    expect(watch.silentMs()).toBe(300);
  });

  it("is told of the governor's pacing: a request held by a full window is an expected wait", async () => {
    const clock = new ManualClock();
    const watch = new ProgressWatch(clock);
    const governor = new RequestGovernor({
      clock,
      burstLimit: 1,
      burstWindowMs: 60_000,
      windowSlackMs: 0,
      progress: watch,
    });
    await governor.acquire('poll');
    const held = governor.acquire('poll');
    await Promise.resolve();
    await clock.advance(30_000);
    expect(watch.silentMs()).toBe(0);
    await clock.advance(30_000);
    await held;
    expect(watch.silentMs()).toBe(0);
  });
});
