/** The engine with the real HTTP client against the real simulator, over sockets. */
import { storeOver } from '../fixtures/store.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestGovernor } from '../../src/budget/index.js';
import { Mirror } from '../../src/mirror/index.js';
import { createHttpRemote } from '../../src/remote/index.js';
import type { Simulator } from '../../src/sim/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { countWrites } from './helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function engineFor(sim: Simulator, db: SqliteDb, clock: FakeClock) {
  const logger = pino({ level: 'silent' });
  const gate = new RequestGovernor({ clock, maxWaitMs: 0, reserve: 0 });
  const remote = createHttpRemote({ baseUrl: sim.baseUrl, token: sim.token, gate, clock, logger });
  return new Mirror({ store: storeOver(db, clock).mirror, remote, clock, logger });
}

/** The mirror equals the service for `projectId`: every record's JSON, nothing more. */
function expectMirrorEqualsService(db: SqliteDb, sim: Simulator, projectId: string): void {
  const want = sim.service.snapshot(projectId);
  const json = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();
  const data = (table: string) =>
    (
      db
        .prepare(`SELECT data FROM ${table} WHERE project_id = ?`)
        .pluck()
        .all(projectId) as string[]
    ).sort();
  expect(data('tasks')).toEqual(json(want.tasks));
  expect(data('members')).toEqual(json(want.members));
  expect(data('resources')).toEqual(json(want.resources));
  expect(data('dependencies')).toEqual(json(want.dependencies));
  const project = db.prepare('SELECT data FROM projects WHERE id = ?').pluck().get(projectId);
  expect(project).toBe(JSON.stringify(want.project));
}

describe('the mirror against the simulator', () => {
  it('mirrors every project exactly, then re-reads it with 304s and writes nothing', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, projects: 2, tasks: [1234, 3], limits: false });
    const { db } = tempDatabase();
    const mirror = engineFor(sim, db, clock);

    const first = await mirror.syncAll();
    expect(first.ok).toBe(true);
    for (const project of sim.service.listProjects())
      expectMirrorEqualsService(db, sim, project.id);

    const writes = countWrites(db);
    sim.requestLog.clear();
    const second = await mirror.syncAll();
    expect(second.ok).toBe(true);
    expect(writes()).toBe(0);
    expect(sim.requestLog.count()).toBe(1 + (3 + 3) + (1 + 3));
    expect(sim.requestLog.count({ route: 'listTasks', status: 304 })).toBe(4);
  });

  it('converges when tasks are added and deleted while it pages', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, projects: 1, tasks: 1200, limits: false });
    const { db } = tempDatabase();
    const mirror = engineFor(sim, db, clock);
    const projectId = sim.service.listProjects()[0]!.id;
    await mirror.syncAll();
    const tasks = sim.service.listTasks(projectId);
    sim.faults.beforePage(projectId, 2, () => {
      sim.service.deleteTask(tasks[3]!.id);
      sim.service.deleteTask(tasks[4]!.id);
      sim.service.createTask(projectId, { name: 'late arrival' });
    });
    const result = (await mirror.syncAll()).projects[0]!;
    expect(result).toMatchObject({ ok: true, attempts: 2, tasks: 1199 });
    expectMirrorEqualsService(db, sim, projectId);
    const history = db.prepare(
      'SELECT field, count(*) AS n FROM task_history GROUP BY field ORDER BY field',
    );
    expect(history.all()).toEqual([
      { field: 'created', n: 1 },
      { field: 'deleted', n: 2 },
    ]);
  });

  it('resumes the next day a backfill the daily quota stopped, with 304s for the pages read', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, projects: 1, tasks: 1234, quota: 3 });
    const { db } = tempDatabase();
    const projectId = sim.service.listProjects()[0]!.id;

    const stopped = await engineFor(sim, db, clock).syncAll();
    expect(stopped.projects[0]).toMatchObject({
      ok: false,
      errorCode: 'budget_exhausted',
      tasks: 1000,
    });
    expect(sim.requestLog.count({ status: 429 })).toBe(0);

    await clock.advance(DAY_MS);
    sim.limits.settings.quota = 100;
    sim.requestLog.clear();
    const resumed = await engineFor(sim, db, clock).syncAll();
    expect(resumed.ok).toBe(true);
    const statuses = sim.requestLog.filter({ route: 'listTasks' }).map((entry) => entry.status);
    expect(statuses).toEqual([304, 304, 200]);
    expectMirrorEqualsService(db, sim, projectId);
  });

  it('keeps the previous mirror when a page comes back malformed', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, projects: 1, tasks: 120, limits: false });
    const { db } = tempDatabase();
    const mirror = engineFor(sim, db, clock);
    const projectId = sim.service.listProjects()[0]!.id;
    await mirror.syncAll();
    const before = db.prepare('SELECT id, data FROM tasks ORDER BY id').all();
    sim.service.updateTask(sim.service.listTasks(projectId)[0]!.id, { progress: 50 });
    sim.faults.failNext({ kind: 'malformed', route: 'listTasks' });
    const report = await mirror.syncAll();
    expect(report.projects[0]).toMatchObject({ ok: false, errorCode: 'remote_malformed' });
    expect(db.prepare('SELECT id, data FROM tasks ORDER BY id').all()).toEqual(before);
    expect((await mirror.syncAll()).ok).toBe(true);
    expectMirrorEqualsService(db, sim, projectId);
  });
});
