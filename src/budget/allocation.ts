/**
 * How often to poll each item so that, for the requests the budget allows, a change waits as
 * little as possible on average before the mirror sees it.
 *
 * The objective. Item i changes as a Poisson process of rate λ_i and is polled periodically at
 * frequency f_i (every 1/f_i), each poll costing c_i requests. A change falls at a uniformly random
 * point of the interval between two polls, so it waits 1/(2 f_i) on average until the next poll
 * sees it, whatever λ_i. Per unit of time the changes' waits add up to
 *
 *     J(f) = Σ_i λ_i / (2 f_i),
 *
 * and the mean staleness of a change is J / Σ λ_i. This is the "staleness of a change" (the time
 * from a change to the mirror seeing it) that the product reports, not Cho and Garcia-Molina's
 * freshness (the share of time a copy is up to date, ACM TODS 28, 2003), whose optimum starves the
 * items that change fastest; for the delay of a change their Lagrange argument gives the square
 * root rule below, as Azar et al. (PNAS 115(32), 2018) find for the same linear cost.
 *
 * The derivation. Minimize J subject to the budget Σ c_i f_i ≤ B and the bounds f_min ≤ f_i ≤ f_max
 * (f_min = 1 / max staleness, f_max = 1 / the shortest interval the plan allows). J is convex and
 * falls in every f_i, so the budget binds, and the Karush-Kuhn-Tucker conditions give, with a
 * multiplier μ for the budget,
 *
 *     λ_i / (2 f_i²) = μ c_i   →   f_i = clamp(k · sqrt(λ_i / c_i), f_min, f_max),  k = 1/sqrt(2μ),
 *
 * with the one k at which the clamped frequencies spend exactly B (the spend rises with k, piece by
 * piece linearly between the 2n points where an item meets a clamp: sorting them finds k in
 * O(n log n)). When even f_min for every item costs more than B, the bound cannot hold: every item
 * is then polled at the same interval, the longest that spends no more than B, and the result says
 * so.
 */

/** One item to poll: its change rate (per ms) and the requests one poll costs. */
export interface AllocationItem {
  id: string;
  ratePerMs: number;
  cost: number;
}

/** The budget and the bounds. */
export interface AllocationInput {
  items: readonly AllocationItem[];
  /** Requests per ms the polls may spend. */
  budgetPerMs: number;
  /** No item waits longer than this between polls (the max-staleness bound). */
  maxIntervalMs: number;
  /** No item is polled more often than this. */
  minIntervalMs: number;
}

/** One item's interval. */
export interface AllocatedItem {
  id: string;
  intervalMs: number;
  /** The mean wait of one of its changes: half the interval. */
  expectedStalenessMs: number;
}

/** The intervals, and what they give. */
export interface Allocation {
  items: AllocatedItem[];
  /** Every item is polled at least every `maxIntervalMs` (false: the budget cannot afford it). */
  boundHeld: boolean;
  /** Requests per ms the intervals spend (at most the budget). */
  spendPerMs: number;
  /** The mean staleness of a change over all items, weighted by rate (0 when nothing changes). */
  meanStalenessMs: number;
}

/** The allocation that minimizes the mean staleness of a change; see the module comment. */
export function allocate(input: AllocationInput): Allocation {
  const { items, budgetPerMs } = input;
  const fMin = 1 / input.maxIntervalMs;
  const fMax = 1 / Math.min(input.minIntervalMs, input.maxIntervalMs);
  const floorSpend = items.reduce((sum, item) => sum + item.cost * fMin, 0);
  if (floorSpend >= budgetPerMs) {
    const f = floorSpend > 0 ? (fMin * budgetPerMs) / floorSpend : fMin;
    return result(
      items,
      items.map(() => f),
      floorSpend <= budgetPerMs,
    );
  }
  const ceilingSpend = items.reduce((sum, item) => sum + item.cost * fMax, 0);
  if (ceilingSpend <= budgetPerMs) {
    return result(
      items,
      items.map(() => fMax),
      true,
    );
  }
  const k = solveK(items, budgetPerMs, fMin, fMax);
  const weight = (item: AllocationItem) => Math.sqrt(Math.max(0, item.ratePerMs) / item.cost);
  const f = items.map((item) => Math.min(fMax, Math.max(fMin, k * weight(item))));
  return result(items, f, true);
}

/**
 * The k at which Σ c_i clamp(k w_i, f_min, f_max) equals the budget: between two consecutive
 * breakpoints the spend is `fixed + slope · k`, with `fixed` the clamped items' spend and `slope`
 * the free items' Σ c_i w_i.
 */
function solveK(
  items: readonly AllocationItem[],
  budget: number,
  fMin: number,
  fMax: number,
): number {
  type Point = { k: number; cost: number; weight: number; leaves: 'floor' | 'free' };
  const points: Point[] = [];
  let fixed = 0;
  for (const item of items) {
    const weight = Math.sqrt(Math.max(0, item.ratePerMs) / item.cost);
    fixed += item.cost * fMin;
    if (weight === 0) continue;
    points.push({ k: fMin / weight, cost: item.cost, weight, leaves: 'floor' });
    points.push({ k: fMax / weight, cost: item.cost, weight, leaves: 'free' });
  }
  points.sort((a, b) => a.k - b.k);
  let slope = 0;
  for (const point of points) {
    // The spend just before this breakpoint.
    const spend = fixed + slope * point.k;
    if (spend >= budget) return slope > 0 ? (budget - fixed) / slope : point.k;
    if (point.leaves === 'floor') {
      fixed -= point.cost * fMin;
      slope += point.cost * point.weight;
    } else {
      slope -= point.cost * point.weight;
      fixed += point.cost * fMax;
    }
  }
  // Every weighted item at its ceiling and still under budget: cannot happen (checked before).
  return points.length > 0 ? points[points.length - 1]!.k : 0;
}

function result(
  items: readonly AllocationItem[],
  frequencies: readonly number[],
  boundHeld: boolean,
): Allocation {
  let spend = 0;
  let waits = 0;
  let rates = 0;
  const allocated = items.map((item, i) => {
    const f = frequencies[i]!;
    spend += item.cost * f;
    const rate = Math.max(0, item.ratePerMs);
    waits += rate / (2 * f);
    rates += rate;
    return { id: item.id, intervalMs: 1 / f, expectedStalenessMs: 1 / (2 * f) };
  });
  return {
    items: allocated,
    boundHeld,
    spendPerMs: spend,
    meanStalenessMs: rates > 0 ? waits / rates : 0,
  };
}
