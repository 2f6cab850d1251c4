/**
 * Benchmark 10's model of polling (not the daemon: no simulator, no sockets, no database): a day
 * of changes replayed against a schedule of polls, each poll seeing every change of its item made
 * before it started. Three schedules use the daemon's own planning code:
 * - `even`: today's plan (`planDay` without rates), every project alike, replanned after each poll;
 * - `allocated`: `planDay` with the rates `ChangeRates` learns from each poll (changed or not),
 *   replanned after each poll: what the daemon does;
 * - `pages`: the same estimator and `allocate` over single pages and side lists (a poll the daemon
 *   cannot make yet: reading one page is issue 35's next step);
 * and one does not learn: `oracle`, `allocate` over single pages with the workload's true rates.
 * A project poll costs what the daemon's does (get project, every page, three side lists) and
 * takes one second a request (the burst limit); a change never seen by the end of the day counts
 * as stale until then.
 */
import {
  allocate,
  ChangeRates,
  DEFAULT_RESERVE_SHARE,
  planDay,
  pollCost,
  type KeptChangeRate,
} from '../src/budget/index.js';
import { Prng } from '../src/sim/index.js';
import { CREATE_SHARE, DAY_MS, SIDE_LISTS, type ModelDay } from './skewed-workload.js';

/** The daily quota, as in the spec. */
export const MODEL_QUOTA = 5_000;
/**
 * The requests polls may spend: the quota less the plan's reserve. Near the reset the even plan
 * would poll into the reserve (its interval becomes the time left); the daemon's governor stops
 * at the quota, and the model stops every schedule here so that all spend the same.
 */
export const MODEL_POLL_REQUESTS = MODEL_QUOTA * (1 - DEFAULT_RESERVE_SHARE);
/** A page or one side list read alone. */
const SINGLE_READ_REQUESTS = 1;
/** The three side lists read together. */
const SIDE_LIST_READS = 3;

/** What a schedule did over the day. */
export interface ModelOutcome {
  requests: number;
  meanStalenessMs: number;
  p95StalenessMs: number;
  unseen: number;
  /** The longest time a project (or, for page schedules, an item) went unpolled, over its bound. */
  worstGapOverBound: number;
  /** The longest a change waited until a poll saw it (changes never seen left out). */
  worstSeenMs?: number;
  /** The estimates at the end of the day, to carry into the next. */
  kept: KeptChangeRate[];
  /** Of the requests, those the full passes that page polls turned into cost. */
  escalatedRequests?: number;
}

/** The changes' staleness, a never-seen change stale until `end`. */
function outcome(
  day: ModelDay,
  seenAt: (number | undefined)[],
  requests: number,
  worstGapOverBound: number,
  kept: KeptChangeRate[],
): ModelOutcome {
  const end = day.start + DAY_MS;
  const waits = day.changes
    .map((change, i) => (seenAt[i] ?? end) - change.at)
    .sort((a, b) => a - b);
  const mean = waits.reduce((a, b) => a + b, 0) / Math.max(1, waits.length);
  return {
    requests,
    meanStalenessMs: mean,
    p95StalenessMs: waits[Math.min(waits.length - 1, Math.floor(0.95 * waits.length))] ?? 0,
    unseen: day.changes.filter((_, i) => seenAt[i] === undefined).length,
    worstGapOverBound,
    worstSeenMs: day.changes.reduce(
      (worst, change, i) => Math.max(worst, seenAt[i] === undefined ? 0 : seenAt[i]! - change.at),
      0,
    ),
    kept,
  };
}

/**
 * Project polls as the daemon's plan schedules them: `rates` undefined polls every project alike;
 * given, it learns from the polls, starting from the estimates `rates` holds.
 */
