/**
 * The daily request plan: from the learned quota, the time to its reset and the cost of one poll
 * of each project, how often each project may be polled so that the day's requests never exceed
 * the quota, with a reserve kept for outbox pushes and event-driven refreshes. Given each project's
 * estimated change rate, the polls are allocated where the changes are (`allocation.ts`), no
 * project waiting longer than the max-staleness bound; without rates, every project gets the same
 * interval.
 */
import { allocate } from './allocation.js';

/** The daily quota assumed until the service has told its own (spec section 8). */
export const DEFAULT_QUOTA_LIMIT = 5_000;
/** Requests kept back from polling for pushes and refreshes, as a share of the daily quota. */
export const DEFAULT_RESERVE_SHARE = 0.2;
/** Never poll a project more often than this, however large the budget. */
export const DEFAULT_MIN_POLL_INTERVAL_MS = 60 * 1000;
/** With realtime connected, polls only reconcile: at most this often. */
export const DEFAULT_RECONCILE_INTERVAL_MS = 60 * 60 * 1000;
/** Side lists read on every poll: members, resources, dependencies. */
export const SIDE_LIST_REQUESTS = 3;
/** Tasks per page of a full read. */
export const PLAN_PAGE_SIZE = 500;
/**
 * The max-staleness bound by default, as a multiple of the interval a whole quota day gives when
 * every project is polled alike: it fits the budget, and leaves two thirds of it to allocate.
 */
export const DEFAULT_MAX_STALENESS_FACTOR = 3;
/** The quota day, over which the default bound is reckoned (steady however the day is spent). */
const QUOTA_DAY_MS = 86_400_000;

/** What the plan is computed from. */
export interface PlanInput {
  now: number;
  /** When the quota next resets. */
  resetAt: number;
  quotaLimit: number;
  /** Requests left until the reset, as the service last said (or our own count). */
  quotaRemaining: number;
  /** Requests per hour others spend on the same token (from X-Quota-Remaining falling faster than our own use). */
  foreignRatePerHour: number;
  realtimeConnected: boolean;
  projects: { id: string; taskCount: number }[];
  reserveShare?: number;
  minPollIntervalMs?: number;
  reconcileIntervalMs?: number;
  /**
   * Each project's estimated change rate, per ms: given, the polls are allocated by rate; a
   * project without one counts at the mean of the others'.
   */
  rates?: ReadonlyMap<string, number>;
  /**
   * Each project's estimated rate of changes no event announced, per ms: given, while realtime is
   * connected the reconciles are allocated by it (see `planDay`).
   */
  unannouncedRates?: ReadonlyMap<string, number>;
  /** No project waits longer than this between polls; by default a multiple of the even interval. */
  maxStalenessMs?: number;
}

/** One token's day: the plan input over the projects that token reads. */
export interface TokenPlanInput extends PlanInput {
  token: string;
}

/** One token's figures in a joined plan. */
export interface TokenPlan {
  token: string;
  intervalMs: number;
  /** Projects it reads. */
  projects: number;
  plannedPollRequests: number;
  reserve: number;
  foreignRequests: number;
  stalenessBoundMs: number;
}

/** One project's place in the plan. */
export interface ProjectPlan {
  projectId: string;
  /** The token that reads it, in a joined plan. */
  token?: string;
  /** Requests one poll costs: get project, its pages, the side lists. */
  pollCost: number;
  intervalMs: number;
  /** Offset of this project's polls within the interval, so polls spread evenly. */
  offsetMs: number;
  /** Its estimated change rate, per hour, when the plan allocated by rate (of the changes no event announced, while realtime is connected). */
  ratePerHour?: number;
  /** The mean wait of one of its changes until a poll sees it: half its interval. */
  expectedStalenessMs: number;
  /**
   * Its pages and side lists are polled on their own (`src/daemon/page-polls.ts`), each at least
   * every `intervalMs`: it is passed whole only when asked (a page poll, a failed pass's retry,
   * the reconcile), not at its interval.
   */
  partsPolled?: boolean;
}

/** The plan for the rest of the quota day. */
export interface DailyPlan {
  computedAt: number;
  resetAt: number;
  /** The interval every project would get if polled alike (the budget spread evenly). */
  intervalMs: number;
  projects: ProjectPlan[];
  /** The max-staleness bound the allocation was asked to hold (absent: polled alike). */
  maxStalenessMs?: number;
  /** Whether the budget affords polling every project within that bound. */
  boundHeld?: boolean;
  /** The mean wait of a change until a poll sees it, weighted by the projects' rates. */
  expectedStalenessMs?: number;
  /** Requests the plan spends on polls until the reset. */
  plannedPollRequests: number;
  /** Requests kept for pushes and refreshes. */
  reserve: number;
  /** Requests expected from other clients of the token until the reset. */
  foreignRequests: number;
  /** Worst staleness the plan allows without realtime: one interval plus one poll's duration. */
  stalenessBoundMs: number;
  /** Each token's own plan, in a joined plan (`planTokens`). */
  tokens?: TokenPlan[];
}

