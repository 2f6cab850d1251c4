import { describe, expect, test } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, connectRealtime, errorCode, newTask } from './helpers.js';

const KEY = { 'idempotency-key': 'key-1' };

describe('idempotency of creates (spec 4.1 rules 3-6)', () => {
  test('a repeat replays the creation snapshot, even after the task changed or was deleted', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const api = client(sim);
    const body = JSON.stringify(newTask({ name: 'Original' }));
    const first = await api.send('POST', '/projects/p_1/tasks', body, KEY);
    expect(first.status).toBe(201);
    const created = (await first.json()) as Task;
    sim.service.updateTask(created.id, { name: 'Changed', progress: 50 });
    const afterChange = await api.send('POST', '/projects/p_1/tasks', body, KEY);
    expect(afterChange.status).toBe(201);
    expect(await afterChange.json()).toEqual(created);
    expect(afterChange.headers.get('idempotent-replayed')).toBe('true');
    sim.service.deleteTask(created.id);
    const afterDelete = await api.send('POST', '/projects/p_1/tasks', body, KEY);
    expect(afterDelete.status).toBe(201);
    expect(await afterDelete.json()).toEqual(created);
    expect(sim.service.taskCount('p_1')).toBe(2);
  });

  test('a replay creates no duplicate and broadcasts nothing', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const api = client(sim);
    const events = await connectRealtime(sim, sim.token);
    const body = JSON.stringify(newTask());
    await api.send('POST', '/projects/p_1/tasks', body, KEY);
    await api.send('POST', '/projects/p_1/tasks', body, KEY);
    sim.service.addMember('p_1', { name: 'Sentinel' });
    await events.waitFor(
      (event) => (event['data'] as { name?: string } | undefined)?.name === 'Sentinel',
    );
    expect(sim.service.taskCount('p_1')).toBe(1);
    const created = events.messages.filter((text) => text.includes('"task.created"'));
    expect(created.length).toBe(1);
  });

  test('the same key with a different body answers 409 idempotency_conflict', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const api = client(sim);
    expect((await api.send('POST', '/projects/p_1/tasks', newTask(), KEY)).status).toBe(201);
    const conflict = await api.send('POST', '/projects/p_1/tasks', newTask({ name: 'Other' }), KEY);
    expect(conflict.status).toBe(409);
    expect(await errorCode(conflict)).toBe('idempotency_conflict');
    expect(sim.service.taskCount('p_1')).toBe(1);
  });

  test('keys are scoped to the token and to the project', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 0 });
    const other = sim.service.createToken();
    const body = JSON.stringify(newTask());
    expect((await client(sim).send('POST', '/projects/p_1/tasks', body, KEY)).status).toBe(201);
    const otherToken = await client(sim, other).send('POST', '/projects/p_1/tasks', body, KEY);
    expect(otherToken.status).toBe(201);
    expect(otherToken.headers.get('idempotent-replayed')).toBeNull();
    expect(sim.service.taskCount('p_1')).toBe(2);
    const otherProject = await client(sim).send('POST', '/projects/p_2/tasks', body, KEY);
    expect(otherProject.status).toBe(201);
    expect(sim.service.taskCount('p_2')).toBe(1);
  });

  test('create resource and add dependency accept Idempotency-Key too', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, dependenciesPerProject: 0 });
    const api = client(sim);
    const resource = { name: 'Crane' };
    const r1 = await api.send('POST', '/projects/p_1/resources', resource, KEY);
    const r2 = await api.send('POST', '/projects/p_1/resources', resource, KEY);
    expect(r1.status).toBe(201);
    expect(await r2.json()).toEqual(await r1.json());
    expect(sim.service.listResources('p_1').filter((row) => row.name === 'Crane').length).toBe(1);
    const [a, b] = sim.service.listTasks('p_1');
    const dependency = { predecessorId: a?.id, successorId: b?.id };
    const d1 = await api.send('POST', '/projects/p_1/dependencies', dependency, {
      'idempotency-key': 'd',
    });
    const d2 = await api.send('POST', '/projects/p_1/dependencies', dependency, {
      'idempotency-key': 'd',
    });
    expect(d1.status).toBe(201);
    expect(d2.status).toBe(201);
    expect(sim.service.listDependencies('p_1').length).toBe(1);
    const conflict = await api.send(
      'POST',
      '/projects/p_1/resources',
      { name: 'Van' },
      { 'idempotency-key': 'd' },
    );
    expect(conflict.status).toBe(409);
  });

  test('a failed create is not cached: the same key may succeed later', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const api = client(sim);
    sim.service.setReadOnly('p_1', 'archived');
    const body = JSON.stringify(newTask());
    expect((await api.send('POST', '/projects/p_1/tasks', body, KEY)).status).toBe(403);
    sim.service.setReadOnly('p_1', null);
    expect((await api.send('POST', '/projects/p_1/tasks', body, KEY)).status).toBe(201);
    expect(sim.service.taskCount('p_1')).toBe(1);
  });
});
