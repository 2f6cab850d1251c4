import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, type AllocationInput } from '../../src/budget/allocation.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The changes' total wait per ms (the objective) for the given intervals. */
function objective(input: AllocationInput, intervals: readonly number[]): number {
  return input.items.reduce((sum, item, i) => sum + (item.ratePerMs * intervals[i]!) / 2, 0);
}

/** Items, and a budget from half of what the bound needs (infeasible) to thirty times it. */
const inputs: fc.Arbitrary<AllocationInput> = fc
  .record({
    items: fc.array(
      fc.record({
        perDay: fc.oneof(fc.constant(0), fc.double({ min: 0.01, max: 2_000, noNaN: true })),
        cost: fc.integer({ min: 1, max: 45 }),
      }),
      { minLength: 1, maxLength: 60 },
    ),
    headroom: fc.double({ min: 0.5, max: 30, noNaN: true }),
    maxIntervalMs: fc.integer({ min: 10 * MINUTE, max: 2 * DAY }),
    minIntervalMs: fc.integer({ min: MINUTE, max: 10 * MINUTE }),
  })
  .map(({ items, headroom, maxIntervalMs, minIntervalMs }) => ({
    items: items.map((item, i) => ({
      id: `p_${i}`,
      ratePerMs: item.perDay / DAY,
      cost: item.cost,
    })),
    budgetPerMs: (headroom * items.reduce((sum, item) => sum + item.cost, 0)) / maxIntervalMs,
    maxIntervalMs,
    minIntervalMs,
  }));

describe('allocate', () => {
  it('polls in proportion to the square root of rate over cost, inside the bounds', () => {
    const allocation = allocate({
      items: [
        { id: 'hot', ratePerMs: 400 / DAY, cost: 4 },
        { id: 'warm', ratePerMs: 100 / DAY, cost: 4 },
        { id: 'cold', ratePerMs: 0, cost: 4 },
      ],
      budgetPerMs: 400 / DAY,
      maxIntervalMs: 6 * HOUR,
      minIntervalMs: MINUTE,
    });
    const [hot, warm, cold] = allocation.items;
    expect(cold!.intervalMs).toBeCloseTo(6 * HOUR, 3);
    expect(warm!.intervalMs / hot!.intervalMs).toBeCloseTo(2, 9);
    expect(allocation.spendPerMs * DAY).toBeCloseTo(400, 6);
    expect(allocation.boundHeld).toBe(true);
  });

  it('says when the budget cannot hold the bound, and then polls every item alike', () => {
    const allocation = allocate({
      items: [
        { id: 'a', ratePerMs: 10 / DAY, cost: 10 },
        { id: 'b', ratePerMs: 1 / DAY, cost: 10 },
      ],
      budgetPerMs: 20 / DAY,
      maxIntervalMs: HOUR,
      minIntervalMs: MINUTE,
    });
    expect(allocation.boundHeld).toBe(false);
    expect(allocation.items.map((item) => item.intervalMs / DAY)).toEqual([1, 1]);
  });

  it('respects the budget and the bound, spends the budget, and no shift of requests between two items does better (property)', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const allocation = allocate(input);
        const intervals = allocation.items.map((item) => item.intervalMs);
        const floorSpend = input.items.reduce(
          (sum, item) => sum + item.cost / input.maxIntervalMs,
          0,
        );
        // An item that never changes stays at the bound: more polls of it would buy nothing.
        const ceilingSpend = input.items.reduce(
          (sum, item) =>
            sum + item.cost / (item.ratePerMs > 0 ? input.minIntervalMs : input.maxIntervalMs),
          0,
        );
        expect(allocation.spendPerMs).toBeLessThanOrEqual(input.budgetPerMs * (1 + 1e-9));
        expect(allocation.spendPerMs).toBeGreaterThanOrEqual(
          Math.min(input.budgetPerMs, ceilingSpend) * (1 - 1e-9),
        );
        expect(allocation.boundHeld).toBe(floorSpend <= input.budgetPerMs);
        if (!allocation.boundHeld) return;
        for (const interval of intervals) {
          expect(interval).toBeLessThanOrEqual(input.maxIntervalMs * (1 + 1e-9));
          expect(interval).toBeGreaterThanOrEqual(input.minIntervalMs * (1 - 1e-9));
        }
        // Optimality: move a thousandth of one item's spend to another, inside the bounds.
        const f = intervals.map((interval) => 1 / interval);
        const best = objective(input, intervals);
        input.items.forEach((from, i) =>
          input.items.forEach((to, j) => {
            const moved = 1e-3 * from.cost * f[i]!;
            const fFrom = f[i]! - moved / from.cost;
            const fTo = f[j]! + moved / to.cost;
            if (i === j || fFrom < 1 / input.maxIntervalMs || fTo > 1 / input.minIntervalMs) return;
            const shifted = [...intervals];
            shifted[i] = 1 / fFrom;
            shifted[j] = 1 / fTo;
            expect(objective(input, shifted)).toBeGreaterThanOrEqual(best * (1 - 1e-12));
          }),
        );
      }),
      { seed: 35, numRuns: 300 },
    );
  });

  it('allocates 100,000 items at once', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({
      id: `p_${i}`,
      ratePerMs: ((i % 997) + 1) / DAY,
      cost: (i % 40) + 1,
    }));
    const allocation = allocate({
      items,
      budgetPerMs: 1e6 / DAY,
      maxIntervalMs: 2 * DAY,
      minIntervalMs: MINUTE,
    });
    expect(allocation.items).toHaveLength(100_000);
    expect(allocation.spendPerMs * DAY).toBeCloseTo(1e6, 0);
  });
});
