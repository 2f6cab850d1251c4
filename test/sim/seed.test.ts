import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/domain/index.js';
import { startSimulator, type SimFixture } from '../../src/sim/index.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode, newTask } from './helpers.js';

const FIXTURE: SimFixture = {
  users: [{ id: 'u_ada', name: 'Ada' }],
  projects: [
    {
      id: 'p_site',
      name: 'Site',
      members: [{ id: 'm_bob', name: 'Bob', kind: 'person' }],
      resources: [{ id: 'r_crane', name: 'Crane' }],
      tasks: [
        { id: 't_a', name: 'Dig', startDate: '2026-01-01', endDate: '2026-01-03', status: 'Done' },
        {
          id: 't_b',
          name: 'Pour',
          startDate: '2026-01-04',
          endDate: '2026-01-05',
          status: 'InProgress',
          progress: 20,
          assigneeIds: ['m_bob'],
          updatedAt: '2026-01-02T08:00:00.000Z',
        },
      ],
      dependencies: [{ id: 'd_ab', predecessorId: 't_a', successorId: 't_b' }],
    },
    { id: 'p_old', name: 'Old', readOnlyReason: 'archived' },
  ],
  tokens: [{ value: 'glt_test_pinned', projects: ['p_site'] }],
};

describe('seeding', () => {
  test('the same seed gives the same data; another seed other data', async () => {
    const options = { seed: 42, projects: 2, tasks: 30 };
    const a = await startTestSimulator(options);
    const b = await startTestSimulator(options);
    const c = await startTestSimulator({ ...options, seed: 43 });
    const everything = (sim: typeof a) =>
      sim.service.listProjects().map((project) => sim.service.snapshot(project.id));
    expect(everything(a)).toEqual(everything(b));
    expect(everything(a)).not.toEqual(everything(c));
    expect(a.service.taskCount('p_2')).toBe(30);
  });

  test('the token option registers account tokens for the seeded user', async () => {
    const sim = await startTestSimulator({
      projects: 3,
      tokens: ['glt_test_mine', 'glt_test_second'],
    });
    expect(sim.token).toBe('glt_test_mine');
    expect(sim.tokens).toEqual(['glt_test_mine', 'glt_test_second']);
    const listed = (await (
      await client(sim, 'glt_test_second').get('/projects')
    ).json()) as unknown[];
    expect(listed.length).toBe(3);
    await expect(startSimulator({ tokens: ['not_a_token'] })).rejects.toThrow(UsageError);
  });

  test('a fixture file loads users, projects (read-only too), records and tokens', async () => {
    const file = join(tempDir(), 'fixture.json');
    writeFileSync(file, JSON.stringify(FIXTURE));
    const sim = await startTestSimulator({ fixture: file, tokens: ['glt_test_account'] });
    expect(sim.tokens).toEqual(['glt_test_account', 'glt_test_pinned']);
    expect(sim.userId).toBe('u_ada');
    const snapshot = sim.service.snapshot('p_site');
    expect(snapshot.tasks.map((task) => [task.id, task.status, task.progress])).toEqual([
      ['t_a', 'Done', 100],
      ['t_b', 'InProgress', 20],
    ]);
    expect(snapshot.tasks[1]?.updatedAt).toBe('2026-01-02T08:00:00.000Z');
    expect(snapshot.dependencies).toEqual([
      { id: 'd_ab', predecessorId: 't_a', successorId: 't_b', type: 'FS' },
    ]);
    expect(snapshot.resources).toEqual([{ id: 'r_crane', name: 'Crane' }]);
    const pinned = client(sim, 'glt_test_pinned');
    expect((await pinned.get('/projects/p_old')).status).toBe(403);
    const old = await client(sim).send('POST', '/projects/p_old/tasks', newTask());
    expect(await errorCode(old)).toBe('project_read_only');
  });

  test('a bad fixture is a usage error naming the bad entry', async () => {
    const broken: SimFixture = {
      projects: [
        {
          id: 'p_1',
          tasks: [{ name: 'x', startDate: '2026-13-01', endDate: '2026-01-01', status: 'Done' }],
        },
      ],
    };
    await expect(startSimulator({ fixture: broken })).rejects.toThrow(
      /fixture: projects\[0\]\.tasks\[0\]: startDate/,
    );
    await expect(startSimulator({ fixture: '/nonexistent/fixture.json' })).rejects.toThrow(
      UsageError,
    );
  });
});
