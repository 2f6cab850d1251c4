/**
 * The bound through interleavings (fast-check, seeded, shrinking): the real poll scheduler and
 * page polls (`poll-scheduler.ts`, `page-polls.ts`) on a manual clock, over a service that
 * records when each part of each project was read, with realtime going up and down, outages of
 * the service (page polls and passes fail), outages of a side list (passes fail, single pages
 * answer), tasks created (a page poll then asks for a full pass, which may fail), restarts (what
 * the page polls knew is lost; the mirror keeps the last passes), and the wall clock stepping
 * either way. Every part of every project is read, and every task created is mirrored, within
 * `--max-staleness`, realtime up or down or flapping (the bound, 2 h, is above the reconcile
 * interval); after an outage, a restart after a while down, or a step of the wall clock forward
 * (a VM suspended), within a catch-up of its end.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { nextReset, planDay, type DailyPlan } from '../../src/budget/plan.js';
import { PagePolls } from '../../src/daemon/page-polls.js';
import { PollScheduler } from '../../src/daemon/poll-scheduler.js';
import { DEFAULT_WALL_CHECK_MS } from '../../src/domain/index.js';
import type { ProjectSyncResult } from '../../src/mirror/index.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const BOUND_MS = 2 * HOUR;
/**
 * After realtime drops, an outage ends or the wall clock steps, the parts overdue are read within
 * this: a failed poll's longest backoff (10 min) and one look at the wall clock (5 min).
 */
const CATCH_UP_MS = 15 * MINUTE;
const PAGE_SIZE = 500;
/** A quota a day that leaves little above the floor: the quiet parts are polled near the bound. */
const QUOTA = 400;
const PROJECTS = [
  { id: 'p_1', taskCount: 1_200, perHour: 2 },
  { id: 'p_2', taskCount: 300, perHour: 0.05 },
];

type Step =
  | { kind: 'wait'; ms: number }
  | { kind: 'realtime'; connected: boolean }
  | { kind: 'outage'; ms: number }
  | { kind: 'listsOutage'; ms: number }
  | { kind: 'wallStep'; ms: number }
  | { kind: 'restart'; downMs: number }
  | { kind: 'create'; projectId: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: MINUTE, max: 3 * HOUR }) }),
  fc.record({ kind: fc.constant('realtime' as const), connected: fc.boolean() }),
  fc.record({
    kind: fc.constant('outage' as const),
    ms: fc.integer({ min: MINUTE, max: 2 * HOUR }),
  }),
  fc.record({
    kind: fc.constant('listsOutage' as const),
    ms: fc.integer({ min: MINUTE, max: HOUR }),
  }),
  fc.record({
    kind: fc.constant('create' as const),
    projectId: fc.constantFrom(...PROJECTS.map((p) => p.id)),
  }),
  fc.record({
    kind: fc.constant('restart' as const),
    downMs: fc.integer({ min: 0, max: 30 * MINUTE }),
  }),
  fc.record({
    kind: fc.constant('wallStep' as const),
    ms: fc.integer({ min: -3 * HOUR, max: 3 * HOUR }).filter((ms) => Math.abs(ms) > 5_000),
  }),
);

/** The parts of a project: its pages and its side lists. */
function parts(project: (typeof PROJECTS)[number]): string[] {
  const pages = Math.max(1, Math.ceil(project.taskCount / PAGE_SIZE));
  return [
    ...Array.from({ length: pages }, (_, i) => `${project.id}#p${i + 1}`),
    `${project.id}#lists`,
  ];
}

/**
 * Plays `steps`, then quiet for two bounds; returns the first part found past what it is allowed
 * (see `allowedMs`), if any. Times are the service's: monotonic time plus the wall clock's steps
 * forward (a VM suspended, the service moving on); a step back moves nothing for the service.
 */
