import { describe, expect, test } from 'vitest';
import type { Member, Project, Task } from '../../src/domain/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode, newTask } from './helpers.js';

describe('authentication, scopes and integration identities (spec section 5)', () => {
  test('a missing or unknown token answers 401 unauthorized', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const none = await client(sim, null).get('/projects');
    expect(none.status).toBe(401);
    expect(await errorCode(none)).toBe('unauthorized');
    const unknown = await client(sim, 'glt_test_not_issued').get('/projects');
    expect(unknown.status).toBe(401);
    const basic = await fetch(`${sim.baseUrl}/projects`, {
      headers: { authorization: `Basic ${sim.token}` },
    });
    expect(basic.status).toBe(401);
  });

  test('a project token sees only its granted projects; others answer 403 forbidden', async () => {
    const sim = await startTestSimulator({ projects: 3, tasks: 2 });
    const pinned = sim.service.createToken({ projects: ['p_2'] });
    const api = client(sim, pinned);
    const projects = (await (await api.get('/projects')).json()) as Project[];
    expect(projects.map((project) => project.id)).toEqual(['p_2']);
    expect((await api.get('/projects/p_2/tasks')).status).toBe(200);
    for (const path of ['/projects/p_1', '/projects/p_1/tasks', '/projects/p_3/members']) {
      const refused = await api.get(path);
      expect(refused.status).toBe(403);
      expect(await errorCode(refused)).toBe('forbidden');
    }
    const taskOfP1 = sim.service.listTasks('p_1')[0]?.id ?? '';
    expect((await api.get(`/tasks/${taskOfP1}`)).status).toBe(403);
    expect((await api.send('POST', '/projects/p_1/tasks', newTask())).status).toBe(403);
    expect((await api.get('/projects/p_404')).status).toBe(404);
  });

  test("an account token sees every project of its user, and no other user's", async () => {
    const sim = await startTestSimulator({ projects: 2 });
    const stranger = sim.service.addUser({ name: 'Stranger' });
    sim.service.addProject({ id: 'p_theirs', userIds: [stranger] });
    const projects = (await (await client(sim).get('/projects')).json()) as Project[];
    expect(projects.map((project) => project.id)).toEqual(['p_1', 'p_2']);
    expect((await client(sim).get('/projects/p_theirs')).status).toBe(403);
    const theirs = sim.service.createToken({ userId: stranger });
    const listed = (await (await client(sim, theirs).get('/projects')).json()) as Project[];
    expect(listed.map((project) => project.id)).toEqual(['p_theirs']);
  });

  test('each token gets its own integration member, the default assignee of what it creates', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 0 });
    const second = sim.service.createToken({ projects: ['p_1'] });
    const created = (await (
      await client(sim).send('POST', '/projects/p_1/tasks', newTask())
    ).json()) as Task;
    const other = (await (
      await client(sim, second).send('POST', '/projects/p_1/tasks', newTask())
    ).json()) as Task;
    const members = sim.service
      .listMembers('p_1')
      .filter((member) => member.kind === 'integration');
    expect(members.length).toBe(2);
    expect(created.assigneeIds).toEqual([sim.service.integrationMemberId(sim.token, 'p_1')]);
    expect(other.assigneeIds).toEqual([sim.service.integrationMemberId(second, 'p_1')]);
    expect(created.assigneeIds).not.toEqual(other.assigneeIds);
    const person = sim.service
      .listMembers('p_1')
      .find((member) => member.kind === 'person') as Member;
    const assigned = await client(sim).send(
      'POST',
      '/projects/p_1/tasks',
      newTask({ assigneeIds: [person.id] }),
    );
    expect(((await assigned.json()) as Task).assigneeIds).toEqual([person.id]);
    const nobody = await client(sim).send(
      'POST',
      '/projects/p_1/tasks',
      newTask({ assigneeIds: [] }),
    );
    expect(((await nobody.json()) as Task).assigneeIds).toEqual([]);
  });

  test('the integration identity joins the roster on the first successful write, not on reads', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const api = client(sim);
    await api.get('/projects/p_1/tasks');
    await api.get('/projects/p_1/members');
    expect(sim.service.integrationMemberId(sim.token, 'p_1')).toBeUndefined();
    await api.send('POST', '/projects/p_1/tasks', newTask({ name: '' })); // refused: 400
    expect(sim.service.integrationMemberId(sim.token, 'p_1')).toBeUndefined();
    const [task] = sim.service.listTasks('p_1');
    await api.send('PATCH', `/tasks/${task?.id}`, { progress: 10 });
    const id = sim.service.integrationMemberId(sim.token, 'p_1');
    const members = (await (await api.get('/projects/p_1/members')).json()) as Member[];
    expect(members).toContainEqual({ id, name: expect.any(String) as string, kind: 'integration' });
    await api.send('PATCH', `/tasks/${task?.id}`, { progress: 20 });
    expect(
      sim.service.listMembers('p_1').filter((member) => member.kind === 'integration').length,
    ).toBe(1);
  });

  test('a revoked token answers 401', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const token = sim.service.createToken();
    expect((await client(sim, token).get('/projects')).status).toBe(200);
    sim.service.revokeToken(token);
    expect((await client(sim, token).get('/projects')).status).toBe(401);
  });
});

describe('common headers', () => {
  test('every response carries X-Trace-Id and the CORS headers, errors and 304 included', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const api = client(sim);
    const page = await api.get('/projects/p_1/tasks');
    const responses = [
      page,
      await api.get('/projects/p_1/tasks', { 'if-none-match': page.headers.get('etag') ?? '' }),
      await client(sim, null).get('/projects'),
      await api.get('/nowhere'),
      await api.get('/health'),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 304, 401, 404, 200]);
    const traceIds = responses.map((response) => response.headers.get('x-trace-id'));
    expect(traceIds.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(traceIds).size).toBe(traceIds.length);
    for (const response of responses) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const exposed = response.headers.get('access-control-expose-headers') ?? '';
      for (const name of [
        'ETag',
        'X-Total-Count',
        'X-Trace-Id',
        'Retry-After',
        'X-Quota-Limit',
        'X-Quota-Remaining',
      ]) {
        expect(exposed).toContain(name);
      }
    }
  });

  test('an OPTIONS preflight is answered without a token and is not counted', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const preflight = await fetch(`${sim.baseUrl}/projects/p_1/tasks`, {
      method: 'OPTIONS',
      headers: { origin: 'http://board.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'idempotency-key',
    );
    expect(sim.limits.usage(sim.token).quotaUsed).toBe(0);
  });
});
