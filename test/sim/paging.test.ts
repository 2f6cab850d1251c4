import { describe, expect, test } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { DEFAULT_PAGE_SIZE } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode } from './helpers.js';

describe('list tasks paging (spec 4.2)', () => {
  test.each([
    ['pageSize=501', 'pageSize 501 is above the maximum'],
    ['pageSize=0', 'pageSize 0'],
    ['pageSize=-5', 'a negative pageSize'],
    ['pageSize=abc', 'a non-numeric pageSize'],
    ['pageSize=2.5', 'a fractional pageSize'],
    ['page=0', 'page 0 (pages are 1-indexed)'],
    ['page=-1', 'a negative page'],
    ['page=x', 'a non-numeric page'],
    ['page=', 'an empty page'],
    ['page=1&page=2', 'a repeated page'],
  ])('%s answers 400 validation_failed (%s)', async (query) => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3 });
    const response = await client(sim).get(`/projects/p_1/tasks?${query}`);
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe('validation_failed');
  });

  test('pageSize 500 is accepted; the default page is 1 and the default pageSize 100', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 520 });
    const api = client(sim);
    const full = await api.get('/projects/p_1/tasks?pageSize=500');
    expect(full.status).toBe(200);
    expect(((await full.json()) as Task[]).length).toBe(500);
    const byDefault = (await (await api.get('/projects/p_1/tasks')).json()) as Task[];
    expect(byDefault.length).toBe(DEFAULT_PAGE_SIZE);
    expect(byDefault[0]?.id).toBe(sim.service.listTasks('p_1')[0]?.id);
  });

  test('every page is a plain array with X-Total-Count, and pages tile the collection in order', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 23 });
    const api = client(sim);
    const seen: string[] = [];
    for (let page = 1; page <= 4; page += 1) {
      const response = await api.get(`/projects/p_1/tasks?page=${page}&pageSize=7`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-total-count')).toBe('23');
      const rows = (await response.json()) as Task[];
      expect(Array.isArray(rows)).toBe(true);
      expect(rows.length).toBe(page < 4 ? 7 : 2);
      seen.push(...rows.map((row) => row.id));
    }
    expect(seen).toEqual(sim.service.listTasks('p_1').map((task) => task.id));
    const beyond = await api.get('/projects/p_1/tasks?page=9&pageSize=7');
    expect(beyond.headers.get('x-total-count')).toBe('23');
    expect(await beyond.json()).toEqual([]);
  });

  test('task rows carry the spec fields and updatedAt', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const [row] = (await (await client(sim).get('/projects/p_1/tasks')).json()) as Task[];
    expect(Object.keys(row ?? {}).sort()).toEqual(
      [
        'assigneeIds',
        'endDate',
        'id',
        'name',
        'progress',
        'startDate',
        'status',
        'updatedAt',
      ].sort(),
    );
  });

  test('other collections are returned whole, without paging', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5, membersPerProject: 4 });
    const api = client(sim);
    const members = (await (await api.get('/projects/p_1/members?pageSize=1')).json()) as unknown[];
    expect(members.length).toBe(4);
    const projects = (await (await api.get('/projects?pageSize=1')).json()) as unknown[];
    expect(projects.length).toBe(1);
  });
});
