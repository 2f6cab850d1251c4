/**
 * What the change-rate estimates learn from besides polls, in the real daemon against the
 * simulator on a manual clock: realtime events and outbox answers count each change once (the
 * event echoing an answer, and the reconciles that find the mirror equal, add nothing); while
 * realtime is connected the reconciles are planned from the changes no event announced; and the
 * observed-staleness histogram hears each change written, from an event or from a poll.
 */
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import type { ChangeRateState } from '../../src/budget/change-rate.js';
import { FakeClock } from '../fixtures/clock.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { eventually, startTestDaemon, type TestDaemon } from './fixtures.js';

const HOUR = 3_600_000;
const TOKEN = 'glt_test_poll_rates_events';

function taskName(db: TestDaemon['db'], id: string): string | undefined {
  return db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(id) as string | undefined;
}

/** The kept estimate of `key` (a project id, or its `#unannounced` key). */
function kept(db: TestDaemon['db'], key: string): ChangeRateState {
  const text = db.prepare('SELECT state FROM change_rates WHERE item = ?').pluck().get(key);
  return JSON.parse(text as string) as ChangeRateState;
}

describe('the change rates fed by events and answers', () => {
  it('counts each event and answer once, and plans the reconciles by the unannounced rate', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 0, 0, 0));
    const sim = await startTestSimulator({ clock, projects: 2, tasks: 20, tokens: [TOKEN] });
    const { daemon, db } = await startTestDaemon(sim, { clock, daemon: { outboxIdleMs: 1_000 } });
    await eventually(() => daemon.connected);
    const samples: number[] = [];
    daemon.onStaleness((ms) => samples.push(ms));
    const [edited] = sim.service.listTasks('p_1');
    const [answered] = sim.service.listTasks('p_2');
    const edits = 12;
    for (let n = 1; n <= edits; n += 1) {
      await clock.advance(HOUR / 4);
      sim.service.updateTask(edited!.id, { name: `edit ${n}` });
      await eventually(() => taskName(db, edited!.id) === `edit ${n}`);
      if (n % 4 === 0) {
        // An edit through the outbox: its answer is written, and the event echoing it is equal.
        db.prepare('INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?)').run(
          'task.update',
          'p_2',
          answered!.id,
          JSON.stringify({ name: `answer ${n}` }),
        );
        await clock.advance(1_000);
        await eventually(() => taskName(db, answered!.id) === `answer ${n}`);
      }
    }
    // A reconcile finds the mirror equal everywhere (nothing more to count), and keeps the rates.
    await daemon.reconcile(new AbortController().signal);

    // Weighed as of now (halving a day): the edits of the last three hours count 0.92-1 each.
    const busy = kept(db, 'p_1');
    expect(busy.events).toBeGreaterThan(0.9 * edits);
    expect(busy.events).toBeLessThanOrEqual(edits);
    // Each of the three answers counts at most once: by its event when that came first (an
    // answer written first makes its event find the mirror equal), never by both; and the
    // integration identity the first write made appear (member.changed) is one more change.
    const answers = kept(db, 'p_2');
    expect(answers.events).toBeLessThanOrEqual(4);
    // No reconcile found a change no event announced.
    const unannounced = kept(db, 'p_1#unannounced');
    expect(unannounced.buckets.every((bucket) => bucket.changed === 0)).toBe(true);
    // One staleness sample per task event that changed the mirror: each edit's, and an answer's
    // echo when it came before the answer; all 0 on a clock that did not move meanwhile.
    expect(samples.length).toBeGreaterThanOrEqual(edits);
    expect(samples.length).toBeLessThanOrEqual(edits + 3);
    expect(samples.every((ms) => ms === 0)).toBe(true);

    // Connected: the reconciles are allocated by the unannounced rates, hourly at most.
    const plan = daemon.plan();
    expect(plan.projects.every((p) => p.ratePerHour !== undefined)).toBe(true);
    expect(plan.projects.every((p) => p.intervalMs >= HOUR)).toBe(true);
    // Their passes are reconciles, read whole: no page is polled on its own while connected.
    expect(plan.projects.some((p) => p.partsPolled === true)).toBe(false);
    expect(plan.projects.find((p) => p.projectId === 'p_1')!.ratePerHour!).toBeLessThan(1);
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
  });

  it('exports the staleness of a change a poll found, from its updatedAt to the write', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 0, 0, 0));
    const sim = await startTestSimulator({ clock, projects: 2, tasks: 20, tokens: [TOKEN] });
    const { daemon, db } = await startTestDaemon(sim, { clock, realtime: false });
    const metrics = new DaemonMetrics(daemon.metricsSources(), { version: 'test' });
    daemon.onStaleness((ms) => metrics.recordStaleness(ms));
    const [task] = sim.service.listTasks('p_1');
    const editedAt = clock.now();
    sim.service.updateTask(task!.id, { name: 'seen by a poll' });
    // Step from one wake-up to the next until a poll has written it.
    while (taskName(db, task!.id) !== 'seen by a poll') {
      const next = clock.nextWakeAt ?? clock.now() + 60_000;
      await clock.advance(Math.max(1, next - clock.now()));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await eventually(() => sim.requestLog.count() >= 0);
      if (clock.now() - editedAt > 6 * HOUR) throw new Error('no poll saw the change');
    }
    await eventually(async () =>
      (await metrics.registry.metrics()).includes('projmirror_change_staleness_seconds_count 1'),
    );
    const text = await metrics.registry.metrics();
    const sum = Number(/projmirror_change_staleness_seconds_sum (\S+)/.exec(text)![1]);
    // As long as the change waited for its poll: more than nothing, at most the time stepped.
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThanOrEqual((clock.now() - editedAt) / 1000);
  });
});
