import { describe, expect, test } from 'vitest';
import { startTestSimulator } from '../fixtures/sim.js';
import { client } from './helpers.js';

const PAGE = (page: number) => `/projects/p_1/tasks?page=${page}&pageSize=5`;

describe('ETags and 304 (spec 4.3)', () => {
  test('an unchanged page answers 304 with an empty body, its ETag and X-Total-Count', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 12 });
    const api = client(sim);
    const first = await api.get(PAGE(1));
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[^"]+"$/); // strong: no W/ prefix
    const again = await api.get(PAGE(1), { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('x-total-count')).toBe('12');
    const stale = await api.get(PAGE(1), { 'if-none-match': '"something-else"' });
    expect(stale.status).toBe(200);
  });

  test('pages carry different ETags; changing a row changes only its page ETag', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 15 });
    const api = client(sim);
    const etags = async () =>
      Promise.all([1, 2, 3].map(async (page) => (await api.get(PAGE(page))).headers.get('etag')));
    const before = await etags();
    expect(new Set(before).size).toBe(3);
    const onPageTwo = sim.service.listTasks('p_1')[6]?.id ?? '';
    sim.service.updateTask(onPageTwo, { name: 'Renamed on page two' });
    const after = await etags();
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after[2]).toBe(before[2]);
    const conditional = await api.get(PAGE(2), { 'if-none-match': before[1] ?? '' });
    expect(conditional.status).toBe(200);
  });

  test('get project has a strong ETag, 304 while unchanged, a new ETag after a change', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const api = client(sim);
    const first = await api.get('/projects/p_1');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await api.get('/projects/p_1', { 'if-none-match': etag })).status).toBe(304);
    sim.service.updateProject('p_1', { name: 'Renamed' });
    const changed = await api.get('/projects/p_1', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  test('a 304 is counted against the quota', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3 });
    const api = client(sim);
    const first = await api.get(PAGE(1));
    const remaining = Number(first.headers.get('x-quota-remaining'));
    const notModified = await api.get(PAGE(1), {
      'if-none-match': first.headers.get('etag') ?? '',
    });
    expect(notModified.status).toBe(304);
    expect(Number(notModified.headers.get('x-quota-remaining'))).toBe(remaining - 1);
    expect(notModified.headers.get('x-quota-limit')).toBe('5000');
  });
});
