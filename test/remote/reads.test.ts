import { describe, expect, it } from 'vitest';
import { MalformedResponseError, RemoteStatusError, UsageError } from '../../src/domain/index.js';
import { clientOf, failure, standIn, TOKEN, type Reply } from './stand-in.js';

const TASK = {
  id: 't_1',
  name: 'Dig',
  startDate: '2026-01-05',
  endDate: '2026-01-09',
  status: 'InProgress',
  progress: 40,
  assigneeIds: ['m_1'],
  colour: 'red',
};

function page(rows: unknown, headers: Record<string, string> = {}): Reply {
  return { status: 200, headers: { 'x-total-count': '1', etag: '"p1"', ...headers }, body: rows };
}

describe('reads', () => {
  it('lists projects with the bearer token and JSON accept, under the base path', async () => {
    const stand = await standIn(() => ({
      status: 200,
      headers: { 'x-quota-limit': '5000', 'x-quota-remaining': '4999' },
      body: [
        { id: 'p_1', name: 'Build', active: true, readOnlyReason: null, extra: 1 },
        { id: 'p_2' },
      ],
    }));
    const { remote, gate } = clientOf(stand);
    const projects = await remote.listProjects();
    expect(projects).toEqual([
      { id: 'p_1', name: 'Build', active: true, readOnlyReason: null, extra: 1 },
      { id: 'p_2' },
    ]);
    expect(stand.seen[0]).toMatchObject({ method: 'GET', url: '/v1/projects' });
    expect(stand.seen[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(stand.seen[0]?.headers['accept']).toBe('application/json');
    expect(gate.acquired).toEqual(['poll']);
    expect(gate.observed).toEqual([{ status: 200, quotaLimit: 5000, quotaRemaining: 4999 }]);
    expect(gate.inner.snapshot().quotaRemaining).toBe(4999);
  });

  it('pages tasks with page and pageSize, keeping unknown fields', async () => {
    const stand = await standIn(() => page([TASK], { 'x-total-count': '701' }));
    const { remote } = clientOf(stand);
    const result = await remote.listTasksPage('p 1', 2, 500);
    expect(stand.seen[0]?.url).toBe('/v1/projects/p%201/tasks?page=2&pageSize=500');
    expect(result).toEqual({ notModified: false, etag: '"p1"', totalCount: 701, rows: [TASK] });
  });

  it('sends If-None-Match and returns notModified on 304, counting it', async () => {
    const stand = await standIn((seen) =>
      seen.headers['if-none-match'] === '"p1"'
        ? { status: 304, headers: { etag: '"p1"', 'x-total-count': '1', 'x-quota-remaining': '9' } }
        : page([TASK]),
    );
    const { remote, gate } = clientOf(stand);
    const first = await remote.listTasksPage('p_1', 1, 100);
    expect(first.etag).toBe('"p1"');
    const again = await remote.listTasksPage('p_1', 1, 100, first.etag);
    expect(again).toEqual({ notModified: true, etag: '"p1"', totalCount: 1 });
    expect(stand.seen[1]?.headers['if-none-match']).toBe('"p1"');
    expect(gate.observed.map((o) => o.status)).toEqual([200, 304]);
  });

  it('gets a project conditionally', async () => {
    const stand = await standIn((seen): Reply =>
      seen.headers['if-none-match'] === '"v7"'
        ? { status: 304 }
        : { status: 200, headers: { etag: '"v7"' }, body: { id: 'p_1', name: 'Build' } },
    );
    const { remote } = clientOf(stand);
    expect(await remote.getProject('p_1')).toEqual({
      notModified: false,
      etag: '"v7"',
      value: { id: 'p_1', name: 'Build' },
    });
    expect(await remote.getProject('p_1', '"v7"')).toEqual({ notModified: true, etag: '"v7"' });
    expect(stand.seen.map((s) => s.url)).toEqual(['/v1/projects/p_1', '/v1/projects/p_1']);
  });

  it('refuses a task asked for in one project that names another, once, in the client', async () => {
    const stand = await standIn(() => ({ status: 200, body: { ...TASK, projectId: 'p_2' } }));
    const { remote } = clientOf(stand);
    expect(await remote.getTask('t_1')).toMatchObject({ id: 't_1', projectId: 'p_2' });
    await expect(remote.getTask('t_1', { projectId: 'p_1' })).rejects.toThrow(
      MalformedResponseError,
    );
    await expect(remote.getTask('t_1', { projectId: 'p_1' })).rejects.toThrow(
      /malformed response: task t_1 of project p_2/,
    );
    expect(await remote.getTask('t_1', { projectId: 'p_2' })).toMatchObject({ id: 't_1' });
  });

  it('returns null for a task the service does not have', async () => {
    const stand = await standIn(() => ({
      status: 404,
      body: { code: 'not_found', message: 'no task' },
    }));
    const { remote } = clientOf(stand);
    expect(await remote.getTask('t_404')).toBeNull();
    expect(stand.seen[0]?.url).toBe('/v1/tasks/t_404');
  });

  it('reads the side lists, accepting records with missing optional fields', async () => {
    const stand = await standIn((seen) => ({
      status: 200,
      body: seen.url.endsWith('/members')
        ? [{ id: 'm_1', name: 'Ann', kind: 'integration' }, { id: 'm_2' }]
        : [{ id: 'x_1' }],
    }));
    const { remote } = clientOf(stand);
    expect(await remote.listMembers('p_1')).toHaveLength(2);
    expect(await remote.listResources('p_1')).toEqual([{ id: 'x_1' }]);
    expect(await remote.listDependencies('p_1')).toEqual([{ id: 'x_1' }]);
    expect(stand.seen.map((s) => s.url)).toEqual([
      '/v1/projects/p_1/members',
      '/v1/projects/p_1/resources',
      '/v1/projects/p_1/dependencies',
    ]);
  });

  it('uses route overrides from the config', async () => {
    const stand = await standIn(() => ({ status: 200, body: [] }));
    const { remote } = clientOf(stand, {
      routes: { listMembers: { path: '/rosters/{projectId}' } },
    });
    await remote.listMembers('p_1');
    expect(stand.seen[0]).toMatchObject({ method: 'GET', url: '/v1/rosters/p_1' });
  });

  it('refuses page numbers below 1 and page sizes above 500 without a request', async () => {
    const stand = await standIn(() => page([]));
    const { remote } = clientOf(stand);
    await expect(remote.listTasksPage('p_1', 0, 10)).rejects.toThrow(UsageError);
    await expect(remote.listTasksPage('p_1', 1, 501)).rejects.toThrow(/pageSize 501/);
    expect(stand.seen).toHaveLength(0);
  });
});

describe('malformed responses', () => {
  const cases: [string, Reply, RegExp][] = [
    ['malformed JSON', page('[{"id": "t_1"'), /body is not JSON \(no content type\)/],
    ['a non-array body', page({ tasks: [TASK] }), /body is an object, not an array/],
    ['a task without a string id', page([{ ...TASK, id: 7 }]), /row 1: task without a string id/],
    [
      'a task field of the wrong type',
      page([{ ...TASK, progress: '40' }]),
      /progress of type a string/,
    ],
    ['a missing X-Total-Count', { status: 200, body: [TASK] }, /X-Total-Count missing/],
    [
      'more rows than pageSize',
      page(Array.from({ length: 51 }, (_, i) => ({ ...TASK, id: `t_${i}` }))),
      /51 rows for a pageSize of 50/,
    ],
    ['a task twice', page([TASK, TASK]), /id t_1 twice/],
    ['a negative X-Total-Count', page([TASK], { 'x-total-count': '-1' }), /X-Total-Count "-1"/],
    [
      'an HTML 502',
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' },
      /HTTP 502 with a non-JSON body \(text\/html\)/,
    ],
  ];

  for (const [what, reply, problem] of cases) {
    it(`rejects ${what} naming the route, project and page`, async () => {
      const stand = await standIn(() => reply);
      const { remote, clock } = clientOf(stand, { maxAttempts: 1 });
      const error = await failure(remote.listTasksPage('p_9', 3, 50));
      expect(error).toBeInstanceOf(MalformedResponseError);
      expect(error.message).toMatch(/^GET listTasks of p_9 page 3: malformed response: /);
      expect(error.message).toMatch(problem);
      expect((error as MalformedResponseError).context).toEqual({
        route: 'GET listTasks',
        projectId: 'p_9',
        page: 3,
      });
      expect(clock.pendingSleeps).toBe(0);
    });
  }

  it('rejects a project list that is not JSON, naming the route', async () => {
    const stand = await standIn(() => ({ status: 200, body: 'OK' }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.listProjects());
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toBe(
      'GET listProjects: malformed response: body is not JSON (no content type)',
    );
  });

  it('rejects a project whose active flag is not a boolean', async () => {
    const stand = await standIn(() => ({ status: 200, body: { id: 'p_1', active: 'yes' } }));
    const { remote } = clientOf(stand);
    await expect(remote.getProject('p_1')).rejects.toThrow(
      'GET getProject of p_1: malformed response: body: project p_1 has active of type a string',
    );
  });

  it('rejects a project of another id than the one asked for', async () => {
    const stand = await standIn(() => ({ status: 200, body: { id: 'p_2' } }));
    const { remote } = clientOf(stand);
    await expect(remote.getProject('p_1')).rejects.toThrow(
      'GET getProject of p_1: malformed response: body: project id p_2, expected p_1',
    );
  });

  it('treats a 304 to an unconditional request as an error, not data', async () => {
    const stand = await standIn(() => ({ status: 304 }));
    const { remote } = clientOf(stand);
    const error = await failure(remote.listMembers('p_1'));
    expect(error).toBeInstanceOf(RemoteStatusError);
    expect(error.message).toMatch(/HTTP 304: not modified, to a request without If-None-Match/);
  });
});