async function play(steps: readonly Step[]): Promise<string | undefined> {
  const clock = new FakeClock(Date.UTC(2026, 10, 28, 1, 0, 0));
  const logger = pino({ level: 'silent' });
  let forwardMs = 0;
  const serviceNow = () => clock.monotonic() + forwardMs;
  const reads = new Map<string, number>();
  const facts = PROJECTS.map((p) => ({
    id: p.id,
    taskCount: p.taskCount,
    lastPassAt: clock.now() as number | undefined,
  }));
  for (const project of PROJECTS) for (const part of parts(project)) reads.set(part, serviceNow());
  let connected = false;
  let outageUntil = -Infinity;
  /** Until when passes and side lists fail while single pages answer (a broken side list). */
  let listsOutageUntil = -Infinity;
  const failing = () => serviceNow() < outageUntil;
  const listsFailing = () => failing() || serviceNow() < listsOutageUntil;
  /**
   * When the last outage ended, the wall clock last stepped forward, realtime last dropped, and
   * the plan last found the budget short of the bound (near a reset after a step, say).
   */
  const lastEnd = { outage: -Infinity, forward: -Infinity, short: -Infinity };
  const rates = new Map(PROJECTS.map((p) => [p.id, p.perHour / HOUR]));
  const basePlan = (): DailyPlan => {
    const now = clock.now();
    const resetAt = nextReset(now);
    return planDay({
      now,
      resetAt,
      quotaLimit: QUOTA,
      quotaRemaining: Math.round((QUOTA * (resetAt - now)) / DAY),
      foreignRatePerHour: 0,
      realtimeConnected: connected,
      projects: PROJECTS.map((p) => ({ id: p.id, taskCount: p.taskCount })),
      rates,
      unannouncedRates: rates,
      maxStalenessMs: BOUND_MS,
    });
  };
  /** Tasks each project's service created, and those its mirror holds since its last pass. */
  const created = new Map(PROJECTS.map((p) => [p.id, 0]));
  const mirrored = new Map(PROJECTS.map((p) => [p.id, 0]));
  /** When the oldest task the mirror does not hold yet was created, by project. */
  const unmirroredSince = new Map<string, number>();
  /** A full pass of a project, begun now: every part read, unless the service is out. */
  const pass = (projectId: string, pagePolls: PagePolls): boolean => {
    const startedAt = clock.now();
    const ok = !listsFailing();
    const project = PROJECTS.find((p) => p.id === projectId)!;
    if (ok) {
      mirrored.set(projectId, created.get(projectId)!);
      unmirroredSince.delete(projectId);
      for (const part of parts(project)) reads.set(part, serviceNow());
      facts.find((f) => f.id === projectId)!.lastPassAt = startedAt;
    }
    pagePolls.passed({ projectId, ok, startedAt } as ProjectSyncResult);
    return ok;
  };
  /**
   * A daemon started on the mirror, as `Daemon.start` does: what its page polls and schedule
   * knew is gone (the mirror keeps the last passes); a start-up reconcile, each failed pass
   * retried with backoff; then the schedule.
   */
  const boot = async () => {
    const pagePolls: PagePolls = new PagePolls({
      clock,
      logger,
      state: {
        changeRates: async () => [],
        saveChangeRates: async () => {},
        deleteChangeRates: async () => {},
      },
      pageSize: PAGE_SIZE,
      facts: () => facts,
      pollPage: async (projectId, page) => {
        if (failing()) throw new Error('503 Service Unavailable');
        reads.set(`${projectId}#p${page}`, serviceNow());
        // X-Total-Count moved: a full pass is due.
        const moved = created.get(projectId) !== mirrored.get(projectId);
        const reason = 'X-Total-Count moved';
        const outcome = moved
          ? { kind: 'escalate' as const, reason }
          : { kind: 'unchanged' as const };
        return { projectId, page, requests: 1, notModified: !moved, outcome };
      },
      pollLists: async (projectId) => {
        if (listsFailing()) throw new Error('503 Service Unavailable');
        reads.set(`${projectId}#lists`, serviceNow());
        return { projectId, requests: 4, changed: false };
      },
      // As the daemon wires it: the pass's outcome goes to the schedule.
      escalate: async (projectId) => scheduler.recordResult(projectId, pass(projectId, pagePolls)),
      afterRequests: async () => {},
      random: () => 0.5,
    });
    const scheduler: PollScheduler = new PollScheduler({
      clock,
      logger,
      plan: () => {
        const plan = basePlan();
        if (plan.boundHeld !== true) lastEnd.short = serviceNow();
        return pagePolls.shape(plan, connected);
      },
      poll: async (projectId) => pass(projectId, pagePolls),
      lastPassAt: (projectId) => facts.find((f) => f.id === projectId)?.lastPassAt,
      items: pagePolls,
      random: () => 0.5,
    });
    for (const { id } of PROJECTS) scheduler.recordResult(id, pass(id, pagePolls));
    const controller = new AbortController();
    const done = scheduler.run(controller.signal);
    await flushMicrotasks();
    return {
      scheduler,
      stop: async () => {
        controller.abort();
        await done;
      },
    };
  };
  /**
   * How long a part read at `read` may wait: the bound; or, when an outage, a step of the wall
   * clock forward or a budget short of the bound came since, the catch-up after the last of them.
   */
  const allowedMs = (read: number) =>
    Math.max(
      BOUND_MS,
      ...Object.values(lastEnd)
        .filter((at) => at > read)
        .map((at) => at - read + CATCH_UP_MS),
    );
  let daemon = await boot();
  let found: string | undefined;
  const wait = async (ms: number) => {
    const until = clock.monotonic() + ms;
    while (found === undefined && clock.monotonic() < until) {
      await clock.advance(Math.min(MINUTE, until - clock.monotonic()));
      if (listsFailing()) lastEnd.outage = serviceNow();
      const now = serviceNow();
      for (const [part, at] of reads) {
        if (now - at > allowedMs(at))
          found = `${part} unread for ${Math.round((now - at) / MINUTE)} min`;
      }
      for (const [projectId, at] of unmirroredSince) {
        if (now - at > allowedMs(at))
          found = `a task of ${projectId} unmirrored for ${Math.round((now - at) / MINUTE)} min`;
      }
    }
  };
  try {
    for (const s of steps) {
      if (s.kind === 'wait') await wait(s.ms);
      else if (s.kind === 'create') {
        created.set(s.projectId, created.get(s.projectId)! + 1);
        if (!unmirroredSince.has(s.projectId)) unmirroredSince.set(s.projectId, serviceNow());
      } else if (s.kind === 'realtime') {
        connected = s.connected;
        daemon.scheduler.replan();
      } else if (s.kind === 'outage') {
        outageUntil = serviceNow() + s.ms;
        lastEnd.outage = Math.max(lastEnd.outage, outageUntil);
      } else if (s.kind === 'listsOutage') {
        listsOutageUntil = serviceNow() + s.ms;
        lastEnd.outage = Math.max(lastEnd.outage, listsOutageUntil);
      } else if (s.kind === 'restart') {
        // Stopped, down a while (nothing read meanwhile), started again.
        await daemon.stop();
        await clock.advance(s.downMs);
        if (s.downMs > 0) lastEnd.outage = serviceNow();
        daemon = await boot();
      } else {
        clock.stepWall(s.ms);
        if (s.ms > 0) {
          forwardMs += s.ms;
          lastEnd.forward = serviceNow();
        }
        // The daemon sees a step when it next looks at the wall clock; two steps between two
        // looks are one (a step back then forward is a smaller step forward, the suspension
        // longer than it shows), which no daemon can tell apart.
        await wait(DEFAULT_WALL_CHECK_MS + MINUTE);
      }
      if (found !== undefined) return found;
    }
    connected = false;
    daemon.scheduler.replan();
    await wait(2 * BOUND_MS + CATCH_UP_MS);
    return found;
  } finally {
    await daemon.stop();
  }
}

describe('page polls through interleavings', () => {
  it('read every part and mirror every task within the bound, or a catch-up after an outage or a step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        expect(await play(steps)).toBeUndefined();
      }),
      { seed: 48_2026, numRuns: 300 },
    );
  }, 120_000);
});
