/** Benchmark 10's model, on one seeded day of each workload: the figures the README quotes hold their shape. */
import { describe, expect, it } from 'vitest';
import { MODEL_POLL_REQUESTS, pageSchedule, projectSchedule } from '../../bench/poll-model.js';
import { DAY_MS, EVEN, modelDay, modelProjects, SKEWED } from '../../bench/skewed-workload.js';

const START = Date.UTC(2026, 10, 23);

describe('the poll model', () => {
  it('spends no more than even polling, and the plan by rate beats it on a skewed day', () => {
    const projects = modelProjects(SKEWED, 35);
    const before = modelDay(SKEWED, projects, START - DAY_MS, 350);
    const day = modelDay(SKEWED, projects, START, 351);
    const even = projectSchedule(day);
    const allocated = projectSchedule(day, projectSchedule(before, []).kept);
    const oracle = pageSchedule(day, even.requests, 12 * 3_600_000, false);
    for (const outcome of [even, allocated, oracle]) {
      expect(outcome.requests).toBeLessThanOrEqual(MODEL_POLL_REQUESTS);
      expect(outcome.requests).toBeGreaterThan(0.95 * MODEL_POLL_REQUESTS);
    }
    expect(allocated.meanStalenessMs).toBeLessThan(0.8 * even.meanStalenessMs);
    expect(oracle.meanStalenessMs).toBeLessThan(allocated.meanStalenessMs);
    expect(allocated.worstGapOverBound).toBeLessThanOrEqual(0);
    // The oracle that pays a full pass for each task count that moved: dearer, and still inside.
    const escalating = pageSchedule(day, even.requests, 12 * 3_600_000, false, true);
    expect(escalating.requests).toBeLessThanOrEqual(even.requests);
    expect(escalating.escalatedRequests).toBeGreaterThan(0.1 * even.requests);
    expect(escalating.meanStalenessMs).toBeGreaterThan(oracle.meanStalenessMs);
    // An item may wait behind a full pass (one second a request, at most 45 pages here).
    expect(escalating.worstGapOverBound).toBeLessThanOrEqual(60_000);
  });

  it('stays near even polling on a day of equal projects', () => {
    const projects = modelProjects(EVEN, 35);
    const day = modelDay(EVEN, projects, START, 351);
    const before = modelDay(EVEN, projects, START - DAY_MS, 350);
    const even = projectSchedule(day);
    const allocated = projectSchedule(day, projectSchedule(before, []).kept);
    expect(allocated.meanStalenessMs).toBeLessThan(1.1 * even.meanStalenessMs);
  });
});
