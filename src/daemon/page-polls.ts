/**
 * Polls that read what is due (issue 35 part 3): each task page of a project and its side lists
 * are items of their own, each with a change-rate estimate (`<project>#p<k>`, `<project>#lists`,
 * kept in `change_rates` beside the projects'), and the polling budget the daily plan gives a
 * project is split between full consistent passes, at its bound, and polls of single items.
 *
 * The objective. Item i (a page, cost 1 request; the side lists with get project, cost 4) changes
 * as a Poisson process of rate λ_i and is polled every 1/g_i. Its changes wait 1/(2 g_i) on average
 * until a poll sees them, so the expected staleness of a change summed over the day is
 * J = Σ_i λ_i / (2 g_i), to be minimized under the budget Σ_i c_i g_i ≤ R. Every project must also
 * be passed whole at least every `--max-staleness` (T): a single page cannot see a task created
 * and another deleted (X-Total-Count stays), nor is it allowed to delete. Those passes cost
 * F = Σ_p cost_p / T and come first; what is left of the plan's budget B (the plan's own
 * spend, Σ_p cost_p / interval_p) is R = B - F.
 *
 * The derivation. As in `src/budget/allocation.ts`, the Lagrange conditions of min J subject to
 * the budget give the square-root rule g_i = k · sqrt(λ_i / c_i), with the one k that spends R.
 * A full pass also looks at every item every T; the allocation ignores that overlap (it would
 * only lower the worth of polling cold items, which the rule already polls least) and an item
 * whose interval comes out at T or longer is left to the full passes alone. With no estimate yet,
 * a page starts from its project's rate shared over its pages (the prior weighs like an hour of
 * polls), so a project the plan found busy has its pages polled sooner from the start.
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
import { errorLine, type Clock } from '../domain/index.js';
import type { ListsPollResult, PagePollResult } from '../mirror/index.js';
import type { StatePort } from '../store/port.js';

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
 * How much sooner than the bound a project's full pass is planned, at most a tenth of the bound:
 * passes and page polls run one at a time, so a pass may wait behind others that fell due.
 */
export const PASS_SLACK_MS = 10 * 60_000;
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
}

/** The key of page `page` of a project, or of its side lists. */
export function itemKey(projectId: string, page: number | undefined): string {
  return page === undefined ? `${projectId}#lists` : `${projectId}#p${page}`;
}

/** True for a key of a page or side lists (not a project's, nor another estimate's). */
function isItemKey(key: string): boolean {
  return /#(p\d+|lists)$/.test(key);
}

/** Single-page and side-list polls: their estimates, their plan and their runs. */
export class PagePolls {
  private readonly options: PagePollsOptions;
  private readonly rates: ChangeRates;
  private items = new Map<string, PollItem>();
  private readonly lastPolled = new Map<string, number>();
  private readonly firstPlanned = new Map<string, number>();
  private readonly dirty = new Set<string>();
  /** The full passes page polls turned into, lately: when, and their projects' poll cost. */
  private escalations: { at: number; cost: number }[] = [];
  /** Each planned project's poll cost, from the last plan shaped. */
  private costs = new Map<string, number>();
  /** The kept estimates' load, begun with the first look at the schedule. */
  private loading: Promise<void> | undefined;

  constructor(options: PagePollsOptions) {
    this.options = options;
    this.rates = new ChangeRates(options.clock);
  }

  /** Adopts the kept estimates of pages and side lists; an unreadable mirror leaves the priors. */
  load(): Promise<void> {
    this.loading ??= this.read();
    return this.loading;
  }

  private async read(): Promise<void> {
    try {
      const rows = await this.options.state.changeRates();
      this.rates.load(rows.filter((row) => isItemKey(row.key)));
    } catch (error) {
      this.options.logger.warn({ err: errorLine(error) }, 'could not read the page estimates');
    }
  }

