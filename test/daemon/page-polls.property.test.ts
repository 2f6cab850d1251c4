/**
 * The single-page poll plan (`src/daemon/page-polls.ts`) for random projects, rates, budgets and
 * last looks: every page and side list of a passed project is an item, polled at least every
 * bound (less the slack), within what the plan spends; a project so planned is passed whole only
 * when asked; near the quota's reset the polls the floor still owes are kept back.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ChangeRates } from '../../src/budget/change-rates.js';
import type { ChangeRateState } from '../../src/budget/change-rate.js';
import { planDay } from '../../src/budget/plan.js';
import {
  PAGE_POLL_COST,
  LISTS_POLL_COST,
  PASS_WAIT_MS,
  PagePolls,
} from '../../src/daemon/page-polls.js';
import { FakeClock } from '../fixtures/clock.js';

const HOUR = 3_600_000;
const PAGE_SIZE = 500;

/** An ended pass of p_1 (1,500 tasks) begun at `startedAt`, with what it found of each page. */
function passOfP1(startedAt: number, pageLooks: { page: number; changed: boolean }[]) {
  return {
    projectId: 'p_1',
    ok: true,
    startedAt,
    requests: 0,
    pagesRead: 0,
    pagesNotModified: 0,
    pageLooks,
    rowsWritten: 0,
    historyWritten: 0,
    tasks: 1_500,
    attempts: 1,
    backfill: false,
  };
}

/** The plan of p_1 alone (1,500 tasks, a change an hour), half the quota left for 12 hours. */
function planOfP1(clock: FakeClock) {
  return planDay({
    now: clock.now(),
    resetAt: clock.now() + 12 * HOUR,
    quotaLimit: 5_000,
    quotaRemaining: 2_500,
    foreignRatePerHour: 0,
    realtimeConnected: false,
    projects: [{ id: 'p_1', taskCount: 1_500 }],
    rates: new Map([['p_1', 1 / HOUR]]),
  });
}

