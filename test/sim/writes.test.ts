import { describe, expect, test } from 'vitest';
import type { Dependency, Resource, Task } from '../../src/domain/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode, newTask } from './helpers.js';

describe('create task validation (400 validation_failed)', () => {
  test.each([
    ['no name', { name: undefined }],
    ['an empty name', { name: '  ' }],
    ['a non-string name', { name: 7 }],
    ['no startDate', { startDate: undefined }],
    ['an impossible date', { startDate: '2026-02-30' }],
    ['a date in another format', { endDate: '03/05/2026' }],
    ['no status', { status: undefined }],
    ['a non-string status', { status: 3 }],
    ['progress above 100', { progress: 101 }],
    ['negative progress', { progress: -1 }],
    ['non-numeric progress', { progress: '50' }],
    ['assigneeIds not an array', { assigneeIds: 'm_1' }],
    ['an assignee who is not a member', { assigneeIds: ['m_nobody'] }],
  ])('refuses %s', async (_label, overrides) => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const response = await client(sim).send('POST', '/projects/p_1/tasks', newTask(overrides));
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('validation_failed');
    expect(sim.service.taskCount('p_1')).toBe(0);
  });

  test.each([
    ['malformed JSON', '{"name": '],
    ['a JSON array', '[]'],
    ['a JSON string', '"task"'],
    ['null', 'null'],
  ])('refuses %s as a body', async (_label, body) => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const response = await client(sim).send('POST', '/projects/p_1/tasks', body);
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('validation_failed');
  });

  test('a body above maxBodyBytes answers 413 on a connection that survives', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0, maxBodyBytes: 64 });
    const response = await client(sim).send(
      'POST',
      '/projects/p_1/tasks',
      newTask({ name: 'x'.repeat(100) }),
    );
    expect(response.status).toBe(413);
    expect(await errorCode(response)).toBe('payload_too_large');
  });

  test('a body without Content-Type: application/json answers 415', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const response = await client(sim).send('POST', '/projects/p_1/tasks', newTask(), {
      'content-type': 'text/plain',
    });
    expect(response.status).toBe(415);
  });
});

describe('status and progress derivation (spec section 3, contract section 4)', () => {
  async function setup() {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const api = client(sim);
    const create = async (overrides: Record<string, unknown>) =>
      (await (await api.send('POST', '/projects/p_1/tasks', newTask(overrides))).json()) as Task;
    const patch = async (id: string, body: unknown) =>
      (await (await api.send('PATCH', `/tasks/${id}`, body)).json()) as Task;
    return { create, patch };
  }

  test('update with status Done alone derives progress 100', async () => {
    const { create, patch } = await setup();
    const task = await create({ status: 'InProgress', progress: 40 });
    expect(await patch(task.id, { status: 'Done' })).toMatchObject({
      status: 'Done',
      progress: 100,
    });
  });

  test('update with progress alone derives the status: 0, 1..99, 100', async () => {
    const { create, patch } = await setup();
    const task = await create({ status: 'NotStarted' });
    expect(await patch(task.id, { progress: 30 })).toMatchObject({
      status: 'InProgress',
      progress: 30,
    });
    expect(await patch(task.id, { progress: 100 })).toMatchObject({
      status: 'Done',
      progress: 100,
    });
    expect(await patch(task.id, { progress: 0 })).toMatchObject({
      status: 'NotStarted',
      progress: 0,
    });
  });

  test('sending both stores both as sent, even when they disagree', async () => {
    const { create, patch } = await setup();
    const task = await create({ status: 'Done', progress: 10 });
    expect(task).toMatchObject({ status: 'Done', progress: 10 });
    expect(await patch(task.id, { status: 'NotStarted', progress: 80 })).toMatchObject({
      status: 'NotStarted',
      progress: 80,
    });
  });

  test('status alone: NotStarted is 0, InProgress keeps progress within 1..99, others keep it', async () => {
    const { create, patch } = await setup();
    const task = await create({ status: 'InProgress', progress: 55 });
    expect(await patch(task.id, { status: 'InProgress' })).toMatchObject({ progress: 55 });
    expect(await patch(task.id, { status: 'Blocked' })).toMatchObject({
      status: 'Blocked',
      progress: 55,
    });
    expect(await patch(task.id, { status: 'NotStarted' })).toMatchObject({ progress: 0 });
    expect(await patch(task.id, { status: 'InProgress' })).toMatchObject({ progress: 1 });
    expect(await create({ status: 'Done' })).toMatchObject({ progress: 100 });
  });

  test('an update changes updatedAt and refuses a body that sets nothing', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const [task] = sim.service.listTasks('p_1');
    const response = await client(sim).send('PATCH', `/tasks/${task?.id}`, { name: 'New name' });
    expect(((await response.json()) as Task).updatedAt).not.toBe(task?.updatedAt);
    const empty = await client(sim).send('PATCH', `/tasks/${task?.id}`, { unknown: 1 });
    expect(empty.status).toBe(400);
  });
});

