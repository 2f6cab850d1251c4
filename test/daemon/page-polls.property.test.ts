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
import { planDay } from '../../src/budget/plan.js';
import { PAGE_POLL_COST, LISTS_POLL_COST, PagePolls } from '../../src/daemon/page-polls.js';
import { FakeClock } from '../fixtures/clock.js';

const HOUR = 3_600_000;
const PAGE_SIZE = 500;

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
});
