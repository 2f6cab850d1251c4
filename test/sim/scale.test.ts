import { describe, expect, test } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client } from './helpers.js';

const MILLION = 1_000_000;
const THOUSAND = 1_000;
const PAGE_SIZE = 100;
const SAMPLES = 25;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

describe('scale', () => {
  test('a 1,000,000-task project seeds in seconds and a page costs O(page size)', async () => {
    const started = performance.now();
    const sim = await startTestSimulator({
      projects: 2,
      tasks: [MILLION, THOUSAND],
      limits: false,
    });
    const seedMs = performance.now() - started;
    expect(sim.service.taskCount('p_1')).toBe(MILLION);
    expect(seedMs).toBeLessThan(15_000);

    const api = client(sim);
    const timePage = async (projectId: string, page: number) => {
      const before = sim.service.rowsVisited(projectId);
      const t0 = performance.now();
      const response = await api.get(
        `/projects/${projectId}/tasks?page=${page}&pageSize=${PAGE_SIZE}`,
      );
      const rows = (await response.json()) as Task[];
      const elapsed = performance.now() - t0;
      expect(rows.length).toBe(PAGE_SIZE);
      expect(response.headers.get('x-total-count')).toBe(
        String(projectId === 'p_1' ? MILLION : THOUSAND),
      );
      // Operations, not time: serving the page touched exactly its own rows.
      expect(sim.service.rowsVisited(projectId) - before).toBe(PAGE_SIZE);
      return elapsed;
    };
    await timePage('p_1', 1); // warm up both paths
    await timePage('p_2', 1);
    const big: number[] = [];
    const small: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      big.push(await timePage('p_1', 1 + ((i * 397) % (MILLION / PAGE_SIZE))));
      small.push(await timePage('p_2', 1 + (i % (THOUSAND / PAGE_SIZE))));
    }
    // A loose ratio from the same run: a scan or sort of a million rows per request would cost
    // tens of milliseconds and break it many times over.
    console.log(
      'median page ms (1M vs 1k):',
      median(big).toFixed(2),
      median(small).toFixed(2),
      'seed ms',
      seedMs.toFixed(0),
    );
    expect(median(big)).toBeLessThan(median(small) * 4 + 2);
  });
});
