import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { MalformedResponseError } from '../../src/domain/index.js';
import { RequestGovernor, type GovernorOptions } from '../../src/budget/index.js';
import { createHttpRemote, type HttpRemote } from '../../src/remote/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { drive, failure } from './stand-in.js';

const PAGE_SIZE = 50;

/** A client of `sim` sharing its fake clock, so 429 windows pass when the test says. */
function clientOf(sim: Simulator, clock: FakeClock, governor: GovernorOptions = {}) {
  const gate = new RequestGovernor({ clock, ...governor });
  const remote = createHttpRemote({
    baseUrl: sim.baseUrl,
    token: sim.token,
    gate,
    clock,
    logger: pino({ level: 'silent' }),
    ...(sim.caFile ? { caFile: sim.caFile } : {}),
  });
  return { remote, gate };
}

/** Reads every page of a project, passing the ETags of a previous read; returns the new ones. */
async function readAll(remote: HttpRemote, projectId: string, etags: (string | undefined)[] = []) {
  const rows: Task[] = [];
  const next: (string | undefined)[] = [];
  const statuses: string[] = [];
  let total = Number.POSITIVE_INFINITY;
  for (let page = 1; (page - 1) * PAGE_SIZE < total; page += 1) {
    const result = await remote.listTasksPage(projectId, page, PAGE_SIZE, etags[page - 1]);
    next.push(result.etag);
    statuses.push(result.notModified ? '304' : '200');
    if (result.totalCount !== undefined) total = result.totalCount;
    if (!result.notModified) rows.push(...result.rows);
  }
  return { rows, etags: next, statuses, total };
}

describe('the client against the simulator', () => {
  it('lists projects and pages through tasks over HTTPS, then gets 304s with the ETags', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ tls: true, clock, projects: 2, tasks: [120, 3] });
    const { remote, gate } = clientOf(sim, clock);
    try {
      const projects = await remote.listProjects();
      expect(projects.map((p) => p.id)).toHaveLength(2);
      const projectId = projects[0]!.id;

      const first = await readAll(remote, projectId);
      expect(first.total).toBe(120);
      expect(first.statuses).toEqual(['200', '200', '200']);
      expect(new Set(first.rows.map((row) => row.id)).size).toBe(120);
      expect(new Set(first.etags).size).toBe(3);

      const again = await readAll(remote, projectId, first.etags);
      expect(again.statuses).toEqual(['304', '304', '304']);
      expect(sim.requestLog.count({ route: 'listTasks', status: 304 })).toBe(3);

      const changed = first.rows[PAGE_SIZE + 1]!;
      sim.service.updateTask(changed.id, { progress: 100 });
      const third = await readAll(remote, projectId, again.etags);
      expect(third.statuses).toEqual(['304', '200', '304']);
      expect(third.rows.find((row) => row.id === changed.id)).toMatchObject({
        status: 'Done',
        progress: 100,
      });

      const project = await remote.getProject(projectId);
      expect(project.notModified).toBe(false);
      expect(await remote.getProject(projectId, project.etag)).toMatchObject({ notModified: true });
      expect(gate.snapshot()).toMatchObject({ quotaLimit: 5000, quotaRemaining: 5000 - 12 });
    } finally {
      await remote.close();
    }
  });

  it('waits out the service 429 through the governor and sends nothing early', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, burst: 3, projects: 1, tasks: 1 });
    const { remote } = clientOf(sim, clock);
    try {
      const start = clock.now();
      const [project] = await remote.listProjects();
      const projectId = project!.id;
      await remote.listMembers(projectId);
      await remote.listResources(projectId);
      const delays: number[] = [];
      await drive(remote.listDependencies(projectId), clock, delays);
      expect(sim.requestLog.count({ status: 429, code: 'rate_limited' })).toBe(1);
      expect(delays).toEqual([60_000]);
      expect(clock.now()).toBe(start + 60_000);
      expect(sim.requestLog.count({ route: 'listDependencies', status: 200 })).toBe(1);
    } finally {
      await remote.close();
    }
  });

  it('retries injected 503s and dropped connections on reads, and rejects an HTML 502', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, projects: 1, tasks: 5 });
    const { remote } = clientOf(sim, clock);
    try {
      const [project] = await remote.listProjects();
      sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 503, count: 2 });
      sim.faults.failNext({ route: 'listTasks', kind: 'drop' });
      const page = await drive(remote.listTasksPage(project!.id, 1, PAGE_SIZE), clock);
      expect(page).toMatchObject({ notModified: false, totalCount: 5 });
      expect(sim.requestLog.count({ route: 'listTasks' })).toBe(4);

      sim.faults.failNext({ route: 'listTasks', kind: 'html', count: Infinity });
      const error = await failure(drive(remote.listTasksPage(project!.id, 2, PAGE_SIZE), clock));
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error.message).toMatch(
        new RegExp(`^GET listTasks of ${project!.id} page 2: malformed response: HTTP 502`),
      );
    } finally {
      await remote.close();
    }
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, projects: 1, tasks: 0 });
    const { remote } = clientOf(sim, clock);
    try {
      const [project] = await remote.listProjects();
      const request = {
        route: 'createTask' as const,
        params: { projectId: project!.id },
        projectId: project!.id,
        body: '{"name":"Pour","startDate":"2026-02-02","endDate":"2026-02-03","status":"NotStarted"}',
        idempotencyKey: 'key-7',
      };
      const created = await remote.send(request);
      const replayed = await remote.send(request);
      expect(created.status).toBe(201);
      expect(replayed.body).toEqual(created.body);
      expect(sim.service.listTasks(project!.id)).toHaveLength(1);
    } finally {
      await remote.close();
    }
  });
});
