/**
 * The wall clock steps under a running daemon (real daemon, real simulator, manual clock): a VM
 * suspended for 3 hours resumes (its wall clock and the service's time jump forward, its
 * monotonic clock does not), then NTP steps its wall clock back 1 hour (the service's time does
 * not move). The daily reconcile and the quota's reset are re-planned; nothing runs twice and
 * nothing is skipped.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/index.js';
import { DEFAULT_WALL_CHECK_MS } from '../../src/domain/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { settle, startTestDaemon } from './fixtures.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const TOKEN = 'glt_test_daemon_wall_steps';
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

/** The service's time: the daemon's monotonic clock plus the time it spent suspended. */
function serviceClock(clock: FakeClock, suspended: { ms: number }): Clock {
  return {
    now: () => clock.monotonic() + suspended.ms,
    monotonic: () => clock.monotonic(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
  };
}

/** Moves monotonic time to `until` from one wake-up to the next, letting the daemon answer each. */
async function runUntil(clock: FakeClock, sim: Simulator, until: number): Promise<void> {
  while (clock.monotonic() < until) {
    const target = Math.min(clock.nextWakeAt ?? until, until);
    await clock.advance(Math.max(0, target - clock.monotonic()));
    await settle(clock, sim, 2);
  }
}

/** The service's times of the daemon's listings: one per reconcile (start-up, scheduled). */
function listings(sim: Simulator): number[] {
  return sim.requestLog.filter({ route: 'listProjects' }).map((entry) => entry.time);
}

/** The longest gap between two consecutive task reads of each project, in the service's time. */
function longestPollGaps(sim: Simulator, from: number, to: number): Map<string, number> {
  const seen = new Map<string, number[]>();
  for (const entry of sim.requestLog.filter({ route: 'listTasks' })) {
    if (entry.time < from || entry.time > to) continue;
    const projectId = /projects\/([^/]+)\/tasks/.exec(entry.path)?.[1] ?? '';
    seen.set(projectId, [...(seen.get(projectId) ?? []), entry.time]);
  }
  const gaps = new Map<string, number>();
  for (const [projectId, times] of seen) {
    const points = [from, ...times, to];
    gaps.set(projectId, Math.max(...points.slice(1).map((time, i) => time - points[i]!)));
  }
  return gaps;
}

describe('a wall clock that steps under a running daemon', () => {
  it('re-plans the reconcile and the quota reset: forward 3 h, back 1 h, nothing twice, nothing skipped', async () => {
    const clock = new FakeClock(at('2026-11-21T22:00:00Z'));
    const suspended = { ms: 0 };
    const service = serviceClock(clock, suspended);
    const sim = await startTestSimulator({
      clock: service,
      quota: 2_000,
      projects: 2,
      tasks: [30, 10],
      tokens: [TOKEN],
    });
    const { daemon } = await startTestDaemon(sim, {
      clock,
      realtime: false,
      daemon: { outboxIdleMs: 6 * HOUR },
    });
    await settle(clock, sim, 2);
    expect(listings(sim)).toHaveLength(1); // the start-up reconcile
    expect(iso(daemon.plan().resetAt)).toBe('2026-11-22T00:00:00.000Z');

    // 23:00: the VM is suspended for 3 hours and resumes at 02:00. The 00:15 reconcile was
    // missed: it runs once, within one look at the wall clock; the quota's day has turned.
    await runUntil(clock, sim, at('2026-11-21T23:00:00Z'));
    expect(listings(sim)).toHaveLength(1);
    clock.stepWall(3 * HOUR);
    suspended.ms += 3 * HOUR;
    expect(iso(daemon.plan().resetAt)).toBe('2026-11-23T00:00:00.000Z');
    const resumedAt = clock.monotonic();
    await runUntil(clock, sim, resumedAt + DEFAULT_WALL_CHECK_MS);
    expect(listings(sim).map(iso)).toEqual([
      '2026-11-21T22:00:00.000Z',
      expect.stringMatching(/^2026-11-22T02:0[0-5]/),
    ]);
    // Each project is passed right after the resume, by that reconcile or a poll, and not again
    // until its interval says: at most twice (the reconcile's pass, a poll) in that window.
    const resumed = sim.requestLog.filter({
      route: 'getProject',
      where: (entry) => entry.time >= at('2026-11-22T02:00:00Z'),
    });
    for (const projectId of ['p_1', 'p_2']) {
      const passes = resumed.filter((entry) => entry.path.endsWith(`/projects/${projectId}`));
      expect(passes.length).toBeGreaterThanOrEqual(1);
      expect(passes.length).toBeLessThanOrEqual(2);
    }

    // 03:00: NTP steps the wall clock back to 02:00 (the service stays at 03:00). The quota's
    // reset stays tomorrow's; the reconcile runs at the next 00:15 of the wall clock, once.
    await runUntil(clock, sim, clock.monotonic() + HOUR - DEFAULT_WALL_CHECK_MS);
    expect(iso(clock.now())).toBe('2026-11-22T03:00:00.000Z');
    const stepBackAt = service.now();
    clock.stepWall(-HOUR);
    expect(iso(daemon.plan().resetAt)).toBe('2026-11-23T00:00:00.000Z');
    const intervalMs = daemon.plan().intervalMs;
    await runUntil(clock, sim, clock.monotonic() + 22 * HOUR + 30 * MINUTE);
    expect(iso(clock.now())).toBe('2026-11-23T00:30:00.000Z');
    const times = listings(sim).map(iso);
    expect(times).toHaveLength(3);
    // The wall clock's 00:15 is the service's 01:15: the daemon's clock is an hour behind it.
    expect(times[2]).toMatch(/^2026-11-23T01:15/);

    // No project went unpolled for the hour the wall clock stepped back: in the two hours after
    // it, every gap between two reads stays within the plan's interval (and a minute's slack).
    expect(intervalMs).toBeLessThan(15 * MINUTE);
    const gaps = longestPollGaps(sim, stepBackAt, stepBackAt + 2 * HOUR);
    expect([...gaps.keys()].sort()).toEqual(['p_1', 'p_2']);
    for (const gap of gaps.values()) expect(gap).toBeLessThanOrEqual(intervalMs + MINUTE);
    // The request budget held across both steps: no 429, no quota day over its limit.
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
  });
});
