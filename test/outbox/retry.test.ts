/**
 * A push retries a head item's transient failures (5xx, dropped connections) within the run, on
 * the injected clock and inside the request budget, before leaving it pending; a project's later
 * items wait for it, other projects' items do not.
 */
import { storeOver } from '../fixtures/store.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestGovernor } from '../../src/budget/index.js';
import {
  DEFAULT_ITEM_RETRY_WINDOW_MS,
  OutboxPusher,
  type OutboxPusherOptions,
} from '../../src/outbox/index.js';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { createHttpRemote } from '../../src/remote/index.js';
import { Prng, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import { OutboxRepository } from '../../src/store/outbox.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { drive } from '../remote/stand-in.js';
import { newTask } from './tasks.js';

const logger = pino({ level: 'silent' });

/** A simulator and a pusher on one fake clock, sending through the budget's governor. */
async function setup(
  simOptions: SimulatorOptions = {},
  pusherOptions: Partial<OutboxPusherOptions> = {},
) {
  const clock = new FakeClock();
  const sim = await startTestSimulator({
    tasks: 1,
    dependenciesPerProject: 0,
    ...simOptions,
    clock,
  });
  const { db } = tempDatabase();
  const remote = createHttpRemote({
    baseUrl: sim.baseUrl,
    token: sim.token,
    gate: new RequestGovernor({ clock }),
    clock,
    logger,
  });
  const pusher = new OutboxPusher({
    store: storeOver(db, clock),
    remote,
    clock,
    logger,
    random: () => 0.5,
    ...pusherOptions,
  });
  const outbox = new OutboxRepository(db);
  const queue = async (projectId: string, name: string) =>
    (await enqueue(db, { op: 'task.create', projectId, body: newTask(name) }, clock.now())).id;
  const projects = sim.service.listProjects().map((project) => project.id);
  return { clock, sim, db, remote, pusher, outbox, queue, projects };
}

/** Creates of `projectId` answered 503, every time. */
function failCreatesOf(sim: Simulator, projectId: string): void {
  sim.faults.failNext({
    route: 'createTask',
    kind: 'status',
    status: 503,
    count: Infinity,
    when: (request) => request.path.includes(`/projects/${projectId}/`),
  });
}

/** The idempotency keys of the create requests the simulator received, in order. */
const createKeys = (sim: Simulator) =>
  sim.requestLog.filter({ route: 'createTask' }).map((entry) => entry.headers['idempotency-key']);

describe('push retries transient failures within the run', () => {
  it('drains 40 creates in one pass when a quarter of requests drop after commit and a sixth answer 5xx', async () => {
    const { clock, sim, pusher, outbox, queue, projects, remote } = await setup(
      { projects: 2 },
      { random: seeded(7) },
    );
    const names = Array.from({ length: 40 }, (_, i) => `bulk-${String(i).padStart(2, '0')}`);
    const ids: number[] = [];
    for (const [i, name] of names.entries()) ids.push(await queue(projects[i % 2] ?? '', name));
    const faults = new Prng(2026);
    let draw = 0;
    sim.faults.failNext({
      route: 'createTask',
      kind: 'commitThenDrop',
      count: Infinity,
      when: () => (draw = faults.next()) < 1 / 4,
    });
    sim.faults.failNext({
      route: 'createTask',
      kind: 'status',
      status: 500,
      count: Infinity,
      when: () => draw < 1 / 4 + 1 / 6,
    });
    const started = clock.now();

    const report = await drive(pusher.pushOnce({ ignoreBackoff: true }), clock);

    expect(report).toMatchObject({ done: 40, failed: 0, pending: 0 });
    expect((await outbox.list()).map((item) => item.state)).toEqual(ids.map(() => 'done'));
    const created = projects.flatMap((id) => sim.service.listTasks(id)).map((task) => task.name);
    for (const name of names) expect(created.filter((other) => other === name)).toHaveLength(1);
    const log = sim.requestLog.filter({ route: 'createTask' });
    expect(log.filter((entry) => entry.fault === 'commitThenDrop').length).toBeGreaterThan(10);
    expect(log.filter((entry) => entry.status === 500).length).toBeGreaterThan(5);
    expect(report.sent).toBe(log.length);
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
    // The burst of 60 a minute is kept: the pass took fake minutes, not a blink.
    expect(clock.now() - started).toBeGreaterThanOrEqual(60_000);
    await remote.close();
  });

  it('leaves a head failing longer than the bound pending, its project held, others pushed', async () => {
    const { clock, sim, pusher, outbox, queue, projects, remote } = await setup({ projects: 2 });
    const [stuckProject, otherProject] = [projects[0] ?? '', projects[1] ?? ''];
    failCreatesOf(sim, stuckProject);
    const head = await queue(stuckProject, 'stuck');
    const next = await queue(stuckProject, 'after the stuck one');
    const elsewhere = await queue(otherProject, 'elsewhere');
    const started = clock.now();

    const report = await drive(pusher.pushOnce({ ignoreBackoff: true }), clock);

    // Jitter 0.5: tries at 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 and 63.5 s; the next (127.5 s) is
    // past the two-minute bound.
    expect(DEFAULT_ITEM_RETRY_WINDOW_MS).toBe(120_000);
    expect(report).toMatchObject({ done: 1, failed: 0, retried: 8, pending: 2 });
    expect(clock.now() - started).toBe(63_500);
    const stuck = await outbox.get(head);
    expect(stuck).toMatchObject({ state: 'pending', attempts: 8 });
    expect(stuck?.lastError).toMatch(/HTTP 503/);
    expect(Date.parse(stuck?.nextAttemptAt ?? '')).toBeGreaterThan(clock.now());
    expect(await outbox.get(next)).toMatchObject({ state: 'pending', attempts: 0 });
    expect((await outbox.get(elsewhere))?.state).toBe('done');
    const headKey = stuck?.idempotencyKey;
    const keys = createKeys(sim);
    expect(keys.filter((key) => key === headKey)).toHaveLength(8);
    expect(keys).not.toContain((await outbox.get(next))?.idempotencyKey);
    // The other project did not wait for the stuck head's retries.
    expect(keys.indexOf((await outbox.get(elsewhere))?.idempotencyKey)).toBeLessThan(3);
    await remote.close();
  });

  it('sends every try of a create with the same bytes and key, and creates it once', async () => {
    const { clock, sim, pusher, outbox, queue, projects, remote } = await setup({ projects: 1 });
    const project = projects[0] ?? '';
    const id = await queue(project, 'twice dropped');
    sim.faults.failNext({ route: 'createTask', kind: 'commitThenDrop', count: 2 });
    sim.faults.failNext({ route: 'createTask', kind: 'status', status: 502 });

    const report = await drive(pusher.pushOnce(), clock);

    expect(report).toMatchObject({ sent: 4, retried: 3, done: 1, pending: 0 });
    const item = await outbox.get(id);
    expect(item).toMatchObject({ state: 'done', attempts: 4 });
    expect(new Set(createKeys(sim))).toEqual(new Set([item?.idempotencyKey]));
    const created = sim.service.listTasks(project).filter((task) => task.name === 'twice dropped');
    expect(created).toHaveLength(1);
    await remote.close();
  });

  it('takes its bound per item from itemRetryWindowMs; 0 tries each item once', async () => {
    const short = await setup({ projects: 1 }, { itemRetryWindowMs: 10_000 });
    failCreatesOf(short.sim, short.projects[0] ?? '');
    const id = await short.queue(short.projects[0] ?? '', 'short bound');
    const started = short.clock.now();
    expect(await drive(short.pusher.pushOnce(), short.clock)).toMatchObject({ pending: 1 });
    // Tries at 0, 0.5, 1.5, 3.5 and 7.5 s; the next (15.5 s) is past 10 s.
    expect(await short.outbox.get(id)).toMatchObject({ state: 'pending', attempts: 5 });
    expect(short.clock.now() - started).toBe(7_500);
    await short.remote.close();

    const none = await setup({ projects: 1 }, { itemRetryWindowMs: 0 });
    failCreatesOf(none.sim, none.projects[0] ?? '');
    const once = await none.queue(none.projects[0] ?? '', 'no retries');
    expect(await drive(none.pusher.pushOnce(), none.clock)).toMatchObject({ sent: 1, pending: 1 });
    expect(await none.outbox.get(once)).toMatchObject({ state: 'pending', attempts: 1 });
    await none.remote.close();
  });
});

/** A seeded jitter source. */
function seeded(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}
