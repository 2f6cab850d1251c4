/**
 * Benchmark 12's machinery on a few days: the churn keeps the live tasks steady, and the year's
 * measurements come back from a real engine and mirror (the whole year runs in `npm run bench`).
 */
import { describe, expect, it } from 'vitest';
import { soakYear } from '../../bench/soak-year.js';
import {
  SOAK_CREATES_PER_DAY,
  SOAK_DELETES_PER_DAY,
  SOAK_EDITS_PER_DAY,
  SOAK_PROJECTS,
  SOAK_TASKS_PER_PROJECT,
  startSoakWorkload,
} from '../../bench/soak-workload.js';

const LIVE = SOAK_PROJECTS * SOAK_TASKS_PER_PROJECT;
const PER_DAY = SOAK_CREATES_PER_DAY + SOAK_EDITS_PER_DAY + SOAK_DELETES_PER_DAY;

describe('benchmark 12 (soak)', () => {
  it('churns at a steady rate: as many tasks live after days of it as before', async () => {
    const { sim, churn } = await startSoakWorkload(false);
    try {
      const count = () =>
        sim.service.listProjects().reduce((n, p) => n + sim.service.listTasks(p.id).length, 0);
      expect(count()).toBe(LIVE);
      expect(churn.apply()).toBe(PER_DAY);
      expect(churn.apply(0.5)).toBe(PER_DAY / 2);
      expect(count()).toBe(LIVE);
    } finally {
      await sim.close();
    }
  });

  it('measures memory, the file against its live data and the write-ahead log over a few days', async () => {
    const year = await soakYear(3);
    expect([...year.peakRss.keys()].sort()).toEqual([1, 3]);
    expect(year.changes).toBe(2 * PER_DAY);
    expect(year.liveTasks).toBe(LIVE);
    expect(year.historyRows).toBeGreaterThanOrEqual(2 * PER_DAY - 50); // an edit may hit a task deleted the same day
    expect(year.oldestHistory).toBe('2026-12-02T00:00:00.000Z');
    expect(year.liveBytes).toBeGreaterThan(0);
    expect(year.fileBytes).toBeGreaterThanOrEqual(year.liveBytes);
    expect(year.walPeakBytes).toBeGreaterThan(0);
  }, 60_000);
});
