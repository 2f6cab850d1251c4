import { describe, expect, it } from 'vitest';
import { ForeignUseEstimator } from '../../src/budget/foreign.js';
import { nextReset, planDay, planTokens, pollCost, type PlanInput } from '../../src/budget/plan.js';

const HOUR = 3_600_000;
const start = Date.UTC(2026, 10, 21, 0, 0, 0);

function input(overrides: Partial<PlanInput> = {}): PlanInput {
  return {
    now: start,
    resetAt: start + 24 * HOUR,
    quotaLimit: 200,
    quotaRemaining: 200,
    foreignRatePerHour: 0,
    realtimeConnected: false,
    projects: [
      { id: 'a', taskCount: 100 },
      { id: 'b', taskCount: 1200 },
    ],
    ...overrides,
  };
}

describe('planDay', () => {
  it('costs a poll as project, pages and side lists', () => {
    expect(pollCost(0)).toBe(5);
    expect(pollCost(500)).toBe(5);
    expect(pollCost(501)).toBe(6);
  });

  it('never plans more than the quota less the reserve', () => {
    const plan = planDay(input());
    // Round: 1 list + 5 + 7 = 13; reserve 40; 160 requests spread over 24 h.
    expect(plan.reserve).toBe(40);
    expect(plan.intervalMs).toBe((24 * HOUR * 13) / 160);
    expect(plan.plannedPollRequests).toBe(12 * 13);
    expect(plan.plannedPollRequests + plan.reserve).toBeLessThanOrEqual(200);
    expect(plan.projects.map((p) => p.offsetMs)).toEqual([0, plan.intervalMs / 2]);
  });

  it('slows down when others spend the same quota', () => {
    const alone = planDay(input());
    const shared = planDay(input({ foreignRatePerHour: 2 }));
    expect(shared.foreignRequests).toBe(48);
    expect(shared.intervalMs).toBeGreaterThan(alone.intervalMs);
    expect(
      shared.plannedPollRequests + shared.reserve + shared.foreignRequests,
    ).toBeLessThanOrEqual(200);
  });

  it('only reconciles while realtime is connected, and respects the minimum interval', () => {
    const rich = input({ quotaLimit: 5000, quotaRemaining: 5000 });
    // 4,000 requests left after the reserve, 13 a round, over 24 h.
    expect(planDay(rich).intervalMs).toBe(Math.ceil((24 * HOUR * 13) / 4000));
    const huge = input({ quotaLimit: 1e7, quotaRemaining: 1e7 });
    expect(planDay(huge).intervalMs).toBe(60_000);
    expect(planDay({ ...rich, realtimeConnected: true }).intervalMs).toBe(HOUR);
  });

  it('plans no polls when nothing is left but the reserve', () => {
    const plan = planDay(input({ quotaRemaining: 30 }));
    expect(plan.plannedPollRequests).toBe(0);
    expect(plan.intervalMs).toBe(24 * HOUR);
  });

  it('allocates by change rate within the budget and the default bound', () => {
    const rich = input({
      quotaLimit: 5000,
      quotaRemaining: 5000,
      projects: [
        { id: 'hot', taskCount: 100 },
        { id: 'warm', taskCount: 100 },
        { id: 'cold', taskCount: 1200 },
      ],
    });
    const even = planDay(rich);
    const rates = new Map([
      ['hot', 100 / (24 * HOUR)],
      ['warm', 25 / (24 * HOUR)],
      ['cold', 0.01 / (24 * HOUR)],
    ]);
    const plan = planDay({ ...rich, rates });
    const [hot, warm, cold] = plan.projects;
    // The square-root rule: a quarter the rate at the same cost, twice the interval.
    expect(warm!.intervalMs / hot!.intervalMs).toBeCloseTo(2, 2);
    expect(cold!.intervalMs).toBe(plan.maxStalenessMs);
    expect(plan.maxStalenessMs).toBe(3 * Math.ceil((24 * HOUR * 18) / 4000));
    expect(plan.boundHeld).toBe(true);
    expect(plan.plannedPollRequests).toBeLessThanOrEqual(4000);
    expect(plan.plannedPollRequests).toBeGreaterThan(0.9 * even.plannedPollRequests);
    expect(plan.expectedStalenessMs!).toBeLessThan(even.expectedStalenessMs!);
    expect(hot!.ratePerHour).toBeCloseTo(100 / 24, 9);
    expect(hot!.expectedStalenessMs).toBe(hot!.intervalMs / 2);
    // Realtime up: every project reconciles alike, whatever the rates.
    const connected = planDay({ ...rich, rates, realtimeConnected: true });
    expect(new Set(connected.projects.map((p) => p.intervalMs))).toEqual(new Set([HOUR]));
  });

  it('with realtime connected, allocates the reconciles by the changes no event announced', () => {
    // Forty projects of 2,000 tasks: hourly reconciles of all would cost 8x the budget.
    const projects = Array.from({ length: 40 }, (_, i) => ({ id: `p_${i}`, taskCount: 2000 }));
    const day = input({
      quotaLimit: 5000,
      quotaRemaining: 5000,
      projects,
      realtimeConnected: true,
    });
    const even = planDay(day);
    // One project's events miss a change an hour; the others' miss one a day.
    const unannouncedRates = new Map(
      projects.map((p, i) => [p.id, (i === 0 ? 24 : 1) / (24 * HOUR)] as const),
    );
    const plan = planDay({ ...day, unannouncedRates });
    const [leaky, ...tight] = plan.projects;
    // As often as a reconcile may be (the reconcile interval), not more; the others less often.
    expect(leaky!.intervalMs).toBe(HOUR);
    for (const p of tight) expect(p.intervalMs).toBeGreaterThan(even.intervalMs);
    for (const p of tight) expect(p.intervalMs).toBeLessThanOrEqual(plan.maxStalenessMs!);
    expect(plan.boundHeld).toBe(true);
    expect(plan.plannedPollRequests).toBeLessThanOrEqual(5000 - even.reserve);
    // The mean wait of an unannounced change falls below the even plan's half interval.
    expect(plan.expectedStalenessMs!).toBeLessThan(even.intervalMs / 2);
    // Without realtime the same rates are not the poll plan's: polling reads every change's rate.
    expect(
      planDay({ ...day, realtimeConnected: false, unannouncedRates }).projects[0]!.ratePerHour,
    ).toBeUndefined();
  });

  it('spends what is left on the busy project near the reset, keeping the largest poll back', () => {
    const rates = new Map([
      ['a', 100 / (24 * HOUR)],
      ['b', 0.1 / (24 * HOUR)],
    ]);
    // 20 requests past the reserve, 2 hours to the reset; polls cost 5 (a) and 7 (b).
    const late = input({ now: start + 22 * HOUR, quotaRemaining: 60, rates });
    const plan = planDay(late);
    const [a, b] = plan.projects;
    expect(a!.intervalMs).toBeLessThan(2 * HOUR);
    expect(b!.intervalMs).toBeGreaterThan(2 * HOUR);
    expect(plan.plannedPollRequests).toBeGreaterThan(0);
    expect(plan.plannedPollRequests).toBeLessThanOrEqual(20 - 7);
    // With less than the largest poll past the reserve, nothing more is planned.
    const spent = planDay(input({ now: start + 22 * HOUR, quotaRemaining: 46, rates }));
    expect(spent.plannedPollRequests).toBe(0);
  });

  it('says when the budget cannot hold a --max-staleness bound, and polls alike', () => {
    const rates = new Map([
      ['a', 10 / (24 * HOUR)],
      ['b', 1 / (24 * HOUR)],
    ]);
    const plan = planDay(input({ rates, maxStalenessMs: HOUR }));
    expect(plan.boundHeld).toBe(false);
    expect(plan.projects[0]!.intervalMs).toBe(plan.projects[1]!.intervalMs);
    expect(plan.plannedPollRequests).toBeLessThanOrEqual(160);
  });

  it("joins the tokens' bounds: the longest, held only when every token holds its own", () => {
    const rates = new Map([
      ['a', 10 / (24 * HOUR)],
      ['b', 1 / (24 * HOUR)],
    ]);
    const joined = planTokens([
      { ...input({ rates, projects: [{ id: 'a', taskCount: 100 }] }), token: 't1' },
      {
        ...input({ rates, maxStalenessMs: HOUR / 6, projects: [{ id: 'b', taskCount: 100 }] }),
        token: 't2',
      },
    ]);
    expect(joined.boundHeld).toBe(false);
    expect(joined.maxStalenessMs).toBeGreaterThan(HOUR / 6);
    expect(joined.projects.map((p) => p.token)).toEqual(['t1', 't2']);
  });

  it('finds the next reset of a quota day', () => {
    expect(nextReset(start + 5 * HOUR)).toBe(start + 24 * HOUR);
    expect(nextReset(start + 1500, 1000)).toBe(start + 2000);
  });
});

describe('ForeignUseEstimator', () => {
  it('sees use beyond our own as a rate per hour', () => {
    const estimator = new ForeignUseEstimator();
    estimator.observe(start, 1000, 0);
    estimator.observe(start + HOUR / 2, 940, 20);
    expect(estimator.ratePerHour()).toBe(80);
  });

  it('reads zero when only we spend, and starts over at a reset', () => {
    const estimator = new ForeignUseEstimator();
    estimator.observe(start, 1000, 0);
    estimator.observe(start + HOUR, 990, 10);
    expect(estimator.ratePerHour()).toBe(0);
    estimator.observe(start + 2 * HOUR, 5000, 11);
    estimator.observe(start + 3 * HOUR, 4990, 11);
    expect(estimator.ratePerHour()).toBe(10);
  });
});
