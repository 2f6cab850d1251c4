/**
 * The daily request plan: from the learned quota, the time to its reset and the cost of one poll
 * of each project, how often each project may be polled so that the day's requests never exceed
 * the quota, with a reserve kept for outbox pushes and event-driven refreshes.
 */

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
}

/** The plan for the rest of the quota day. */
export interface DailyPlan {
  computedAt: number;
  resetAt: number;
  intervalMs: number;
  projects: ProjectPlan[];
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

/** Computes the plan. Every project gets the same interval, staggered evenly across it. */
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
  const count = input.projects.length;
  const projects = input.projects.map((project, index) => ({
    projectId: project.id,
    pollCost: pollCost(project.taskCount),
    intervalMs,
    offsetMs: count > 0 ? Math.floor((intervalMs * index) / count) : 0,
  }));
  const plannedRounds = available >= roundCost ? Math.floor(msLeft / intervalMs) : 0;
  const maxPollRequests = Math.max(...projects.map((p) => p.pollCost), 0);
  return {
    computedAt: input.now,
    resetAt: input.resetAt,
    intervalMs,
    projects,
    plannedPollRequests: plannedRounds * roundCost,
    reserve,
    foreignRequests,
    // A poll's own duration at the burst limit of one request a second.
    stalenessBoundMs: intervalMs + maxPollRequests * 1000,
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

/** The next daily reset after `now`, for a day of `dayMs` starting at `epochMs` (midnight UTC). */
export function nextReset(now: number, dayMs = 86_400_000, epochMs = 0): number {
  return epochMs + (Math.floor((now - epochMs) / dayMs) + 1) * dayMs;
}