/** Requests one poll of a project with `taskCount` tasks costs. */
export function pollCost(taskCount: number): number {
  return 1 + Math.max(1, Math.ceil(taskCount / PLAN_PAGE_SIZE)) + SIDE_LIST_REQUESTS;
}

/**
 * Computes the plan: with `rates` (and realtime down), each project's interval from the
 * allocation; with `unannouncedRates` and realtime connected, each project's reconcile interval
 * from the same allocation over the changes no event announced; otherwise every project gets the
 * same interval. Either way staggered evenly.
 */
export function planDay(input: PlanInput): DailyPlan {
  const reserveShare = input.reserveShare ?? DEFAULT_RESERVE_SHARE;
  const minInterval = input.minPollIntervalMs ?? DEFAULT_MIN_POLL_INTERVAL_MS;
  const reconcileInterval = input.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS;
  const msLeft = Math.max(1, input.resetAt - input.now);
  const reserve = Math.ceil(input.quotaLimit * reserveShare);
  const foreignRequests = Math.ceil((input.foreignRatePerHour * msLeft) / 3_600_000);
  const available = Math.max(0, input.quotaRemaining - reserve - foreignRequests);
  // One round polls every project once and lists the projects once.
  const roundCost = 1 + input.projects.reduce((sum, p) => sum + pollCost(p.taskCount), 0);
  // Spread what is available evenly over the time left: no rounding to whole rounds, so the
  // interval drifts smoothly as the day goes on instead of jumping by a round at a time.
  let intervalMs = available >= roundCost ? Math.ceil((msLeft * roundCost) / available) : msLeft;
  intervalMs = Math.max(intervalMs, minInterval);
  if (input.realtimeConnected) intervalMs = Math.max(intervalMs, reconcileInterval);
  const base = {
    computedAt: input.now,
    resetAt: input.resetAt,
    intervalMs,
    reserve,
    foreignRequests,
  };
  const maxStalenessMs = input.maxStalenessMs ?? defaultMaxStaleness(input, roundCost, minInterval);
  // Unlike the even plan, the allocation needs no whole round: near the reset it spends what is
  // left on the projects where the changes are, within the bound while it can.
  // The largest poll is kept back: polls are whole, and the last one before the reserve must not
  // leave the projects after it unpolled until the reset.
  const largestPoll = Math.max(0, ...input.projects.map((p) => pollCost(p.taskCount)));
  const spendable = available - largestPoll;
  // With realtime connected an announced change is written at once; only a change no event
  // announced waits, until the next reconcile finds it. The reconciles then minimize the same
  // objective over those changes: Σ u_i / (2 f_i), u_i the rate of unannounced changes, with the
  // same budget and bound, never more often than the reconcile interval.
  const byRate = input.realtimeConnected ? input.unannouncedRates : input.rates;
  if (byRate && spendable > 0) {
    // The listing's share of a round stays out of the polls' budget, as in the even plan.
    const budgetPerMs = (spendable * (roundCost - 1)) / roundCost / msLeft;
    const floor = input.realtimeConnected ? Math.max(minInterval, reconcileInterval) : minInterval;
    // A reconcile is never due more often than the reconcile interval, whatever the bound.
    const bound = Math.max(maxStalenessMs, floor);
    return {
      ...base,
      ...allocatedProjects(input, byRate, budgetPerMs, bound, floor, msLeft),
    };
  }
  const count = input.projects.length;
  const projects = input.projects.map((project, index) => ({
    projectId: project.id,
    pollCost: pollCost(project.taskCount),
    intervalMs,
    offsetMs: count > 0 ? Math.floor((intervalMs * index) / count) : 0,
    expectedStalenessMs: intervalMs / 2,
  }));
  const plannedRounds = available >= roundCost ? Math.floor(msLeft / intervalMs) : 0;
  const maxPollRequests = Math.max(...projects.map((p) => p.pollCost), 0);
  return {
    ...base,
    projects,
    plannedPollRequests: plannedRounds * roundCost,
    ...(input.maxStalenessMs === undefined
      ? {}
      : { maxStalenessMs, boundHeld: intervalMs <= maxStalenessMs }),
    expectedStalenessMs: intervalMs / 2,
    // A poll's own duration at the burst limit of one request a second.
    stalenessBoundMs: intervalMs + maxPollRequests * 1000,
  };
}

/**
 * The default bound: a multiple of the even interval of a whole quota day (the daily quota less
 * the reserve and others' use), so that it does not move as the day's requests are spent.
 */
export function defaultMaxStaleness(
  input: Pick<PlanInput, 'quotaLimit' | 'reserveShare' | 'foreignRatePerHour'>,
  roundCost: number,
  minIntervalMs = DEFAULT_MIN_POLL_INTERVAL_MS,
): number {
  const reserve = input.quotaLimit * (input.reserveShare ?? DEFAULT_RESERVE_SHARE);
  const daily = input.quotaLimit - reserve - input.foreignRatePerHour * 24;
  const even = daily > roundCost ? (QUOTA_DAY_MS * roundCost) / daily : QUOTA_DAY_MS;
  return Math.ceil(DEFAULT_MAX_STALENESS_FACTOR * Math.max(minIntervalMs, even));
}

