import { describe, expect, it } from 'vitest';
import { startTestSimulator } from '../fixtures/sim.js';
import { eventually, startTestDaemon } from './fixtures.js';

const TOKEN = 'glt_test_daemon_realtime';

function taskName(db: import('better-sqlite3').Database, id: string): string | undefined {
  return db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(id) as string | undefined;
}

describe('daemon realtime', () => {
  it('applies an event that carries its record with zero HTTP requests', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [30, 5], tokens: [TOKEN] });
    const { db, daemon } = await startTestDaemon(sim);
    await eventually(() => daemon.connected);
    const before = sim.requestLog.count();
    const [task] = sim.service.listTasks('p_1');
    sim.service.updateTask(task!.id, { name: 'Renamed by someone else', progress: 40 });
    const created = sim.service.createTask('p_2', { name: 'Brand new' });
    sim.service.deleteTask(sim.service.listTasks('p_2')[0]!.id);
    await eventually(() => taskName(db, task!.id) === 'Renamed by someone else');
    await eventually(() => taskName(db, created.id) === 'Brand new');
    await eventually(
      () => db.prepare(`SELECT count(*) FROM tasks WHERE project_id = 'p_2'`).pluck().get() === 5,
    );
    expect(sim.requestLog.count()).toBe(before);
    const history = db
      .prepare(`SELECT field, new_value FROM task_history WHERE task_id = ? ORDER BY id`)
      .all(task!.id);
    expect(history).toEqual(
      expect.arrayContaining([{ field: 'name', new_value: 'Renamed by someone else' }]),
    );
  });

  it('treats garbage and unknown messages as hints: no crash, a refresh, events still applied', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN] });
    const { db, daemon } = await startTestDaemon(sim, { daemon: { coalesceMs: 50 } });
    await eventually(() => daemon.connected);
    const listed = sim.requestLog.count({ route: 'listProjects' });
    sim.realtime.sendRaw('{"this is": not json');
    await eventually(() => sim.requestLog.count({ route: 'listProjects' }) === listed + 1);
    const projectReads = sim.requestLog.count({ route: 'getProject' });
    sim.realtime.sendRaw(JSON.stringify({ type: 'task.teleported', projectId: 'p_2' }));
    await eventually(() => sim.requestLog.count({ route: 'getProject' }) === projectReads + 1);
    const [task] = sim.service.listTasks('p_1');
    sim.service.updateTask(task!.id, { name: 'Still listening' });
    await eventually(() => taskName(db, task!.id) === 'Still listening');
  });

  it('answers a flood of hints with one pass (per project, and of every project) and one deferred', async () => {
    // Limits off, here and in the governor: the test counts what the daemon chooses to send.
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN], limits: false });
    const { daemon } = await startTestDaemon(sim, {
      daemon: { coalesceMs: 10 },
      engine: { governor: { burstLimit: 10_000, ipLimit: 10_000 } },
    });
    await eventually(() => daemon.connected);
    const flood = async (message: string) => {
      for (let window = 0; window < 25; window++) {
        sim.realtime.sendRaw(message);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    const passes = sim.requestLog.count({ route: 'getProject' });
    await flood(JSON.stringify({ type: 'task.teleported', projectId: 'p_1' }));
    const projectPasses = sim.requestLog.count({ route: 'getProject' }) - passes;
    // One pass now; the rest of the flood is one deferred pass, ten minutes on.
    expect(projectPasses).toBe(1);
    // Uncapped, each of the 25 windows would reconcile everything (60 requests in seconds).
    const listings = sim.requestLog.count({ route: 'listProjects' });
    await flood('garbage that names no project');
    const reconciles = sim.requestLog.count({ route: 'listProjects' }) - listings;
    expect(reconciles).toBe(1);
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
  });

  it('coalesces a burst of 100 data-less events for one project into one refresh', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 150, tokens: [TOKEN] });
    const { db, daemon } = await startTestDaemon(sim, { daemon: { coalesceMs: 500 } });
    await eventually(() => daemon.connected);
    sim.realtime.includeData = false;
    const passes = sim.requestLog.count({ route: 'getProject' });
    const tasks = sim.service.listTasks('p_1').slice(0, 100);
    for (const task of tasks) sim.service.updateTask(task.id, { progress: 100 });
    const done = sim.service.listTasks('p_1').filter((task) => task.status === 'Done').length;
    await eventually(
      () => db.prepare(`SELECT count(*) FROM tasks WHERE status = 'Done'`).pluck().get() === done,
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sim.requestLog.count({ route: 'getProject' })).toBe(passes + 1);
    expect(sim.requestLog.count({ route: 'getTask' })).toBe(0);
  });

  it('reconnects after a dropped socket and reconciles what it missed', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 10, tokens: [TOKEN] });
    // Each status as the daemon is told it: under load, polling `daemon.connected` could miss a
    // disconnection that a quick reconnect ended between two looks.
    const statuses: boolean[] = [];
    const { db, daemon } = await startTestDaemon(sim, {
      daemon: { onRealtimeStatus: (connected) => statuses.push(connected) },
    });
    await eventually(() => daemon.connected);
    sim.realtime.dropAll();
    await eventually(() => statuses.includes(false));
    const missed = sim.service.createTask('p_1', { name: 'Created while disconnected' });
    await eventually(() => taskName(db, missed.id) === 'Created while disconnected', 8_000);
    expect(daemon.connected).toBe(true);
  });
});

describe('daemon and new projects', () => {
  it('syncs a project shared with the token after start when an event names it', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5, tokens: [TOKEN] });
    const { db, daemon } = await startTestDaemon(sim, { daemon: { coalesceMs: 50 } });
    await eventually(() => daemon.connected);
    const project = sim.service.addProject({ name: 'Shared later', userIds: [sim.userId] });
    sim.service.seedTasks(project.id, 7);
    sim.service.createTask(project.id, { name: 'First event of the new project' });
    await eventually(
      () =>
        db.prepare('SELECT count(*) FROM tasks WHERE project_id = ?').pluck().get(project.id) === 8,
    );
    expect(db.prepare('SELECT name FROM projects WHERE id = ?').pluck().get(project.id)).toBe(
      'Shared later',
    );
  });
});
