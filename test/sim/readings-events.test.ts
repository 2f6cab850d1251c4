import { describe, expect, test } from 'vitest';
import type { Member, Task } from '../../src/domain/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, connectRealtime, drainMessages } from './helpers.js';

function integrationMembers(sim: Simulator, projectId: string): Member[] {
  return sim.service.listMembers(projectId).filter((member) => member.kind === 'integration');
}

function ofTypes(messages: Record<string, unknown>[], ...types: string[]) {
  return messages.filter((message) => types.includes(String(message['type'])));
}

describe("readings: when the integration identity appears (spec 2 'Member', 5.5)", () => {
  test("identity 'first-request': a read adds it, announced as member.changed with its data", async () => {
    const sim = await startTestSimulator({
      projects: 2,
      tasks: 2,
      readOnlyProjects: 1,
      readings: { identity: 'first-request' },
    });
    const events = await connectRealtime(sim, sim.token);
    const reader = sim.service.createToken({ projects: ['p_1', 'p_2'], label: 'Reader' });
    expect((await client(sim, reader).get('/projects')).status).toBe(200);
    expect(integrationMembers(sim, 'p_1')).toEqual([]); // list projects names no project
    expect((await client(sim, reader).get('/projects/p_1/tasks')).status).toBe(200);
    const id = sim.service.integrationMemberId(reader, 'p_1');
    const data = { id, name: 'Reader (integration)', kind: 'integration' };
    expect(integrationMembers(sim, 'p_1')).toEqual([data]);
    expect(await events.waitFor((message) => message['type'] === 'member.changed')).toEqual({
      type: 'member.changed',
      projectId: 'p_1',
      id,
      data,
    });

    await client(sim, reader).get('/projects/p_1/members');
    await client(sim, reader).get('/projects/p_1');
    expect(integrationMembers(sim, 'p_1').length).toBe(1);
    const lister = sim.service.createToken({ projects: ['p_1'], label: 'Lister' });
    const listed = (await (
      await client(sim, lister).get('/projects/p_1/members')
    ).json()) as Member[];
    expect(listed).toContainEqual({
      id: sim.service.integrationMemberId(lister, 'p_1'),
      name: 'Lister (integration)',
      kind: 'integration',
    });

    expect(sim.service.getProject('p_2')?.readOnlyReason).not.toBeNull();
    await client(sim, reader).get('/projects/p_2/resources');
    expect(sim.service.integrationMemberId(reader, 'p_2')).toBeDefined();
  });

  test("identity 'first-write': reads add nothing; the first write adds and announces it", async () => {
    const sim = await startTestSimulator({
      projects: 1,
      tasks: 2,
      readings: { identity: 'first-write' },
    });
    const events = await connectRealtime(sim, sim.token);
    const writer = sim.service.createToken({ projects: ['p_1'], label: 'Writer' });
    const api = client(sim, writer);
    for (const path of ['/projects/p_1', '/projects/p_1/tasks', '/projects/p_1/members']) {
      expect((await api.get(path)).status).toBe(200);
    }
    expect(integrationMembers(sim, 'p_1')).toEqual([]);
    expect(ofTypes(await drainMessages(sim, events, 'p_1'), 'member.changed')).toEqual([]);
    const [task] = sim.service.listTasks('p_1');
    expect((await api.send('PATCH', `/tasks/${task?.id}`, { name: 'Renamed' })).status).toBe(200);
    const id = sim.service.integrationMemberId(writer, 'p_1');
    const data = { id, name: 'Writer (integration)', kind: 'integration' };
    expect(integrationMembers(sim, 'p_1')).toEqual([data]);
    expect(ofTypes(await drainMessages(sim, events, 'p_1'), 'member.changed')).toEqual([
      { type: 'member.changed', projectId: 'p_1', id, data },
    ]);
  });
});

