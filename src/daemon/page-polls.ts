/**
 * Polls that read what is due (issue 35 part 3): each task page of a project and its side lists
 * are items of their own, each with a change-rate estimate (`<project>#p<k>`, `<project>#lists`,
 * kept in `change_rates` beside the projects'), and the polling budget the daily plan gives the
 * passed projects is spent on polls of single items. A project whose items are polled is passed
 * whole only when something asks for it: a page poll that cannot be applied alone, a failed
 * pass's retry, the reconcile.
 *
 * The objective. Item i (a page, cost 1 request; the side lists with get project, cost 4) changes
 * as a Poisson process of rate λ_i and is polled every 1/g_i. Its changes wait 1/(2 g_i) on average
 * until a poll sees them, so the expected staleness of a change summed over the day is
 * J = Σ_i λ_i / (2 g_i), to be minimized under the budget Σ_i c_i g_i ≤ R, R the plan's own spend
 * on those projects (Σ_p cost_p / interval_p).
 *
 * The bound. No item waits longer than `--max-staleness` (T, less a slack for polls queued behind
 * others): g_i ≥ 1/T. Every part of a project is then read within T, and every way the task list
 * can move shows in some page's poll within T: a task created or deleted moves `X-Total-Count`,
 * which every page poll checks, and one created and another deleted shift the ids of the pages
 * between them (and change the last page's), which each page poll compares with the kept page.
 * Those polls turn into a full pass, which settles it; a page poll itself never deletes. So the
 * full passes at the bound that an earlier plan kept (Σ_p cost_p / T, a third of the budget on
 * benchmark 10's day) buy nothing the floor does not: the floor costs the same for a cold
 * project and less for a hot one, whose polls already come more often than T.
 *
 * The derivation. As in `src/budget/allocation.ts`, the Karush-Kuhn-Tucker conditions of min J
 * subject to the budget and the floor give g_i = max(1/T, k · sqrt(λ_i / c_i)), with the one k
 * that spends R. With no estimate yet, a page starts from its project's rate shared over its pages
 * (the prior weighs like an hour of polls), so a project the plan found busy has its pages polled
 * sooner from the start. When the floor alone costs more than R, the plan is left as it was: full
 * passes at the project intervals.
 *
 * A page poll that cannot be applied alone (X-Total-Count moved, rows shifted) turns into a full
 * pass of the project at once. Those passes are paid from the same budget: the requests they
 * cost over the last `ESCALATION_WINDOW_MS` are kept out of R (and the governor never lets a
 * request past the quota).
 */
import type { Logger } from 'pino';
import { ChangeRates, type DailyPlan, type ProjectPlan } from '../budget/index.js';
import { allocate } from '../budget/allocation.js';
import { estimateRate } from '../budget/change-rate.js';
import { DEFAULT_POOLED_EXPOSURE_MS } from '../budget/change-rates.js';
import { backoffDelayMs, type BackoffPolicy } from '../domain/backoff.js';
import { errorLine, type Clock } from '../domain/index.js';
import type { ListsPollResult, PagePollResult, ProjectSyncResult } from '../mirror/index.js';
import type { StatePort } from '../store/port.js';
import {
  FAILED_PASS_BACKOFF_BASE_MS,
  FAILED_PASS_BACKOFF_MAX_MS,
  FAILED_PASS_MIN_RETRY_MS,
} from './poll-scheduler.js';

/**
 * How long a project's items wait when a page poll finds its pass in flight, unless the pass ends
 * sooner (it then counts as their look).
 */
export const PASS_WAIT_MS = 60_000;
/** Requests a single-page poll costs. */
export const PAGE_POLL_COST = 1;
/** Requests a side-list poll costs: get project and the three lists. */
export const LISTS_POLL_COST = 4;
/** The hot pages of a project that `status` shows: its most often polled. */
export const HOT_PAGES_SHOWN = 3;
/**
 * A project's side lists start from this share of one page's prior rate: they change rarely
 * (issue 35), and at 4 requests a poll a prior as a page's would spend a third of a small
 * project's page budget on them before their polls taught otherwise.
 */
export const LISTS_PRIOR_SHARE = 0.1;
/** No item is polled more often than this. */
export const MIN_ITEM_INTERVAL_MS = 60_000;
/**
 * How much sooner than the bound an item is polled at the latest, at least (`itemBound`):
 * passes and polls run one at a time, so a poll may wait behind others that fell due.
 */
