/**
 * The daemon's plan with one or more tokens: each token's quota, as its governor knows it, spread
 * over the projects it reads (a project no token reads yet counts on the first token) by their
 * change rates, joined into one plan (`planTokens`).
 */
import {
  DEFAULT_QUOTA_LIMIT,
  nextReset,
  planTokens,
  type DailyPlan,
  type PlanInput,
  type TokenPlanInput,
} from '../budget/index.js';
import type { TokenView } from '../tokens/index.js';

/** What the plan is made from. */
export interface TokenPlanSources {
  now: number;
  tokens: readonly TokenView[];
  /** The mirrored projects with their task counts. */
  projects: { id: string; taskCount: number }[];
  /** Others' use of a token, by label. */
  foreignRatePerHour: (label: string) => number;
  realtimeConnected: boolean;
  settings: Pick<
    PlanInput,
    'reserveShare' | 'minPollIntervalMs' | 'reconcileIntervalMs' | 'maxStalenessMs'
  >;
  /** Each project's estimated change rate, per ms: the polls are allocated by it. */
  rates?: ReadonlyMap<string, number>;
  /** Each project's rate of changes no event announced, per ms: the reconciles are allocated by it. */
  unannouncedRates?: ReadonlyMap<string, number>;
}

/** The plan over every token; see the module comment. */
export function planForTokens(sources: TokenPlanSources): DailyPlan {
  const { now, tokens } = sources;
  const owner = new Map(tokens.flatMap((token) => token.projects.map((id) => [id, token.label])));
  const first = tokens[0]?.label;
  return planTokens(
    tokens.map((token): TokenPlanInput => {
      const quotaLimit = token.budget.quotaLimit ?? DEFAULT_QUOTA_LIMIT;
      return {
        token: token.label,
        now,
        resetAt: token.budget.quotaResetAt ?? nextReset(now),
        quotaLimit,
        quotaRemaining: token.budget.quotaRemaining ?? quotaLimit,
        foreignRatePerHour: sources.foreignRatePerHour(token.label),
        realtimeConnected: sources.realtimeConnected,
        projects: sources.projects.filter((p) => (owner.get(p.id) ?? first) === token.label),
        ...sources.settings,
        ...(sources.rates === undefined ? {} : { rates: sources.rates }),
        ...(sources.unannouncedRates === undefined
          ? {}
          : { unannouncedRates: sources.unannouncedRates }),
      };
    }),
  );
}