describe('readings: how set dependencies is announced', () => {
  /** A seeded chain t1->t2->t3->t4, then a PUT that keeps one, changes one, drops one, adds one. */
  async function setAndCollect(reading: 'one-message' | 'per-record') {
    const sim = await startTestSimulator({
      projects: 1,
      tasks: 5,
      dependenciesPerProject: 3,
      readings: { setDependencies: reading },
    });
    const events = await connectRealtime(sim, sim.token);
    const tasks = sim.service.listTasks('p_1').map((task) => task.id);
    const [kept, changed, dropped] = sim.service.listDependencies('p_1');
    const body = [
      { predecessorId: kept?.predecessorId, successorId: kept?.successorId },
      {
        id: changed?.id,
        predecessorId: changed?.predecessorId,
        successorId: changed?.successorId,
        type: 'SS',
      },
      { predecessorId: tasks[3], successorId: tasks[4] },
    ];
    const response = await client(sim).send('PUT', '/projects/p_1/dependencies', body);
    expect(response.status).toBe(200);
    const after = sim.service.listDependencies('p_1');
    const messages = ofTypes(await drainMessages(sim, events, 'p_1'), 'dependency.changed');
    const again = await client(sim).send('PUT', '/projects/p_1/dependencies', after);
    expect(again.status).toBe(200);
    const repeat = ofTypes(await drainMessages(sim, events, 'p_1'), 'dependency.changed');
    return { messages, repeat, after, dropped };
  }

  test("setDependencies 'one-message': one dependency.changed without id or data", async () => {
    const { messages, repeat } = await setAndCollect('one-message');
    expect(messages).toEqual([{ type: 'dependency.changed', projectId: 'p_1' }]);
    expect(repeat).toEqual([{ type: 'dependency.changed', projectId: 'p_1' }]);
  });

  test("setDependencies 'per-record': one per removed, then one per added or changed, with data", async () => {
    const { messages, repeat, after, dropped } = await setAndCollect('per-record');
    const [, changed, added] = after;
    expect(changed?.type).toBe('SS');
    expect(messages).toEqual([
      { type: 'dependency.changed', projectId: 'p_1', id: dropped?.id },
      { type: 'dependency.changed', projectId: 'p_1', id: changed?.id, data: changed },
      { type: 'dependency.changed', projectId: 'p_1', id: added?.id, data: added },
    ]);
    expect(repeat).toEqual([]); // the same set again changes nothing
  });
});

describe('readings: how reorder is announced', () => {
  async function reorderAndCollect(reading: 'one-message' | 'per-record') {
    const sim = await startTestSimulator({ projects: 1, tasks: 4, readings: { reorder: reading } });
    const events = await connectRealtime(sim, sim.token);
    const before = sim.service.listTasks('p_1');
    const [t1, t2, t3, t4] = before.map((task) => task.id);
    const api = client(sim);
    expect(
      (await api.send('POST', '/projects/p_1/tasks/reorder', { taskIds: [t3, t1] })).status,
    ).toBe(204);
    expect(sim.service.listTasks('p_1').map((task) => task.id)).toEqual([t3, t2, t1, t4]);
    const messages = ofTypes(
      await drainMessages(sim, events, 'p_1'),
      'task.updated',
      'project.updated',
    );
    await api.send('POST', '/projects/p_1/tasks/reorder', { taskIds: [t3, t2] }); // no move
    const unmoved = ofTypes(
      await drainMessages(sim, events, 'p_1'),
      'task.updated',
      'project.updated',
    );
    return { sim, before, messages, unmoved };
  }

  test("reorder 'one-message': one project.updated with the project's data", async () => {
    const { sim, messages } = await reorderAndCollect('one-message');
    const project = sim.service.getProject('p_1');
    expect(messages).toEqual([
      { type: 'project.updated', projectId: 'p_1', id: 'p_1', data: project },
    ]);
  });

  test("reorder 'per-record': one task.updated with data per moved task, records unchanged", async () => {
    const { before, messages, unmoved } = await reorderAndCollect('per-record');
    const [t1, , t3] = before as Task[];
    expect(messages).toEqual([
      { type: 'task.updated', projectId: 'p_1', id: t3?.id, data: t3 },
      { type: 'task.updated', projectId: 'p_1', id: t1?.id, data: t1 },
    ]);
    expect(unmoved).toEqual([]);
  });
});
