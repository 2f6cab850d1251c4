/**
 * The freshness rule (`src/daemon/freshness.ts`, issue 21 point 3): a project's mirror is current
 * only while realtime is connected and a pass begun after the (re)connect has passed it. Then,
 * against the real simulator with an in-process daemon: a current project's item is checked at no
 * cost; with the realtime link down (or without `--realtime-url`) the pusher reads the target
 * again, one counted GET, and catches a change made on the service meanwhile as a conflict.
 */
import { describe, expect, it } from 'vitest';
import { Freshness } from '../../src/daemon/freshness.js';
import type { Simulator } from '../../src/sim/index.js';
import { outboxItems } from '../fixtures/outbox.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { eventually, startTestDaemon, type TestDaemon } from './fixtures.js';

const TOKEN = 'glt_test_freshness_0123456789abcdef';

describe('Freshness', () => {
  it('is never current without a connection, whatever passes', () => {
    const freshness = new Freshness();
    freshness.passed('p_1', 100);
    expect(freshness.isFresh('p_1')).toBe(false);
  });

  it('makes a project current once a pass begun at or after the connect passes it', () => {
    const freshness = new Freshness();
    freshness.connected(1_000);
    expect(freshness.isFresh('p_1')).toBe(false);
    freshness.passed('p_1', 999); // begun before the connect: it may have missed events
    expect(freshness.isFresh('p_1')).toBe(false);
    freshness.passed('p_1', 1_000);
    expect(freshness.isFresh('p_1')).toBe(true);
    expect(freshness.isFresh('p_2')).toBe(false);
  });

  it('forgets every project at a disconnect and at a reconnect', () => {
    const freshness = new Freshness();
    freshness.connected(1_000);
    freshness.passed('p_1', 1_500);
    freshness.disconnected();
    expect(freshness.isFresh('p_1')).toBe(false);
    freshness.passed('p_1', 2_000); // a pass while down makes nothing current
    expect(freshness.isFresh('p_1')).toBe(false);
    freshness.connected(3_000);
    freshness.passed('p_1', 2_500); // begun before this reconnect
    expect(freshness.isFresh('p_1')).toBe(false);
    freshness.passed('p_1', 3_000);
    expect(freshness.isFresh('p_1')).toBe(true);
    freshness.connected(4_000); // a reconnect without a disconnect seen first
    expect(freshness.isFresh('p_1')).toBe(false);
  });

  it('makes one project stale on a hint naming it, and every project on one naming none', () => {
    const freshness = new Freshness();
    freshness.connected(0);
    for (const id of ['p_1', 'p_2', 'p_3']) freshness.passed(id, 10);
    freshness.stale('p_1');
    expect(['p_1', 'p_2', 'p_3'].map((id) => freshness.isFresh(id))).toEqual([false, true, true]);
    freshness.passed('p_1', 20); // its next pass makes it current again
    expect(freshness.isFresh('p_1')).toBe(true);
    freshness.stale();
    expect(['p_1', 'p_2', 'p_3'].map((id) => freshness.isFresh(id))).toEqual([false, false, false]);
  });
});

/** The requests the simulator logged for `route` since `from` (an index into its log). */
function requestsSince(sim: Simulator, from: number, route: string): number {
  return sim.requestLog.entries.slice(from).filter((entry) => entry.route === route).length;
}

/** Queues an edit of `taskId` with plain SQL, as a user does; its id. */
function queue(db: TestDaemon['db'], projectId: string, taskId: string, body: unknown): number {
  return Number(
    db
      .prepare('INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?)')
      .run('task.update', projectId, taskId, JSON.stringify(body)).lastInsertRowid,
  );
}

const stateOf = async (db: TestDaemon['db'], id: number) =>
  (await outboxItems(db)).find((item) => item.id === id)?.state;

async function simulatorWithTasks() {
  const sim = await startTestSimulator({
    projects: 1,
    tasks: 3,
    dependenciesPerProject: 0,
    tokens: [TOKEN],
  });
  const projectId = sim.service.listProjects()[0]!.id;
  const [a, b] = sim.service.listTasks(projectId).map((task) => task.id) as [string, string];
  for (const id of [a, b]) sim.service.updateTask(id, { status: 'NotStarted' });
  return { sim, projectId, a, b };
}

describe('the freshness rule in the daemon', () => {
  it('checks a reconciled project under realtime at no cost, and re-reads once the link is down', async () => {
    const { sim, projectId, a, b } = await simulatorWithTasks();
    const { daemon, db } = await startTestDaemon(sim, { daemon: { outboxIdleMs: 20 } });
    await eventually(() => daemon.connected && daemon.fresh(projectId), 10_000);

    let from = sim.requestLog.entries.length;
    const cheap = queue(db, projectId, a, { progress: 30 });
    await eventually(async () => (await stateOf(db, cheap)) === 'done');
    expect(requestsSince(sim, from, 'getTask')).toBe(0);
    expect(requestsSince(sim, from, 'updateTask')).toBe(1);
    expect(sim.service.getTask(a)!.progress).toBe(30);

    // The link drops and stays down: events are missed, so nothing is current any more.
    sim.realtime.refuseNext(1_000);
    sim.realtime.dropAll();
    await eventually(() => !daemon.connected);
    expect(daemon.fresh(projectId)).toBe(false);
    from = sim.requestLog.entries.length;
    const held = queue(db, projectId, b, { status: 'InProgress' });
    // A colleague marks the task Done while no event can reach the daemon.
    sim.service.updateTask(b, { status: 'Done' });
    await eventually(async () => (await stateOf(db, held)) === 'conflict');
    expect(requestsSince(sim, from, 'getTask')).toBe(1);
    expect(requestsSince(sim, from, 'updateTask')).toBe(0);
    expect((await outboxItems(db)).find((item) => item.id === held)!.lastError).toMatch(
      /^conflict: status was NotStarted when queued, is Done on the service/,
    );
    expect(sim.service.getTask(b)!.status).toBe('Done');
  }, 30_000);

  it('re-reads the target of every checked item without --realtime-url', async () => {
    const { sim, projectId, a, b } = await simulatorWithTasks();
    const { daemon, db } = await startTestDaemon(sim, {
      realtime: false,
      daemon: { outboxIdleMs: 20 },
    });
    const from = sim.requestLog.entries.length;
    const sent = queue(db, projectId, a, { progress: 30 });
    const held = queue(db, projectId, b, { status: 'InProgress' });
    sim.service.updateTask(b, { status: 'Done' }); // never announced: no realtime
    await eventually(
      async () => (await stateOf(db, sent)) === 'done' && (await stateOf(db, held)) === 'conflict',
    );
    expect(daemon.fresh(projectId)).toBe(false);
    expect(requestsSince(sim, from, 'getTask')).toBe(2);
    expect(requestsSince(sim, from, 'updateTask')).toBe(1);
    expect(sim.service.getTask(b)!.status).toBe('Done');
  }, 30_000);
});
