/**
 * Page polls keep the bound through faults, in the real daemon against the simulator on a fake
 * clock (polling only): a page poll that fails is tried again soon, not one interval on; a page
 * poll's full pass that fails is retried; a wall clock stepped forward (a VM resumed) is noticed
 * while the loop sleeps towards an item, as it is towards a pass. Each checks, from the service's
 * request log or the mirror, that nothing waited past `--max-staleness`.
 */
import { describe, expect, it } from 'vitest';
import { FAILED_PASS_BACKOFF_MAX_MS } from '../../src/daemon/poll-scheduler.js';
import { DEFAULT_WALL_CHECK_MS } from '../../src/domain/index.js';
import type { Simulator } from '../../src/sim/index.js';
import type { Logger } from 'pino';
import { captureLogger, LEVEL } from '../fixtures/capture-log.js';
import { FakeClock } from '../fixtures/clock.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { settle, startTestDaemon, type TestDaemon } from './fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const BOUND_MS = 2 * HOUR;
const TOKEN = 'glt_test_page_poll_faults';

/**
 * `projects` projects of 20 tasks (one page each), polled by parts within a 2 h bound, on a quota
 * that leaves little above the floor: a page is polled more than half the bound apart.
 */
async function pagePolled(projects = 1, quota = 120, tasks = 20, logger?: Logger) {
  const clock = new FakeClock(Date.UTC(2026, 10, 21, 1, 0, 0));
  const sim = await startTestSimulator({ clock, projects, tasks, tokens: [TOKEN], quota });
  const mirror = await startTestDaemon(sim, {
    clock,
    realtime: false,
    engine: { pageSize: 100 },
    daemon: {
      maxStalenessMs: BOUND_MS,
      reconcileCron: '0 23 * * *',
      outboxIdleMs: 6 * HOUR,
      // The backoffs' jitter at its top: each wait its ceiling.
      random: () => 0.999,
      ...(logger === undefined ? {} : { logger }),
    },
  });
  expect(mirror.daemon.plan().projects[0]!.partsPolled).toBe(true);
  return { clock, sim, mirror };
}

/** The times the service answered a read (200 or 304) of p_1's tasks (one page unless said). */
function pageReads(sim: Simulator): number[] {
  return sim.requestLog
    .filter({ route: 'listTasks', where: (entry) => entry.path.startsWith('/v1/projects/p_1/') })
    .filter((entry) => entry.status === 200 || entry.status === 304)
    .map((entry) => entry.time);
}

/** Steps the clock wake-up to wake-up until `until` (monotonic), or until `done` says so. */
async function run(clock: FakeClock, sim: Simulator, until: number, done = () => false) {
  while (clock.monotonic() < until && !done()) {
    const target = Math.min(clock.nextWakeAt ?? until, until);
    await clock.advance(Math.max(0, target - clock.monotonic()));
    await settle(clock, sim, 2);
  }
}

/** The longest wait between two reads of the page, up to now. */
function longestGap(reads: number[], now: number): number {
  const times = [...reads, now];
  return Math.max(...times.slice(1).map((at, i) => at - times[i]!));
}

/** True once the mirror holds task `taskId`. */
function holds(mirror: TestDaemon, taskId: string): boolean {
  return mirror.db.prepare('SELECT 1 FROM tasks WHERE id = ?').get(taskId) !== undefined;
}