export const POLL_SLACK_MS = 10 * 60_000;
/** The window over which the requests of passes that page polls asked for are counted. */
export const ESCALATION_WINDOW_MS = 6 * 3_600_000;

/** One page or side list the plan polls on its own. */
export interface PollItem {
  key: string;
  projectId: string;
  /** The page, or undefined for the side lists. */
  page: number | undefined;
  intervalMs: number;
  ratePerMs: number;
}

/** A project's place in a plan that polls its pages on their own. */
export interface PagedProjectPlan extends ProjectPlan {
  /** Its most often polled pages: page number and interval. */
  hotPages?: { page: number; intervalMs: number }[];
  /** How often its side lists are polled on their own (absent: by its full passes only). */
  listsIntervalMs?: number;
}

/** What the page polls need of the daemon. */
export interface PagePollsOptions {
  clock: Clock;
  logger: Logger;
  state: Pick<StatePort, 'changeRates' | 'saveChangeRates' | 'deleteChangeRates'>;
  /** Tasks per page of the mirror's passes. */
  pageSize: number;
  /** The mirror's projects: tasks held and the last consistent pass (undefined: never passed). */
  facts: () => readonly { id: string; taskCount: number; lastPassAt: number | undefined }[];
  pollPage: (projectId: string, page: number, signal: AbortSignal) => Promise<PagePollResult>;
  pollLists: (projectId: string, signal: AbortSignal) => Promise<ListsPollResult>;
  /** A full consistent pass of the project, begun now (a page poll asked for it). */
  escalate: (projectId: string, signal: AbortSignal) => Promise<unknown>;
  /** After each poll's requests (the budget and plan are saved). */
  afterRequests: () => Promise<void>;
  /** Jitter source in [0, 1) for a failed poll's backoff; `Math.random` by default. */
  random?: () => number;
}

/** The key of page `page` of a project, or of its side lists. */
export function itemKey(projectId: string, page: number | undefined): string {
  return page === undefined ? `${projectId}#lists` : `${projectId}#p${page}`;
}

/** True for a key of a page or side lists (not a project's, nor another estimate's). */
function isItemKey(key: string): boolean {
  return /#(p\d+|lists)$/.test(key);
}