export function projectSchedule(day: ModelDay, rates?: readonly KeptChangeRate[]): ModelOutcome {
  const end = day.start + DAY_MS;
  let now = day.start;
  const clock = { now: () => now };
  const learned = new ChangeRates(clock);
  learned.load(rates ?? []);
  const projects = day.projects.map((p) => ({ id: p.id, taskCount: p.tasks }));
  for (const p of projects) if (!learned.keptOne(p.id)) learned.observePoll(p.id, false);
  const pending = day.projects.map(() => [] as number[]);
  const lastPoll = day.projects.map(() => undefined as number | undefined);
  const seenAt: (number | undefined)[] = [];
  let nextChange = 0;
  let requests = 0;
  let worstGapOverBound = 0;
  for (;;) {
    const plan = planDay({
      now,
      resetAt: end,
      quotaLimit: MODEL_QUOTA,
      quotaRemaining: MODEL_QUOTA - requests,
      foreignRatePerHour: 0,
      realtimeConnected: false,
      projects,
      ...(rates ? { rates: learned.pooledRates(projects.map((p) => p.id)) } : {}),
    });
    // As the poll scheduler: the first poll staggered across one interval, then one interval on.
    const share = plan.intervalMs / Math.max(1, projects.length);
    const due = plan.projects.map(
      (p, j) => (lastPoll[j] ?? day.start + p.offsetMs + share - p.intervalMs) + p.intervalMs,
    );
    const j = due.indexOf(Math.min(...due));
    const at = Math.max(now, due[j]!);
    if (at >= end || requests + plan.projects[j]!.pollCost > MODEL_POLL_REQUESTS) break;
    while (nextChange < day.changes.length && day.changes[nextChange]!.at <= at) {
      pending[day.changes[nextChange]!.project]!.push(nextChange);
      nextChange += 1;
    }
    now = at;
    const bound = plan.maxStalenessMs ?? Infinity;
    const since = lastPoll[j] ?? day.start;
    // A poll may wait behind another one (they run one at a time): its own length is slack.
    const slack = plan.projects[j]!.pollCost * 1_000;
    worstGapOverBound = Math.max(worstGapOverBound, now - since - bound - slack);
    for (const i of pending[j]!) seenAt[i] = now;
    if (rates) learned.observePoll(plan.projects[j]!.projectId, pending[j]!.length > 0);
    pending[j] = [];
    lastPoll[j] = now;
    requests += plan.projects[j]!.pollCost;
    now += plan.projects[j]!.pollCost * 1_000;
  }
  return outcome(day, seenAt, requests, worstGapOverBound, learned.kept());
}

/** One item of a page schedule: a page, or a project's three side lists. */
interface PageItem {
  key: string;
  project: number;
  page: number;
  cost: number;
  /** Its true rate per ms (what the oracle knows). */
  trueRate: number;
}

function pageItems(day: ModelDay): PageItem[] {
  return day.projects.flatMap((project, p) => {
    const pageEdits = project.itemEditsPerDay.slice(0, project.pages);
    const created = CREATE_SHARE * pageEdits.reduce((a, b) => a + b, 0);
    return project.itemEditsPerDay.map((perDay, i) => {
      const side = i === project.pages;
      const rate = side
        ? perDay
        : perDay * (1 - CREATE_SHARE) + (i === project.pages - 1 ? created : 0);
      return {
        key: side ? `${project.id}/lists` : `${project.id}/${i}`,
        project: p,
        page: side ? SIDE_LISTS : i,
        cost: side ? SIDE_LIST_READS : SINGLE_READ_REQUESTS,
        trueRate: rate / DAY_MS,
      };
    });
  });
}

/**
 * Single-page polls at the allocation's intervals, spending `requestsPerDay`: with the true rates
 * (`learn` false, the oracle) or rates learned from its own polls starting from `kept`. The
 * intervals are recomputed every `REPLAN_MS`; the bound is the project plan's.
 */