describe('page polls through faults', () => {
  it('tries a failed page poll again soon: the page is read within the bound', async () => {
    const { clock, sim } = await pagePolled();
    // The start-up reconcile read the page; the first page poll reads it again.
    await run(clock, sim, clock.monotonic() + BOUND_MS, () => pageReads(sim).length >= 2);
    expect(pageReads(sim)).toHaveLength(2);
    // The next two page polls fail, all five attempts of each (an outage of the service).
    sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 503, count: 10 });
    await run(clock, sim, clock.monotonic() + 3 * BOUND_MS);
    expect(sim.requestLog.count({ route: 'listTasks', status: 503 })).toBe(10);
    expect(pageReads(sim).length).toBeGreaterThan(3);
    expect(longestGap(pageReads(sim), clock.now())).toBeLessThanOrEqual(BOUND_MS);
  });

  it('asks a project whose every page fails once a backoff, not once a page', async () => {
    const log = captureLogger('info');
    const { clock, sim } = await pagePolled(1, 600, 300, log.logger);
    expect(pageReads(sim)).toHaveLength(3);
    // Gone from the service, as the daemon will learn at the next reconcile: every read of it
    // answers 404 (not retried by the client).
    const ofP1 = (request: { path: string }) => request.path.startsWith('/v1/projects/p_1');
    sim.faults.failNext({ kind: 'status', status: 404, count: Infinity, when: ofP1 });
    const refused = () => sim.requestLog.count({ status: 404 });
    await run(clock, sim, clock.monotonic() + BOUND_MS, () => refused() > 0);
    const first = refused();
    await run(clock, sim, clock.monotonic() + 2 * HOUR);
    // A failed pass's backoff, doubling to 10 minutes: a dozen requests in two hours, not one
    // for each of its three pages and its side lists.
    expect(refused() - first).toBeGreaterThan(6);
    expect(refused() - first).toBeLessThanOrEqual(2 * (120 / 10) + 6);
    // One line for the failures in a row, not one per attempt.
    const failedLines = log.lines.filter((line) => line.msg === 'page poll failed');
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0]!.level).toBe(LEVEL.warn);
  });

  it("retries a page poll's full pass that failed, as any failed pass, not at the next page poll", async () => {
    const { clock, sim, mirror } = await pagePolled(8, 720);
    await run(clock, sim, clock.monotonic() + BOUND_MS, () => pageReads(sim).length >= 2);
    expect(pageReads(sim)).toHaveLength(2);
    // A task is created just after a page poll: the next one sees the total move and asks for a
    // full pass, which fails (the members list answers 503, all five attempts).
    const created = clock.now();
    const task = sim.service.createTask('p_1', { name: 'created after a page poll' });
    sim.faults.beforePage('p_1', 1, () =>
      sim.faults.failNext({ route: 'listMembers', kind: 'status', status: 503, count: 5 }),
    );
    let seenAt: number | undefined;
    await run(clock, sim, clock.monotonic() + 3 * BOUND_MS, () => {
      if (seenAt === undefined && holds(mirror, task.id)) seenAt = clock.now();
      return seenAt !== undefined;
    });
    const failed = sim.requestLog.filter({ route: 'listMembers', status: 503 });
    expect(failed).toHaveLength(5);
    expect(mirror.daemon.metricsSources().pagePollEscalations?.()).toBeGreaterThanOrEqual(1);
    // Still polled by parts: the pass that mirrored the task was the failed one's retry, after
    // its backoff, not a fall back to full passes.
    expect(mirror.daemon.plan().projects.every((p) => p.partsPolled === true)).toBe(true);
    expect(seenAt).toBeDefined();
    expect(seenAt! - failed.at(-1)!.time).toBeLessThanOrEqual(FAILED_PASS_BACKOFF_MAX_MS);
    expect(seenAt! - created).toBeLessThanOrEqual(BOUND_MS);
  });

  it('notices a wall clock stepped forward while it sleeps towards a page poll', async () => {
    const { clock, sim } = await pagePolled();
    const listsReads = () =>
      sim.requestLog.filter({ route: 'listMembers', status: 200 }).map((entry) => entry.time);
    // The first page poll after the start-up reconcile; the loop then sleeps towards the side
    // lists' first poll, most of the bound after the start-up.
    await run(clock, sim, clock.monotonic() + BOUND_MS, () => pageReads(sim).length >= 2);
    expect(listsReads()).toHaveLength(1);
    // The machine is suspended 100 minutes (the service moves on) and resumes: the wall clock
    // steps forward, and both the page and the side lists are overdue.
    clock.stepWall(100 * MINUTE);
    const resumed = clock.now();
    await run(clock, sim, clock.monotonic() + BOUND_MS);
    // Polled within one look at the wall clock, as an overdue pass would be.
    const first = (reads: number[]) => reads.find((at) => at >= resumed)!;
    expect(first(pageReads(sim)) - resumed).toBeLessThanOrEqual(DEFAULT_WALL_CHECK_MS);
    expect(first(listsReads()) - resumed).toBeLessThanOrEqual(DEFAULT_WALL_CHECK_MS);
  });
});
