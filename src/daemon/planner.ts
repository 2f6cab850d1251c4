/**
 * The plan in force, recomputed from what the governors and the mirror know now: each token's
 * quota spread over the projects it reads; and its record for `status` after each pass.
 */
import type { DiskWatch } from './disk-watch.js';
import type { Logger } from 'pino';
import { ForeignUseEstimator, type DailyPlan, type PlanInput } from '../budget/index.js';
import { errorLine, type Clock } from '../domain/index.js';
import { isoTime } from '../store/database.js';
import { STATE_KEYS } from '../store/daemon-state.js';
import type { TokenView } from '../tokens/index.js';
import type { PagedProjectPlan } from './page-polls.js';
import type { PlanFacts } from './plan-facts.js';
import type { PollRates } from './poll-rates.js';
import type { PollScheduler } from './poll-scheduler.js';
import type { StateNotes } from './state-notes.js';
import { planForTokens } from './token-plan.js';

/** The plan's settings (`run`'s options), as given. */
export type PlanSettings = Partial<
  Pick<PlanInput, 'reserveShare' | 'minPollIntervalMs' | 'reconcileIntervalMs' | 'maxStalenessMs'>
>;

/** What the plan is computed from. */
export interface PlannerOptions {
  clock: Clock;
  /** Every token: its budget and the projects it reads. */
  tokens: () => TokenView[];
  facts: Pick<PlanFacts, 'all' | 'ids'>;
  rates: Pick<PollRates, 'pooled' | 'pooledUnannounced'>;
  /** Whether this daemon polls a project (asked for, and held). */
  polls: (projectId: string) => boolean;
  realtimeConnected: () => boolean;
  settings: PlanSettings;
  /** False polls every project alike (benchmark 10's baseline). */
  pollByRate: boolean;
  /** Reshapes the plan (single-page polls, `page-polls.ts`); the plan as computed by default. */
  shape?: (plan: DailyPlan) => DailyPlan;
}

/** Computes the plan; see the module comment. */
export class Planner {
  /** Others' use of each token, by label. */
  private readonly foreign = new Map<string, ForeignUseEstimator>();

  constructor(private readonly options: PlannerOptions) {}

  /** The plan in force now. */
  plan(): DailyPlan {
    const { clock, facts, rates } = this.options;
    const plan = planForTokens({
      now: clock.now(),
      tokens: this.options.tokens(),
      projects: facts
        .all()
        .filter((project) => this.options.polls(project.id))
        .map(({ id, taskCount }) => ({ id, taskCount })),
      foreignRatePerHour: (label) => this.foreignUse(label).ratePerHour(),
      realtimeConnected: this.options.realtimeConnected(),
      settings: this.options.settings,
      ...(this.options.pollByRate
        ? {
            rates: rates.pooled(facts.ids()),
            unannouncedRates: rates.pooledUnannounced(facts.ids()),
          }
        : {}),
    });
    return this.options.shape?.(plan) ?? plan;
  }

  /** Feeds the estimates of others' use of each token with what its budget says now. */
  observeForeignUse(): void {
    for (const { label, budget } of this.options.tokens()) {
      if (budget.quotaRemaining === undefined) continue;
      this.foreignUse(label).observe(
        this.options.clock.now(),
        budget.quotaRemaining,
        budget.sentTotal,
      );
    }
  }

  /** The estimate of others' use of the token `label`. */
  private foreignUse(label: string): ForeignUseEstimator {
    let estimator = this.foreign.get(label);
    if (estimator === undefined) {
      estimator = new ForeignUseEstimator();
      this.foreign.set(label, estimator);
    }
    return estimator;
  }
}

/** What `PlanLedger` writes after requests. */
export interface PlanLedgerOptions {
  clock: Clock;
  logger: Logger;
  planner: Pick<Planner, 'plan' | 'observeForeignUse'>;
  scheduler: Pick<PollScheduler, 'nextPolls'>;
  notes: Pick<StateNotes, 'save'>;
  /** Saves what the governors learned and the routing. */
  persistBudget: () => Promise<void>;
  /** A full disk is the disk watch's to tell. */
  disk: Pick<DiskWatch, 'absorbs'>;
  /** The change rates, kept as they are learned: a crash loses none of them. */
  rates: Pick<PollRates, 'save'>;
}

/** After requests: feeds the estimates of others' use and saves budgets and plan for `status`. */
export class PlanLedger {
  constructor(private readonly options: PlanLedgerOptions) {}

  /** Records what the requests just made taught. */
  async afterRequests(): Promise<void> {
    const { clock, logger, planner } = this.options;
    await this.options.rates.save();
    planner.observeForeignUse();
    await this.options.persistBudget().catch((error: unknown) => {
      if (this.options.disk.absorbs(error)) return;
      logger.warn({ err: errorLine(error) }, 'could not save the budget');
    });
    try {
      const plan = planner.plan();
      const next = Object.fromEntries(this.options.scheduler.nextPolls(plan));
      await this.options.notes.save(
        STATE_KEYS.plan,
        { ...planSummary(plan), next },
        isoTime(clock.now()),
      );
    } catch (error) {
      if (this.options.disk.absorbs(error)) return;
      logger.warn({ err: errorLine(error) }, 'could not save the plan');
    }
  }
}

/** The plan as `status` shows it. */
export function planSummary(plan: DailyPlan) {
  return {
    computedAt: plan.computedAt,
    resetAt: plan.resetAt,
    intervalMs: plan.intervalMs,
    plannedPollRequests: plan.plannedPollRequests,
    reserve: plan.reserve,
    foreignRequests: plan.foreignRequests,
    stalenessBoundMs: plan.stalenessBoundMs,
    ...(plan.maxStalenessMs === undefined ? {} : { maxStalenessMs: plan.maxStalenessMs }),
    ...(plan.boundHeld === undefined ? {} : { boundHeld: plan.boundHeld }),
    ...(plan.expectedStalenessMs === undefined
      ? {}
      : { expectedStalenessMs: plan.expectedStalenessMs }),
    tokens: plan.tokens ?? [],
    /** Each project's rate, interval and expected staleness, for `status` and `/metrics`. */
    projects: Object.fromEntries(
      plan.projects.map((p) => [
        p.projectId,
        {
          intervalMs: p.intervalMs,
          expectedStalenessMs: p.expectedStalenessMs,
          ...(p.ratePerHour === undefined ? {} : { ratePerHour: p.ratePerHour }),
          ...hotPagesOf(p),
        },
      ]),
    ),
  };
}

/** A project's hot pages and side-list interval, when the plan polls its pages on their own. */
function hotPagesOf(p: PagedProjectPlan) {
  return {
    ...(p.hotPages === undefined ? {} : { hotPages: p.hotPages }),
    ...(p.listsIntervalMs === undefined ? {} : { listsIntervalMs: p.listsIntervalMs }),
  };
}