export function pageSchedule(
  day: ModelDay,
  requestsPerDay: number,
  maxStalenessMs: number,
  learn: false | readonly KeptChangeRate[],
  /**
   * Whether a page poll that finds its project's task count moved (a task created or deleted
   * since the project's last full read) turns into a full pass of the project, as the daemon's
   * does: it costs a project poll and sees every pending change of the project.
   */
  escalate = false,
): ModelOutcome {
  const REPLAN_MS = 15 * 60_000;
  const end = day.start + DAY_MS;
  let now = day.start;
  const learned = new ChangeRates({ now: () => now });
  const items = pageItems(day);
  if (learn) learned.load(learn);
  for (const item of items) if (!learned.keptOne(item.key)) learned.observePoll(item.key, false);
  const index = new Map(items.map((item, i) => [`${item.project}/${item.page}`, i]));
  const pending = items.map(() => [] as number[]);
  const phase = new Prng(10);
  let intervals: number[] = [];
  let plannedAt = -Infinity;
  const lastPoll = items.map(() => undefined as number | undefined);
  const seenAt: (number | undefined)[] = [];
  let nextChange = 0;
  let requests = 0;
  let worstGapOverBound = 0;
  const countMoved = day.projects.map(() => false);
  let escalatedRequests = 0;
  for (;;) {
    if (now - plannedAt >= REPLAN_MS) {
      const left = Math.max(0, requestsPerDay - requests);
      const pooled = learn ? learned.pooledRates(items.map((item) => item.key)) : undefined;
      const allocation = allocate({
        items: items.map((item) => ({
          id: item.key,
          ratePerMs: pooled?.get(item.key) ?? item.trueRate,
          cost: item.cost,
        })),
        budgetPerMs: left / Math.max(1, end - now),
        maxIntervalMs: maxStalenessMs,
        minIntervalMs: 60_000,
      });
      intervals = allocation.items.map((item) => item.intervalMs);
      plannedAt = now;
    }
    const due = items.map(
      (_, i) => (lastPoll[i] ?? day.start - phase.next() * intervals[i]!) + intervals[i]!,
    );
    // Fix the random first phases once drawn.
    due.forEach((at, i) => (lastPoll[i] ??= at - intervals[i]!));
    const i = due.indexOf(Math.min(...due));
    const at = Math.max(now, due[i]!);
    if (at >= end || requests + items[i]!.cost > requestsPerDay) break;
    while (nextChange < day.changes.length && day.changes[nextChange]!.at <= at) {
      const change = day.changes[nextChange]!;
      pending[index.get(`${change.project}/${change.page}`)!]!.push(nextChange);
      if (change.kind === 'create' || change.kind === 'delete') countMoved[change.project] = true;
      nextChange += 1;
    }
    now = at;
    worstGapOverBound = Math.max(
      worstGapOverBound,
      now - Math.max(day.start, lastPoll[i]!) - maxStalenessMs,
    );
    const project = items[i]!.project;
    if (escalate && items[i]!.page !== SIDE_LISTS && countMoved[project]!) {
      // The page's own poll, then a full pass: every item of the project looked at.
      const cost = SINGLE_READ_REQUESTS + pollCost(day.projects[project]!.tasks);
      if (requests + cost > requestsPerDay) break;
      items.forEach((item, j) => {
        if (item.project !== project) return;
        for (const c of pending[j]!) seenAt[c] = now;
        if (learn) learned.observePoll(item.key, pending[j]!.length > 0);
        pending[j] = [];
        lastPoll[j] = now;
      });
      countMoved[project] = false;
      escalatedRequests += cost;
      requests += cost;
      now += cost * 1_000;
      continue;
    }
    for (const c of pending[i]!) seenAt[c] = now;
    if (learn) learned.observePoll(items[i]!.key, pending[i]!.length > 0);
    pending[i] = [];
    lastPoll[i] = now;
    requests += items[i]!.cost;
    now += items[i]!.cost * 1_000;
  }
  return {
    ...outcome(day, seenAt, requests, worstGapOverBound, learned.kept()),
    escalatedRequests,
  };
}