/** The projects' intervals from the allocation by rate (`allocation.ts`), and what they give. */
function allocatedProjects(
  input: PlanInput,
  rates: ReadonlyMap<string, number>,
  budgetPerMs: number,
  maxStalenessMs: number,
  minIntervalMs: number,
  msLeft: number,
) {
  const known = input.projects.flatMap((p) => rates.get(p.id) ?? []);
  const meanRate = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 0;
  const items = input.projects.map((project) => ({
    id: project.id,
    ratePerMs: rates.get(project.id) ?? meanRate,
    cost: pollCost(project.taskCount),
  }));
  const allocation = allocate({
    items,
    budgetPerMs,
    maxIntervalMs: maxStalenessMs,
    minIntervalMs,
  });
  const count = items.length;
  const projects = items.map((item, index) => {
    // Whole ms; a bound that holds is not passed by the rounding of 1/f.
    const rounded = Math.max(minIntervalMs, Math.round(allocation.items[index]!.intervalMs));
    const intervalMs = allocation.boundHeld ? Math.min(rounded, maxStalenessMs) : rounded;
    return {
      projectId: item.id,
      pollCost: item.cost,
      intervalMs,
      offsetMs: Math.floor((intervalMs * index) / count),
      ratePerHour: item.ratePerMs * 3_600_000,
      expectedStalenessMs: intervalMs / 2,
    };
  });
  const longest = Math.max(0, ...projects.map((p) => p.intervalMs));
  const maxPollRequests = Math.max(0, ...projects.map((p) => p.pollCost));
  return {
    projects,
    plannedPollRequests: projects.reduce(
      (sum, p) => sum + Math.floor(msLeft / p.intervalMs) * p.pollCost,
      0,
    ),
    maxStalenessMs,
    boundHeld: allocation.boundHeld,
    expectedStalenessMs: allocation.meanStalenessMs,
    stalenessBoundMs: longest + maxPollRequests * 1000,
  };
}

/**
 * Plans each token's day over the projects it reads, and joins them: each project keeps its
 * token's interval and offset; the joined figures are the sums (requests) and the longest
 * (interval, staleness bound) of the tokens'.
 */
export function planTokens(inputs: readonly TokenPlanInput[]): DailyPlan {
  const days = inputs.map((input) => ({ token: input.token, plan: planDay(input) }));
  const max = (pick: (plan: DailyPlan) => number) => Math.max(0, ...days.map((d) => pick(d.plan)));
  const sum = (pick: (plan: DailyPlan) => number) =>
    days.reduce((total, d) => total + pick(d.plan), 0);
  return {
    computedAt: Math.min(...days.map((d) => d.plan.computedAt)),
    resetAt: Math.min(...days.map((d) => d.plan.resetAt)),
    intervalMs: max((plan) => plan.intervalMs),
    projects: days.flatMap((d) => d.plan.projects.map((p) => ({ ...p, token: d.token }))),
    plannedPollRequests: sum((plan) => plan.plannedPollRequests),
    reserve: sum((plan) => plan.reserve),
    foreignRequests: sum((plan) => plan.foreignRequests),
    stalenessBoundMs: max((plan) => plan.stalenessBoundMs),
    ...joinedBound(days.map((d) => d.plan)),
    tokens: days.map(({ token, plan }) => ({
      token,
      intervalMs: plan.intervalMs,
      projects: plan.projects.length,
      plannedPollRequests: plan.plannedPollRequests,
      reserve: plan.reserve,
      foreignRequests: plan.foreignRequests,
      stalenessBoundMs: plan.stalenessBoundMs,
    })),
  };
}

/** The tokens' bounds joined: the longest bound, held when every token's is, the mean staleness. */
function joinedBound(
  plans: readonly DailyPlan[],
): Pick<DailyPlan, 'maxStalenessMs' | 'boundHeld' | 'expectedStalenessMs'> {
  const bounded = plans.filter((plan) => plan.maxStalenessMs !== undefined);
  const projects = plans.flatMap((plan) => plan.projects);
  const weight = (p: ProjectPlan) => p.ratePerHour ?? 1;
  const total = projects.reduce((sum, p) => sum + weight(p), 0);
  return {
    ...(bounded.length === 0
      ? {}
      : {
          maxStalenessMs: Math.max(...bounded.map((plan) => plan.maxStalenessMs ?? 0)),
          boundHeld: bounded.every((plan) => plan.boundHeld !== false),
        }),
    ...(total > 0
      ? {
          expectedStalenessMs:
            projects.reduce((sum, p) => sum + weight(p) * p.expectedStalenessMs, 0) / total,
        }
      : {}),
  };
}

/** The next daily reset after `now`, for a day of `dayMs` starting at `epochMs` (midnight UTC). */
export function nextReset(now: number, dayMs = 86_400_000, epochMs = 0): number {
  return epochMs + (Math.floor((now - epochMs) / dayMs) + 1) * dayMs;
}