describe('read-only projects', () => {
  test('every write to a project with a readOnlyReason answers 403 project_read_only', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2, readOnlyProjects: 1 });
    const api = client(sim);
    const [a, b] = sim.service.listTasks('p_1');
    const [resource] = sim.service.listResources('p_1');
    const [dependency] = sim.service.listDependencies('p_1');
    const writes: [string, string, unknown][] = [
      ['POST', '/projects/p_1/tasks', newTask()],
      ['PATCH', `/tasks/${a?.id}`, { status: 'Done' }],
      ['DELETE', `/tasks/${a?.id}`, undefined],
      ['POST', '/projects/p_1/tasks/reorder', { taskIds: [b?.id, a?.id] }],
      ['PUT', `/tasks/${a?.id}/assignees`, { assigneeIds: [] }],
      ['PUT', '/projects/p_1/dependencies', []],
      ['POST', '/projects/p_1/dependencies', { predecessorId: b?.id, successorId: a?.id }],
      ['DELETE', `/dependencies/${dependency?.id}`, undefined],
      ['POST', '/projects/p_1/resources', { name: 'Van' }],
      ['PATCH', `/resources/${resource?.id}`, { name: 'Van' }],
      ['DELETE', `/resources/${resource?.id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const response = await api.send(method, path, body);
      expect(`${method} ${path} ${response.status}`).toBe(`${method} ${path} 403`);
      expect(await errorCode(response)).toBe('project_read_only');
    }
    expect(sim.service.listTasks('p_1')).toEqual([a, b]);
    expect((await api.get('/projects/p_1/tasks')).status).toBe(200);
  });
});

describe('the other task operations', () => {
  test('delete answers 204, then the task is gone (404) with its dependencies', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, dependenciesPerProject: 2 });
    const [first] = sim.service.listTasks('p_1');
    const response = await client(sim).send('DELETE', `/tasks/${first?.id}`);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const again = await client(sim).get(`/tasks/${first?.id}`);
    expect(again.status).toBe(404);
    expect(await errorCode(again)).toBe('not_found');
    expect(sim.service.listDependencies('p_1').length).toBe(1);
  });

  test('reorder: the listed tasks take the positions they occupy, in the listed order', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5 });
    const ids = sim.service.listTasks('p_1').map((task) => task.id);
    const [t1, t2, t3, t4, t5] = ids;
    const response = await client(sim).send('POST', '/projects/p_1/tasks/reorder', {
      taskIds: [t4, t2],
    });
    expect(response.status).toBe(204);
    const page = (await (await client(sim).get('/projects/p_1/tasks')).json()) as Task[];
    expect(page.map((task) => task.id)).toEqual([t1, t4, t3, t2, t5]);
    const bad = await client(sim).send('POST', '/projects/p_1/tasks/reorder', {
      taskIds: [t1, t1],
    });
    expect(bad.status).toBe(400);
  });

  test('set assignees replaces the list; members only', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1, membersPerProject: 2 });
    const [task] = sim.service.listTasks('p_1');
    const [m1, m2] = sim.service.listMembers('p_1');
    const response = await client(sim).send('PUT', `/tasks/${task?.id}/assignees`, {
      assigneeIds: [m2?.id, m1?.id],
    });
    expect(((await response.json()) as Task).assigneeIds).toEqual([m2?.id, m1?.id]);
    const bad = await client(sim).send('PUT', `/tasks/${task?.id}/assignees`, {
      assigneeIds: ['x'],
    });
    expect(bad.status).toBe(400);
  });

  test('set dependencies replaces the whole set; add and remove work one by one', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 4, dependenciesPerProject: 3 });
    const [a, b, c, d] = sim.service.listTasks('p_1').map((task) => task.id);
    const kept = sim.service.listDependencies('p_1')[0] as Dependency;
    const api = client(sim);
    const set = await api.send('PUT', '/projects/p_1/dependencies', [
      { predecessorId: a, successorId: b },
      { predecessorId: c, successorId: d, type: 'SS' },
    ]);
    expect(set.status).toBe(200);
    const listed = (await (await api.get('/projects/p_1/dependencies')).json()) as Dependency[];
    expect(listed).toEqual([
      { id: kept.id, predecessorId: a, successorId: b, type: 'FS' },
      { id: expect.any(String) as string, predecessorId: c, successorId: d, type: 'SS' },
    ]);
    const added = await api.send('POST', '/projects/p_1/dependencies', {
      predecessorId: b,
      successorId: c,
    });
    const dependency = (await added.json()) as Dependency;
    expect(added.status).toBe(201);
    expect((await api.send('DELETE', `/dependencies/${dependency.id}`)).status).toBe(204);
    expect(sim.service.listDependencies('p_1').length).toBe(2);
    const selfLoop = await api.send('POST', '/projects/p_1/dependencies', {
      predecessorId: a,
      successorId: a,
    });
    expect(selfLoop.status).toBe(400);
  });

  test('resources: create 201, rename, delete 204', async () => {
    const sim = await startTestSimulator({ projects: 1, resourcesPerProject: 0 });
    const api = client(sim);
    const created = (await (
      await api.send('POST', '/projects/p_1/resources', { name: 'Crane' })
    ).json()) as Resource;
    const renamed = await api.send('PATCH', `/resources/${created.id}`, { name: 'Tower crane' });
    expect(await renamed.json()).toEqual({ id: created.id, name: 'Tower crane' });
    expect((await api.send('DELETE', `/resources/${created.id}`)).status).toBe(204);
    expect(await (await api.get('/projects/p_1/resources')).json()).toEqual([]);
    expect((await api.send('POST', '/projects/p_1/resources', { name: '' })).status).toBe(400);
  });

  test('unknown paths answer 404, known paths with another method 405', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    expect((await client(sim).get('/tasks')).status).toBe(404);
    expect((await fetch(sim.baseUrl.replace('/v1', '/v2/projects'))).status).toBe(404);
    const wrong = await client(sim).send('DELETE', '/projects/p_1');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });
});
