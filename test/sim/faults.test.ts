import { connect } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { hashToken } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode, newTask, settle } from './helpers.js';

describe('fault injection', () => {
  test('status: the next N requests of a route fail with the chosen status and code', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 503, count: 2 });
    const api = client(sim);
    expect((await api.get('/projects')).status).toBe(200); // another route is untouched
    const first = await api.get('/projects/p_1/tasks');
    expect(first.status).toBe(503);
    expect(await errorCode(first)).toBe('service_unavailable');
    expect((await api.get('/projects/p_1/tasks')).status).toBe(503);
    expect((await api.get('/projects/p_1/tasks')).status).toBe(200);
    expect(sim.faults.pending).toBe(0);
  });

  test('status faults may carry headers such as Retry-After and cost no quota', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    sim.faults.failNext({
      kind: 'status',
      status: 429,
      code: 'rate_limited',
      headers: { 'Retry-After': '7' },
    });
    const refused = await client(sim).get('/projects');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(sim.limits.usage(sim.token).quotaUsed).toBe(0);
  });

  test('html: an HTML error page', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    sim.faults.failNext({ route: 'getProject', kind: 'html' });
    const response = await client(sim).get('/projects/p_1');
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('<html>');
  });

  test('malformed: a 200 whose JSON does not parse', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    sim.faults.failNext({ route: 'listTasks', kind: 'malformed' });
    const response = await client(sim).get('/projects/p_1/tasks');
    expect(response.status).toBe(200);
    await expect(response.json()).rejects.toThrow();
  });

  test('wrongShape: a 200 with JSON of the wrong shape', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    sim.faults.failNext({ route: 'listTasks', kind: 'wrongShape' });
    sim.faults.failNext({ route: 'getTask', kind: 'wrongShape' });
    const list = (await (await client(sim).get('/projects/p_1/tasks')).json()) as unknown;
    expect(Array.isArray(list)).toBe(false);
    const one = (await (await client(sim).get('/tasks/t_1')).json()) as unknown;
    expect(Array.isArray(one)).toBe(true);
  });

  test('drop: the socket closes without an answer', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    sim.faults.failNext({ route: '*', kind: 'drop' });
    await expect(client(sim).get('/projects')).rejects.toThrow();
    expect(sim.requestLog.count({ dropped: true, route: 'listProjects' })).toBe(1);
    expect((await client(sim).get('/projects')).status).toBe(200);
  });

  test('commitThenDrop: the create is applied, then the socket drops; a retry with the key replays', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    sim.faults.failNext({ route: 'createTask', kind: 'commitThenDrop' });
    const body = JSON.stringify(newTask({ name: 'Committed' }));
    const key = { 'idempotency-key': 'retry-me' };
    await expect(client(sim).send('POST', '/projects/p_1/tasks', body, key)).rejects.toThrow();
    expect(sim.service.listTasks('p_1').map((task) => task.name)).toEqual(['Committed']);
    const retry = await client(sim).send('POST', '/projects/p_1/tasks', body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(sim.service.taskCount('p_1')).toBe(1);
  });

  test('delay: the answer comes after the delay (real time)', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    sim.faults.delay({ route: 'listProjects', ms: 150 });
    const started = performance.now();
    expect((await client(sim).get('/projects')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  test('beforePage: the model changes between two page requests of a client', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 10 });
    sim.faults.beforePage('p_1', 2, () => {
      sim.service.deleteTask(sim.service.listTasks('p_1')[0]?.id ?? '');
      sim.service.createTask('p_1', { name: 'Added while paging' });
    });
    const api = client(sim);
    const first = await api.get('/projects/p_1/tasks?page=1&pageSize=5');
    const second = await api.get('/projects/p_1/tasks?page=2&pageSize=5');
    expect(first.headers.get('x-total-count')).toBe('10');
    expect(second.headers.get('x-total-count')).toBe('10');
    const rows = [...((await first.json()) as Task[]), ...((await second.json()) as Task[])];
    // One row shifted from page 2 to page 1 after the delete, so it is missed by this read.
    expect(new Set(rows.map((row) => row.id)).size).toBe(10);
    expect(rows.map((row) => row.name)).toContain('Added while paging');
    expect(rows.map((row) => row.id)).not.toEqual(
      sim.service.listTasks('p_1').map((task) => task.id),
    );
    expect(sim.faults.pending).toBe(0);
  });

  test('a client that goes away mid-body is logged as dropped, quietly, and serving goes on', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const stderr = vi.spyOn(process.stderr, 'write');
    const { port } = new URL(sim.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /v1/projects/p_1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sim.token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    await settle(); // the server has the headers and waits for the rest of the body
    socket.destroy();
    await expect.poll(() => sim.requestLog.count({ route: 'createTask', dropped: true })).toBe(1);
    expect(stderr).not.toHaveBeenCalledWith(expect.stringContaining('internal error'));
    stderr.mockRestore();
    expect((await client(sim).get('/projects')).status).toBe(200);
  });

  test('the request log records route, status, code, token hash and the headers that matter', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const api = client(sim);
    await api.get('/projects/p_1/tasks', { 'if-none-match': '"x"' });
    await api.send('POST', '/projects/p_1/tasks', newTask(), { 'idempotency-key': 'k' });
    await client(sim, null).get('/projects');
    expect(sim.requestLog.count({ route: 'listTasks', token: sim.token })).toBe(1);
    const [create] = sim.requestLog.filter({ route: 'createTask' });
    expect(create).toMatchObject({
      method: 'POST',
      path: '/v1/projects/p_1/tasks',
      status: 201,
      tokenHash: hashToken(sim.token),
      headers: { 'idempotency-key': 'k', 'content-type': 'application/json' },
    });
    expect(sim.requestLog.filter({ route: 'listTasks' })[0]?.headers['if-none-match']).toBe('"x"');
    expect(sim.requestLog.count({ code: 'unauthorized' })).toBe(1);
    expect(JSON.stringify(sim.requestLog.entries)).not.toContain(sim.token);
  });
});