  /**
   * The plan with each passed project's full passes at its bound and the rest of its budget
   * spent on single pages and side lists (see the module comment); the plan unchanged when it
   * does not allocate by rate (realtime connected, or polling alike) or cannot hold its bound.
   */
  shape(plan: DailyPlan): DailyPlan {
    const bound = plan.maxStalenessMs;
    const allocated = plan.projects.some((p) => p.ratePerHour !== undefined);
    if (bound === undefined || plan.boundHeld !== true || !allocated) {
      this.items = new Map();
      return plan;
    }
    const facts = new Map(this.options.facts().map((fact) => [fact.id, fact]));
    const budget = plan.projects.reduce((sum, p) => sum + p.pollCost / p.intervalMs, 0);
    const passed = plan.projects.filter((p) => facts.get(p.projectId)?.lastPassAt !== undefined);
    const passedIds = new Set(passed.map((p) => p.projectId));
    const fullSpend = plan.projects.reduce(
      (sum, p) =>
        sum + p.pollCost / (passedIds.has(p.projectId) ? passInterval(bound) : p.intervalMs),
      0,
    );
    // The passes page polls turned into (tasks created or deleted) are paid from the same budget:
    // their recent rate is kept out of what the page polls may spend.
    const now = this.options.clock.now();
    this.escalations = this.escalations.filter((e) => e.at > now - ESCALATION_WINDOW_MS);
    const escalated = this.escalations.reduce((sum, e) => sum + e.cost, 0);
    this.costs = new Map(plan.projects.map((p) => [p.projectId, p.pollCost]));
    const left = budget - fullSpend - escalated / ESCALATION_WINDOW_MS;
    if (passed.length === 0 || !(left > 0)) {
      this.items = new Map();
      return plan;
    }
    const candidates = passed.flatMap((p) =>
      this.candidates(p, facts.get(p.projectId)?.taskCount ?? 0),
    );
    const allocation = allocate({
      items: candidates.map((c) => ({
        id: c.key,
        ratePerMs: c.ratePerMs,
        cost: c.page === undefined ? LISTS_POLL_COST : PAGE_POLL_COST,
      })),
      budgetPerMs: left,
      maxIntervalMs: Math.max(bound * 1000, MIN_ITEM_INTERVAL_MS),
      minIntervalMs: MIN_ITEM_INTERVAL_MS,
    });
    const items = new Map<string, PollItem>();
    candidates.forEach((candidate, i) => {
      const intervalMs = Math.max(MIN_ITEM_INTERVAL_MS, allocation.items[i]!.intervalMs);
      // Polled as often as the full passes or less: those alone see it.
      if (intervalMs < bound) items.set(candidate.key, { ...candidate, intervalMs });
    });
    this.items = items;
    const projects = plan.projects.map((p) => this.shaped(p, passedIds, bound, candidates));
    const longestPoll = Math.max(0, ...plan.projects.map((p) => p.pollCost));
    // A full pass is at most one bound apart, plus its own requests at one a second.
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

  /** A project's entry in the shaped plan: full passes at the bound, its hot pages listed. */
  private shaped(
    p: ProjectPlan,
    passed: ReadonlySet<string>,
    bound: number,
    candidates: readonly Omit<PollItem, 'intervalMs'>[],
  ): PagedProjectPlan {
    if (!passed.has(p.projectId)) return p;
    const own = candidates
      .filter((c) => c.projectId === p.projectId)
      .map((c) => this.items.get(c.key) ?? { ...c, intervalMs: bound });
    const pages = own.filter((item) => item.page !== undefined && item.intervalMs < bound);
    const hotPages = pages
      .sort((a, b) => a.intervalMs - b.intervalMs)
      .slice(0, HOT_PAGES_SHOWN)
      .map((item) => ({ page: item.page!, intervalMs: Math.round(item.intervalMs) }));
    const lists = own.find((item) => item.page === undefined && item.intervalMs < bound);
    // A change waits half the interval of what looks at it: its page's polls, else the passes.
    const rate = own.reduce((sum, item) => sum + item.ratePerMs, 0);
    const waits = own.reduce((sum, item) => sum + item.ratePerMs * (item.intervalMs / 2), 0);
    const passEvery = passInterval(bound);
    return {
      ...p,
      // The project's rate is its pages' and side lists' together.
      ratePerHour: rate * 3_600_000,
      intervalMs: passEvery,
      offsetMs: Math.min(p.offsetMs, passEvery),
      expectedStalenessMs: rate > 0 ? waits / rate : bound / 2,
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
    const now = this.options.clock.now();
    const passes = new Map(this.options.facts().map((fact) => [fact.id, lastPassAt(fact.id)]));
    let best: { key: string; at: number } | undefined;
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
      if (!this.lastPolled.has(item.key)) at = Math.max(at, this.firstPlanned.get(item.key)!);
      if (!Number.isFinite(at)) at = now;
      if (best === undefined || at < best.at) best = { key: item.key, at };
    }
    return best;
  }

  /** The wall clock stepped back (`stepMs` < 0): the times polled and planned move back with it. */
  wallStepped(stepMs: number): void {
    for (const [key, at] of this.lastPolled) this.lastPolled.set(key, at + stepMs);
    for (const [key, at] of this.firstPlanned) this.firstPlanned.set(key, at + stepMs);
  }

  /** Polls the item `key` now; a failure is logged (the item is tried again one interval on). */
  async poll(key: string, signal: AbortSignal): Promise<void> {
    const item = this.items.get(key);
    if (item === undefined) return;
    const { logger } = this.options;
    await this.load();
    this.lastPolled.set(key, this.options.clock.now());
    try {
      if (item.page === undefined) {
        const result = await this.options.pollLists(item.projectId, signal);
        this.observe(key, result.changed);
      } else {
        const result = await this.options.pollPage(item.projectId, item.page, signal);
        this.observe(key, !result.notModified);
        if (result.outcome.kind === 'escalate') {
          logger.info(
            { projectId: item.projectId, page: item.page, reason: result.outcome.reason },
            'a page poll asks for a full pass',
          );
          const cost = this.costs.get(item.projectId) ?? 0;
          this.escalations.push({ at: this.options.clock.now(), cost });
          await this.options.escalate(item.projectId, signal);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      logger.warn({ projectId: item.projectId, key, err: errorLine(error) }, 'page poll failed');
    }
    await this.options.afterRequests();
    await this.save();
  }

  private observe(key: string, changed: boolean): void {
    this.rates.observePoll(key, changed);
    this.dirty.add(key);
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

/** How often a project whose pages are polled on their own is passed whole: within its bound. */
function passInterval(bound: number): number {
  return bound - Math.min(PASS_SLACK_MS, bound / 10);
}