/** The project of an item's key. */
function projectOf(key: string): string {
  return key.replace(/#(p\d+|lists)$/, '');
}

/** Single-page and side-list polls: their estimates, their plan and their runs. */
export class PagePolls {
  private readonly options: PagePollsOptions;
  private readonly rates: ChangeRates;
  private items = new Map<string, PollItem>();
  /** The longest interval of any item's polls, from the last plan shaped. */
  private floorMs = Infinity;
  private readonly lastPolled = new Map<string, number>();
  /**
   * Projects whose last poll of an item failed: how often in a row, and when their items are
   * tried again (per project, not per item: a project gone from the service fails every item,
   * and is then asked once a backoff, as a failed pass is, not once an item).
   */
  private readonly failing = new Map<string, { failures: number; retryAt: number }>();
  /**
   * Projects whose page poll found their pass in flight, and until when their items wait for it
   * (its end, `passed`, lets them go sooner): the pass reads every page itself.
   */
  private readonly waitingForPass = new Map<string, number>();
  private readonly backoff: BackoffPolicy;
  private readonly firstPlanned = new Map<string, number>();
  /** The page whose poll asked for a pass of each project, until that pass ends. */
  private readonly askedPass = new Map<string, number>();
  /** When each project's last pass seen here began. */
  private readonly passBegan = new Map<string, number>();
  private readonly dirty = new Set<string>();
  /** The full passes page polls turned into, lately: when, and their projects' poll cost. */
  private escalations: { at: number; cost: number }[] = [];
  /** Each planned project's poll cost, from the last plan shaped. */
  private costs = new Map<string, number>();
  /** Page polls that turned into a full pass since start (`/metrics`). */
  escalated = 0;
  private loaded = false;
  /** The kept estimates' load, begun with the first look at the schedule. */
  private loading: Promise<void> | undefined;

  constructor(options: PagePollsOptions) {
    this.options = options;
    this.rates = new ChangeRates(options.clock);
    // As a failed pass's: seconds, doubling to 10 minutes at most.
    this.backoff = {
      baseMs: FAILED_PASS_BACKOFF_BASE_MS,
      maxMs: FAILED_PASS_BACKOFF_MAX_MS,
      random: options.random ?? Math.random,
    };
  }

  /** Adopts the kept estimates of pages and side lists; an unreadable mirror leaves the priors. */
  load(): Promise<void> {
    this.loading ??= this.read();
    return this.loading;
  }

  /**
   * Adopts the mirror's estimates of the pages and side lists of `projectIds`, which another
   * daemon held (on a shared PostgreSQL mirror): theirs are newer than what this one loaded.
   */
  async adopt(projectIds: readonly string[]): Promise<void> {
    await this.load();
    const wanted = new Set(projectIds);
    await this.read((key) => wanted.has(projectOf(key)));
  }

  private async read(keep: (key: string) => boolean = () => true): Promise<void> {
    try {
      const rows = await this.options.state.changeRates();
      this.rates.load(rows.filter((row) => isItemKey(row.key) && keep(row.key)));
    } catch (error) {
      this.options.logger.warn({ err: errorLine(error) }, 'could not read the page estimates');
    }
    this.loaded = true;
  }

  /**
   * The plan with each passed project's budget spent on its single pages and side lists, each
   * within the bound (see the module comment); the plan unchanged when realtime is connected (its
   * passes are then reconciles, read whole), when it does not allocate by rate, or when the floor
   * does not fit.
   */
  shape(plan: DailyPlan, realtimeConnected = false): DailyPlan {
    const bound = plan.maxStalenessMs;
    const allocated = plan.projects.some((p) => p.ratePerHour !== undefined);
    if (realtimeConnected || bound === undefined || plan.boundHeld !== true || !allocated) {
      this.items = new Map();
      return plan;
    }
    const facts = new Map(this.options.facts().map((fact) => [fact.id, fact]));
    const budget = plan.projects.reduce((sum, p) => sum + p.pollCost / p.intervalMs, 0);
    const passed = plan.projects.filter((p) => facts.get(p.projectId)?.lastPassAt !== undefined);
    const passedIds = new Set(passed.map((p) => p.projectId));
    // A project never passed yet is passed whole at its plan's interval: it has no pages to poll.
    const unpassedSpend = plan.projects.reduce(
      (sum, p) => sum + (passedIds.has(p.projectId) ? 0 : p.pollCost / p.intervalMs),
      0,
    );
    // The passes page polls turned into (tasks created or deleted) are paid from the same budget:
    // their recent rate is kept out of what the page polls may spend.
    const now = this.options.clock.now();
    this.escalations = this.escalations.filter((e) => e.at > now - ESCALATION_WINDOW_MS);
    const escalated = this.escalations.reduce((sum, e) => sum + e.cost, 0);
    this.costs = new Map(plan.projects.map((p) => [p.projectId, p.pollCost]));
    const left = budget - unpassedSpend - escalated / ESCALATION_WINDOW_MS;
    if (passed.length === 0 || !(left > 0)) {
      this.items = new Map();
      return plan;
    }
    const candidates = passed.flatMap((p) =>
      this.candidates(p, facts.get(p.projectId)?.taskCount ?? 0),
    );
    const costOf = (c: { page: number | undefined }) =>
      c.page === undefined ? LISTS_POLL_COST : PAGE_POLL_COST;
    const floorMs = itemBound(
      bound,
      candidates.reduce((sum, c) => sum + costOf(c), 0),
    );
    this.floorMs = floorMs;
    // The floor's polls fall due in lumps (a reconcile looks at every item at once), and before
    // the quota resets each item looked at more than a floor ago must be polled however the
    // day's requests went: what that needs beyond the floor's steady rate is kept back.
    const msLeft = Math.max(1, plan.resetAt - now);
    const looked = (c: Omit<PollItem, 'intervalMs'>) =>
      Math.max(
        this.lastPolled.get(c.key) ?? -Infinity,
        this.passLook(c.projectId, facts.get(c.projectId)?.lastPassAt) ?? now,
      );
    const debt = candidates.reduce(
      (sum, c) => sum + costOf(c) * Math.max(0, Math.floor((plan.resetAt - looked(c)) / floorMs)),
      0,
    );
    const steady = candidates.reduce((sum, c) => sum + (costOf(c) * msLeft) / floorMs, 0);
    const lumps = Math.max(0, debt - steady) / msLeft;
    const allocation = allocate({
      items: candidates.map((c) => ({
        id: c.key,
        ratePerMs: c.ratePerMs,
        cost: costOf(c),
      })),
      budgetPerMs: left - lumps,
      maxIntervalMs: floorMs,
      minIntervalMs: MIN_ITEM_INTERVAL_MS,
    });
    // The floor does not fit what is left (escalations took much of it): full passes as planned.
    if (!allocation.boundHeld) {
      this.items = new Map();
      return plan;
    }
    const items = new Map<string, PollItem>();
    candidates.forEach((candidate, i) => {
      const intervalMs = Math.min(floorMs, allocation.items[i]!.intervalMs);
      items.set(candidate.key, { ...candidate, intervalMs });
    });
    this.items = items;
    const projects = plan.projects.map((p) => this.shaped(p, passedIds, floorMs));
    const longestPoll = Math.max(0, ...plan.projects.map((p) => p.pollCost));
    // An item is at most one bound apart, plus a full pass it may wait behind, at one a second.
    const stalenessBoundMs = Math.max(plan.stalenessBoundMs, bound + longestPoll * 1000);
    const rates = projects.reduce((sum, p) => sum + (p.ratePerHour ?? 0), 0);
    const waits = projects.reduce(
      (sum, p) => sum + (p.ratePerHour ?? 0) * p.expectedStalenessMs,
      0,
    );
    return {
      ...plan,
      projects,
      stalenessBoundMs,
      ...(rates > 0 ? { expectedStalenessMs: waits / rates } : {}),
    };
  }

  /**
   * A passed project's entry in the shaped plan: its parts polled on their own, its interval the
   * longest of theirs (every part is read at least that often), its hot pages listed.
   */
  private shaped(p: ProjectPlan, passed: ReadonlySet<string>, floorMs: number): PagedProjectPlan {
    if (!passed.has(p.projectId)) return p;
    const own = [...this.items.values()].filter((item) => item.projectId === p.projectId);
    // Hot: polled more often than the floor.
    const pages = own.filter((item) => item.page !== undefined && item.intervalMs < floorMs);
    const hotPages = pages
      .sort((a, b) => a.intervalMs - b.intervalMs)
      .slice(0, HOT_PAGES_SHOWN)
      .map((item) => ({ page: item.page!, intervalMs: Math.round(item.intervalMs) }));
    const lists = own.find((item) => item.page === undefined);
    // A change waits half the interval of the poll that looks at it.
    const rate = own.reduce((sum, item) => sum + item.ratePerMs, 0);
    const waits = own.reduce((sum, item) => sum + item.ratePerMs * (item.intervalMs / 2), 0);
    const longest = Math.max(...own.map((item) => item.intervalMs));
    return {
      ...p,
      // The project's rate is its pages' and side lists' together.
      ratePerHour: rate * 3_600_000,
      intervalMs: Math.round(longest),
      offsetMs: Math.min(p.offsetMs, longest),
      expectedStalenessMs: rate > 0 ? waits / rate : longest / 2,
      partsPolled: true,
      ...(hotPages.length > 0 ? { hotPages } : {}),
      ...(lists ? { listsIntervalMs: Math.round(lists.intervalMs) } : {}),
    };
  }

  /** A passed project's pages and side lists, each with its estimated rate. */
  private candidates(p: ProjectPlan, taskCount: number): Omit<PollItem, 'intervalMs'>[] {
    const pages = Math.max(1, Math.ceil(taskCount / this.options.pageSize));
    const projectRate = (p.ratePerHour ?? 0) / 3_600_000;
    // The project's rate shared over its pages, and a tenth of a page's for its side lists.
    const pagePrior = projectRate / (pages + LISTS_PRIOR_SHARE);
    const now = this.options.clock.now();
    const rateOf = (key: string, page: number | undefined) => {
      const prior = page === undefined ? pagePrior * LISTS_PRIOR_SHARE : pagePrior;
      const state = this.rates.keptOne(key)?.state;
      if (state === undefined || !(prior > 0)) return prior > 0 ? prior : this.rates.rate(key);
      return estimateRate(state, now, {
        priorChanges: prior * DEFAULT_POOLED_EXPOSURE_MS,
        priorExposureMs: DEFAULT_POOLED_EXPOSURE_MS,
      });
    };
    const pageNumbers = Array.from({ length: pages }, (_, i) => i + 1);
    return [...pageNumbers, undefined].map((page) => {
      const key = itemKey(p.projectId, page);
      return { key, projectId: p.projectId, page, ratePerMs: rateOf(key, page) };
    });
  }

  /**
   * The next item due and when: one interval after it or its project's last consistent pass
   * was polled (a pass reads every page), the first poll staggered over one interval.
   */
  next(
    lastPassAt: (projectId: string) => number | undefined = (projectId) =>
      this.options.facts().find((fact) => fact.id === projectId)?.lastPassAt,
  ): { key: string; at: number } | undefined {
    let best: { key: string; at: number } | undefined;
    for (const due of this.dueTimes(lastPassAt))
      if (best === undefined || due.at < best.at) best = due;
    return best;
  }

  /** When each project's next item is due (for `status`: a project polled by parts). */
  nextByProject(lastPassAt: (projectId: string) => number | undefined): Map<string, number> {
    const next = new Map<string, number>();
    for (const { key, at } of this.dueTimes(lastPassAt)) {
      const projectId = this.items.get(key)!.projectId;
      next.set(projectId, Math.min(at, next.get(projectId) ?? Infinity));
    }
    return next;
  }

  /** Every item's due time. */
  private dueTimes(lastPassAt: (projectId: string) => number | undefined) {
    const now = this.options.clock.now();
    const passes = new Map(
      this.options.facts().map((fact) => [fact.id, this.passLook(fact.id, lastPassAt(fact.id))]),
    );
    const due: { key: string; at: number }[] = [];
    let index = 0;
    for (const item of this.items.values()) {
      index += 1;
      const looked = Math.max(
        this.lastPolled.get(item.key) ?? -Infinity,
        passes.get(item.projectId) ?? -Infinity,
      );
      // The first poll, staggered so that the pages do not all fall due together.
      if (!this.firstPlanned.has(item.key)) {
        this.firstPlanned.set(item.key, now + (item.intervalMs * (index % 97)) / 97);
      }
      let at = looked + item.intervalMs;
      // Never later than the floor after the last look: the bound holds through the stagger.
      if (!this.lastPolled.has(item.key)) {
        at = Math.min(Math.max(at, this.firstPlanned.get(item.key)!), looked + this.floorMs);
      }
      if (!Number.isFinite(at)) at = now;
      // A failed poll read nothing: the project's items are tried after its backoff, not sooner.
      const failing = this.failing.get(item.projectId);
      if (failing !== undefined) at = Math.max(at, failing.retryAt);
      const waiting = this.waitingForPass.get(item.projectId);
      if (waiting !== undefined) at = Math.max(at, waiting);
      due.push({ key: item.key, at });
    }
    return due;
  }

  /**
   * When a project's last pass looked at its parts: when it began (it read them before its
   * commit, which is what `lastPassAt` tells), or the commit when that pass is not known here
   * (another daemon's, or one from before a restart).
   */
  private passLook(projectId: string, lastPassAt: number | undefined): number | undefined {
    const began = this.passBegan.get(projectId);
    return began !== undefined && lastPassAt !== undefined
      ? Math.min(began, lastPassAt)
      : lastPassAt;
  }

  /**
   * A pass of a project ended: its parts were looked at when it began, and each page it asked
   * with a kept ETag is an observation of that page's estimate (changed since its last look, or
   * not), as a page poll's is.
   */
  passed(result: ProjectSyncResult): void {
    this.waitingForPass.delete(result.projectId);
    if (result.ok && result.startedAt !== undefined) {
      this.passBegan.set(result.projectId, result.startedAt);
    }
    // A page whose poll asked for this pass was observed by that poll, which kept no ETag.
    const asked = this.askedPass.get(result.projectId);
    this.askedPass.delete(result.projectId);
    const looks = (result.pageLooks ?? []).filter((look) => look.page !== asked);
    if (looks.length === 0) return;
    const observe = () => {
      for (const look of looks) this.observe(itemKey(result.projectId, look.page), look.changed);
    };
    // After the kept estimates are in, so that the load does not overwrite them.
    if (this.loaded) observe();
    else void this.load().then(observe);
  }

  /** The wall clock stepped back (`stepMs` < 0): the times polled and planned move back with it. */
  wallStepped(stepMs: number): void {
    for (const [key, at] of this.lastPolled) this.lastPolled.set(key, at + stepMs);
    for (const [key, at] of this.firstPlanned) this.firstPlanned.set(key, at + stepMs);
    for (const [id, at] of this.passBegan) this.passBegan.set(id, at + stepMs);
    for (const failing of this.failing.values()) failing.retryAt += stepMs;
    for (const [id, at] of this.waitingForPass) this.waitingForPass.set(id, at + stepMs);
  }

  /**
   * Polls the item `key` now. A failure is logged, and the item, not read, keeps its last look;
   * its project's items are tried again after a backoff (seconds, doubling to 10 minutes), not
   * one interval on: the bound counts from the last read.
   */
  async poll(key: string, signal: AbortSignal): Promise<void> {
    const item = this.items.get(key);
    if (item === undefined) return;
    const { clock, logger } = this.options;
    await this.load();
    const looked = this.lastPolled.get(key);
    const began = clock.now();
    this.lastPolled.set(key, began);
    try {
      if (item.page === undefined) {
        const result = await this.options.pollLists(item.projectId, signal);
        this.observe(key, result.changed);
      } else {
        const result = await this.options.pollPage(item.projectId, item.page, signal);
        if (result.outcome.kind === 'busy' && result.requests === 0) {
          // Not a look: the project's pass in flight reads the page, and its end is one.
          if (looked === undefined) this.lastPolled.delete(key);
          else this.lastPolled.set(key, looked);
          this.waitingForPass.set(item.projectId, clock.now() + PASS_WAIT_MS);
          return;
        }
        this.observe(key, !result.notModified);
        if (result.outcome.kind === 'escalate') {
          logger.debug(
            { projectId: item.projectId, page: item.page, reason: result.outcome.reason },
            'a page poll asks for a full pass',
          );
          const cost = this.costs.get(item.projectId) ?? 0;
          this.escalations.push({ at: this.options.clock.now(), cost });
          this.askedPass.set(item.projectId, item.page);
          this.escalated += 1;
          await this.options.escalate(item.projectId, signal);
        }
      }
      this.failing.delete(item.projectId);
    } catch (error) {
      if (signal.aborted) return;
      const failures = (this.failing.get(item.projectId)?.failures ?? 0) + 1;
      // A line for the first failure in a row, not one per attempt.
      const level = failures === 1 ? 'warn' : 'debug';
      logger[level](
        { projectId: item.projectId, key, failures, err: errorLine(error) },
        'page poll failed',
      );
      // Moved as the wall clock stepped meanwhile (`wallStepped` moved the time it began).
      const stepMs = (this.lastPolled.get(key) ?? began) - began;
      if (looked === undefined) this.lastPolled.delete(key);
      else this.lastPolled.set(key, looked + stepMs);
      const delayMs = Math.max(FAILED_PASS_MIN_RETRY_MS, backoffDelayMs(failures, this.backoff));
      this.failing.set(item.projectId, { failures, retryAt: clock.now() + delayMs });
    }
    await this.options.afterRequests();
    await this.save();
  }

  private observe(key: string, changed: boolean): void {
    this.rates.observePoll(key, changed);
    this.dirty.add(key);
  }

  /** Forgets the estimates of the pages and side lists of projects no longer mirrored. */
  async forget(projectIds: readonly string[]): Promise<void> {
    if (projectIds.length === 0) return;
    const gone = new Set(projectIds);
    const ofGone = (key: string) => gone.has(projectOf(key));
    const keys = this.rates
      .kept()
      .map((row) => row.key)
      .filter(ofGone);
    this.rates.retain((key) => !ofGone(key));
    for (const key of keys) this.dirty.delete(key);
    for (const [key, item] of this.items) if (gone.has(item.projectId)) this.items.delete(key);
    for (const projectId of this.failing.keys())
      if (gone.has(projectId)) this.failing.delete(projectId);
    for (const projectId of this.waitingForPass.keys())
      if (gone.has(projectId)) this.waitingForPass.delete(projectId);
    if (keys.length === 0) return;
    try {
      await this.options.state.deleteChangeRates(keys);
    } catch (error) {
      this.options.logger.warn({ err: errorLine(error) }, 'could not forget the page estimates');
    }
  }

  /** Keeps the estimates observed since the last save; a failure is tried again later. */
  async save(): Promise<void> {
    if (this.dirty.size === 0) return;
    const rows = [...this.dirty].flatMap((key) => this.rates.keptOne(key) ?? []);
    this.dirty.clear();
    try {
      await this.options.state.saveChangeRates(
        rows,
        new Date(this.options.clock.now()).toISOString(),
      );
    } catch (error) {
      for (const row of rows) this.dirty.add(row.key);
      this.options.logger.warn({ err: errorLine(error) }, 'could not keep the page estimates');
    }
  }
}

/**
 * The longest interval of an item's polls: within the bound, less a slack for polls queued
 * behind others: twice the time all items take at one request a second (they fall due together
 * after a reconcile), at least `POLL_SLACK_MS`, at most a tenth of the bound.
 */
function itemBound(bound: number, itemsCost: number): number {
  const slack = Math.min(bound / 10, Math.max(POLL_SLACK_MS, 2 * itemsCost * 1000));
  return Math.max(MIN_ITEM_INTERVAL_MS, bound - slack);
}