describe('the single-page poll plan', () => {
  it('polls every part of every passed project within the bound, inside the budget', () => {
    let planned = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tasks: fc.integer({ min: 1, max: 20_000 }),
            perHour: fc.double({ min: 0.001, max: 20, noNaN: true }),
            passedHoursAgo: fc.option(fc.double({ min: 0, max: 30, noNaN: true })),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer({ min: 1_000, max: 20_000 }),
        fc.double({ min: 0.5, max: 23.5, noNaN: true }),
        (projects, quota, hoursLeft) => {
          const clock = new FakeClock(Date.UTC(2026, 10, 28, 0, 0, 0));
          const now = clock.now();
          const facts = projects.map((p, i) => ({
            id: `p_${i + 1}`,
            taskCount: p.tasks,
            lastPassAt: p.passedHoursAgo === null ? undefined : now - p.passedHoursAgo * HOUR,
          }));
          const plan = planDay({
            now,
            resetAt: now + hoursLeft * HOUR,
            quotaLimit: quota,
            quotaRemaining: Math.round((quota * hoursLeft) / 24),
            foreignRatePerHour: 0,
            realtimeConnected: false,
            projects: facts.map((f) => ({ id: f.id, taskCount: f.taskCount })),
            rates: new Map(facts.map((f, i) => [f.id, projects[i]!.perHour / HOUR])),
          });
          const polls = new PagePolls({
            clock,
            logger: pino({ level: 'silent' }),
            state: {
              changeRates: async () => [],
              saveChangeRates: async () => {},
              deleteChangeRates: async () => {},
            },
            pageSize: PAGE_SIZE,
            facts: () => facts,
            pollPage: async () => {
              throw new Error('not polled here');
            },
            pollLists: async () => {
              throw new Error('not polled here');
            },
            escalate: async () => {},
            afterRequests: async () => {},
          });
          const shaped = polls.shape(plan);
          const paged = shaped.projects.filter((p) => p.partsPolled === true);
          if (paged.length === 0) return; // left as planned: full passes at the intervals
          planned += 1;
          const bound = plan.maxStalenessMs!;
          // Only passed projects are polled by parts, every one of them.
          expect(new Set(paged.map((p) => p.projectId))).toEqual(
            new Set(facts.filter((f) => f.lastPassAt !== undefined).map((f) => f.id)),
          );
          let spend = 0;
          for (const p of paged) {
            expect(p.intervalMs).toBeLessThanOrEqual(bound);
            const fact = facts.find((f) => f.id === p.projectId)!;
            const pages = Math.max(1, Math.ceil(fact.taskCount / PAGE_SIZE));
            // Every part is due within the bound after the last look (at once if overdue).
            const due = polls.nextByProject(() => fact.lastPassAt).get(p.projectId)!;
            expect(due).toBeLessThanOrEqual(Math.max(now, fact.lastPassAt! + bound));
            spend += (pages * PAGE_POLL_COST + LISTS_POLL_COST) / bound;
          }
          // The floor alone fits what the plan spends on those projects.
          const budget = plan.projects
            .filter((p) => paged.some((q) => q.projectId === p.projectId))
            .reduce((sum, p) => sum + p.pollCost / p.intervalMs, 0);
          const others = plan.projects
            .filter((p) => !paged.some((q) => q.projectId === p.projectId))
            .reduce((sum, p) => sum + p.pollCost / p.intervalMs, 0);
          expect(spend).toBeLessThanOrEqual(budget + others + 1e-12);
          expect(shaped.stalenessBoundMs).toBeGreaterThanOrEqual(bound);
        },
      ),
      { seed: 3501, numRuns: 200 },
    );
    // Many cases were planned by parts (not left to the full passes).
    expect(planned).toBeGreaterThan(40);
  });

  it('forgets the page and side-list estimates of a project no longer mirrored, only its', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 28, 0, 0, 0));
    const learned = new ChangeRates(clock);
    for (const key of ['p_1#p1', 'p_1#p12', 'p_1#lists', 'p_10#p1', 'p_2#lists']) {
      learned.observePoll(key, true);
    }
    const deleted: string[][] = [];
    const polls = new PagePolls({
      clock,
      logger: pino({ level: 'silent' }),
      state: {
        changeRates: async () => learned.kept().map((row) => ({ ...row, lookedAt: clock.now() })),
        saveChangeRates: async () => {},
        deleteChangeRates: async (keys) => void deleted.push(keys),
      },
      pageSize: PAGE_SIZE,
      facts: () => [],
      pollPage: async () => {
        throw new Error('not polled here');
      },
      pollLists: async () => {
        throw new Error('not polled here');
      },
      escalate: async () => {},
      afterRequests: async () => {},
    });
    await polls.load();
    await polls.forget(['p_1']);
    expect(deleted).toEqual([['p_1#p1', 'p_1#p12', 'p_1#lists']]);
    await polls.forget(['p_1']);
    expect(deleted).toHaveLength(1);
  });

  it("counts a pass's pages as observations of their estimates, but not the page whose poll asked for it", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 28, 0, 0, 0));
    const saved = new Map<string, ChangeRateState>();
    const facts = [{ id: 'p_1', taskCount: 1_500, lastPassAt: clock.now() }];
    const pass = (pageLooks: { page: number; changed: boolean }[]) =>
      passOfP1(clock.now(), pageLooks);
    const polls: PagePolls = new PagePolls({
      clock,
      logger: pino({ level: 'silent' }),
      state: {
        changeRates: async () => [],
        saveChangeRates: async (rows) =>
          rows.forEach((row) => saved.set(row.key, row.state as ChangeRateState)),
        deleteChangeRates: async () => {},
      },
      pageSize: PAGE_SIZE,
      facts: () => facts,
      pollPage: async (projectId, page) => ({
        projectId,
        page,
        requests: 1,
        notModified: false,
        outcome: { kind: 'escalate', reason: 'X-Total-Count moved from 1500 to 1501' },
      }),
      pollLists: async () => {
        throw new Error('not polled here');
      },
      // The pass the poll asked for read all three pages, all changed since their last look.
      escalate: async () => polls.passed(pass([1, 2, 3].map((page) => ({ page, changed: true })))),
      afterRequests: async () => {},
    });
    await polls.load();
    // A first pass looks at the pages (nothing to compare with yet); an hour later another finds
    // pages 1 and 2 unchanged and 3 changed.
    polls.passed(pass([1, 2, 3].map((page) => ({ page, changed: true }))));
    await clock.advance(HOUR);
    polls.passed(
      pass([
        { page: 1, changed: false },
        { page: 2, changed: false },
        { page: 3, changed: true },
      ]),
    );
    await polls.load();
    await polls.save();
    const pollsOf = (key: string) =>
      saved.get(key)?.buckets.reduce((sum, bucket) => sum + bucket.polls, 0) ?? 0;
    const changesOf = (key: string) =>
      saved.get(key)?.buckets.reduce((sum, bucket) => sum + bucket.changed, 0) ?? 0;
    expect([pollsOf('p_1#p1'), pollsOf('p_1#p3')]).toEqual([1, 1]);
    expect([changesOf('p_1#p1'), changesOf('p_1#p3')]).toEqual([0, 1]);
    // Page 2's poll finds the total moved and asks for a pass: page 2 counts once (its poll's).
    const plan = planOfP1(clock);
    polls.shape(plan);
    await clock.advance(HOUR);
    await polls.poll('p_1#p2', new AbortController().signal);
    await polls.save();
    // Weights decay with time: two polls an hour apart weigh a little under 2.
    for (const page of [1, 2, 3]) expect(pollsOf(`p_1#p${page}`)).toBeCloseTo(2, 0);
    expect(pollsOf('p_1#p2')).toBeLessThan(2.5);
    expect(polls.escalated).toBe(1);
  });

  it("takes a page poll that met its project's pass in flight for no look: the pass is one", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 28, 0, 0, 0));
    const saved: string[] = [];
    let afterRequests = 0;
    const facts = [{ id: 'p_1', taskCount: 1_500, lastPassAt: clock.now() - 3 * HOUR }];
    const lastPassAt = () => facts[0]!.lastPassAt;
    const polls = new PagePolls({
      clock,
      logger: pino({ level: 'silent' }),
      state: {
        changeRates: async () => [],
        saveChangeRates: async (rows) => void saved.push(...rows.map((row) => row.key)),
        deleteChangeRates: async () => {},
      },
      pageSize: PAGE_SIZE,
      facts: () => facts,
      // The store found the project's pass in flight and sent nothing.
      pollPage: async (projectId, page) => ({
        projectId,
        page,
        requests: 0,
        notModified: false,
        outcome: { kind: 'busy' },
      }),
      pollLists: async () => {
        throw new Error('not polled here');
      },
      escalate: async () => {},
      afterRequests: async () => void (afterRequests += 1),
    });
    await polls.load();
    const plan = planOfP1(clock);
    polls.shape(plan);
    const began = clock.now();
    await polls.poll('p_1#p2', new AbortController().signal);
    await polls.save();
    // Nothing observed, no request's bookkeeping; every item of the project waits for the pass.
    expect(saved).toEqual([]);
    expect(afterRequests).toBe(0);
    expect(polls.nextByProject(lastPassAt).get('p_1')).toBe(began + PASS_WAIT_MS);
    // The pass ends 20 s later: its start is the items' look, and they wait no longer for it.
    await clock.advance(20_000);
    facts[0]!.lastPassAt = clock.now();
    polls.passed(passOfP1(began, []));
    const next = polls.nextByProject(lastPassAt).get('p_1')!;
    expect(next).toBeGreaterThan(began + PASS_WAIT_MS);
    expect(next).toBeLessThanOrEqual(began + plan.maxStalenessMs!);
  });
});
