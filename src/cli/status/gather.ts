/**
 * What `projmirror status` shows, read from the mirror alone: each project's freshness and
 * backfill, the quota as last learned and when it runs out at today's rate, the daemon's plan,
 * and the outbox.
 */
import type { BudgetSnapshot } from '../../budget/index.js';
import { nextReset } from '../../budget/index.js';
import {
  budgetKey,
  STATE_KEYS,
  type DaemonRow,
  type MirrorSpace,
  type OutboxSummary,
  type StatusPort,
} from '../../store/port.js';
import type { StartupState } from '../../daemon/startup.js';
import type { RoutingState, TokenScope } from '../../tokens/index.js';

/** One project's line. */
export interface ProjectStatus {
  id: string;
  name: string;
  readOnlyReason: string | null;
  tasks: number;
  backfill: string;
  pagesRead: number;
  totalCount: number | null;
  lastPassAt: string | null;
  /** Seconds since the last consistent pass, or null if none yet. */
  stalenessSeconds: number | null;
  lastChangeAt: string | null;
  lastError: string | null;
  /** When the daemon plans to poll it next, if a daemon has run. */
  nextPollAt: string | null;
  /** Its estimated changes per hour, as the plan last used them (null: not planned by rate). */
  changesPerHour: number | null;
  /** The interval the plan polls it at. */
  pollIntervalSeconds: number | null;
  /** Its hot pages, when single pages are polled on their own: each page's poll interval. */
  hotPages?: { page: number; intervalSeconds: number }[];
  /** The mean wait of one of its changes until a poll sees it: half that interval. */
  expectedStalenessSeconds: number | null;
  /** The label of the token it is read through, as last saved. */
  token: string | null;
  /** On a PostgreSQL mirror shared by daemons: the daemon holding its lease (`host:pid`). */
  heldBy?: string | null;
}

/** A daemon sharing a PostgreSQL mirror, as `status` shows it: its row, and how lately heard. */
export type DaemonStatus = Omit<DaemonRow, 'id'> & {
  /** Seconds since its last heartbeat. */
  heartbeatAgeSeconds: number;
};

/** One token: what it reads and how its quota stands. */
export interface TokenStatus {
  label: string;
  /** As the configuration states it; `unknown` when it does not (the service does not say). */
  scope: TokenScope | 'unknown';
  /** True when the service refused it at the last try. */
  refused: boolean;
  /** The projects read through it. */
  projects: string[];
  quota: QuotaStatus;
  /** How often the plan polls its projects, if a daemon has run. */
  pollIntervalSeconds: number | null;
}

/** The quota as last learned, and its outlook. */
export interface QuotaStatus {
  limit: number | null;
  remaining: number | null;
  learnedAt: string | null;
  resetAt: string;
  /** Requests per hour spent today, from the quota used since the day began. */
  ratePerHour: number | null;
  /** When the quota runs out at that rate; null when it lasts until the reset. */
  exhaustedAt: string | null;
  pausedUntil: string | null;
}

/** The daemon's plan as it last saved it. */
export interface PlanStatus {
  computedAt: string;
  intervalSeconds: number;
  plannedPollRequests: number;
  reserve: number;
  foreignRequests: number;
  stalenessBoundSeconds: number;
  /** The bound no project's interval passes (`--max-staleness`), when the plan allocates by rate. */
  maxStalenessSeconds: number | null;
  /** Whether the budget affords that bound (false: every project is polled alike, more slowly). */
  boundHeld: boolean | null;
  /** The mean wait of a change until a poll sees it, over the projects, weighted by their rates. */
  expectedStalenessSeconds: number | null;
}

/** Everything `status` shows, as `--json` prints it. */
export interface StatusReport {
  now: string;
  projects: ProjectStatus[];
  /** Each token, as the last run saved them. */
  tokens: TokenStatus[];
  /** The quota of the only token; with several, their sums (and the earliest reset and run-out). */
  quota: QuotaStatus;
  plan: PlanStatus | null;
  /** The last start of `run`: when its start-up reconcile began and finished. */
  startup: StartupState | null;
  outbox: OutboxSummary;
  /** On a PostgreSQL mirror: every daemon registered, with what it holds. */
  daemons?: DaemonStatus[];
  /** The space the mirror takes: its size, its free pages and its write-ahead log (none in memory). */
  space?: MirrorSpace;
}

interface SavedPlan {
  computedAt: number;
  intervalMs: number;
  plannedPollRequests: number;
  reserve: number;
  foreignRequests: number;
  stalenessBoundMs: number;
  maxStalenessMs?: number;
  boundHeld?: boolean;
  expectedStalenessMs?: number;
  projects?: Record<
    string,
    {
      intervalMs: number;
      expectedStalenessMs: number;
      ratePerHour?: number;
      hotPages?: { page: number; intervalMs: number }[];
    }
  >;
  next?: Record<string, number>;
  tokens?: { token: string; intervalMs: number }[];
}

const iso = (ms: number | undefined | null) => (ms == null ? null : new Date(ms).toISOString());
const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms / 1000));

/** Reads the status of the mirror `store` holds at `now`. */
export async function gatherStatus(
  store: { status: StatusPort },
  now: number,
): Promise<StatusReport> {
  const facts = await store.status.facts(now);
  const state = { get: async <T>(key: string) => facts.state[key] as T | undefined };
  const plan = await state.get<SavedPlan>(STATE_KEYS.plan);
  const routing = await state.get<RoutingState>(STATE_KEYS.routing);
  const tokens = await tokenStatuses(state, routing, plan, now);
  const states = facts.sync;
  const sync = new Map(states.map((s) => [s.projectId, s]));
  const rows = facts.projects;
  const daemons = facts.daemons === undefined ? undefined : daemonStatuses(facts.daemons, now);
  const space = facts.space;
  const holders = new Map(
    (daemons ?? []).flatMap((d) => d.projects.map((id) => [id, `${d.host}:${d.pid}`] as const)),
  );
  const projects = rows.map((row): ProjectStatus => {
    const s = sync.get(row.id);
    const lastPass = s?.lastPassAt ? Date.parse(s.lastPassAt) : undefined;
    return {
      ...row,
      backfill: s?.backfill ?? 'pending',
      pagesRead: s?.pagesRead ?? 0,
      totalCount: s?.totalCount ?? null,
      lastPassAt: s?.lastPassAt ?? null,
      stalenessSeconds: lastPass === undefined ? null : Math.round((now - lastPass) / 1000),
      lastChangeAt: s?.lastChangeAt ?? null,
      lastError: s?.lastError ?? null,
      nextPollAt: iso(plan?.next?.[row.id]),
      ...projectPlan(plan?.projects?.[row.id]),
      token: routing?.projects[row.id] ?? null,
      ...(daemons === undefined ? {} : { heldBy: holders.get(row.id) ?? null }),
    };
  });
  return {
    now: new Date(now).toISOString(),
    projects,
    tokens,
    quota:
      tokens.length === 0
        ? quotaStatus(await state.get<BudgetSnapshot>(STATE_KEYS.budget), now)
        : combinedQuota(tokens.map((token) => token.quota)),
    plan: plan
      ? {
          computedAt: new Date(plan.computedAt).toISOString(),
          intervalSeconds: Math.round(plan.intervalMs / 1000),
          plannedPollRequests: plan.plannedPollRequests,
          reserve: plan.reserve,
          foreignRequests: plan.foreignRequests,
          stalenessBoundSeconds: Math.round(plan.stalenessBoundMs / 1000),
          maxStalenessSeconds: seconds(plan.maxStalenessMs),
          boundHeld: plan.boundHeld ?? null,
          expectedStalenessSeconds: seconds(plan.expectedStalenessMs),
        }
      : null,
    startup: (await state.get<StartupState>(STATE_KEYS.startup)) ?? null,
    outbox: facts.outbox,
    ...(daemons === undefined ? {} : { daemons }),
    ...(space === undefined ? {} : { space }),
  };
}

/** A project's place in the saved plan, as `status` shows it. */
function projectPlan(
  saved: NonNullable<SavedPlan['projects']>[string] | undefined,
): Pick<
  ProjectStatus,
  'changesPerHour' | 'pollIntervalSeconds' | 'expectedStalenessSeconds' | 'hotPages'
> {
  return {
    ...(saved?.hotPages === undefined
      ? {}
      : {
          hotPages: saved.hotPages.map(({ page, intervalMs }) => ({
            page,
            intervalSeconds: Math.round(intervalMs / 1000),
          })),
        }),
    changesPerHour:
      saved?.ratePerHour === undefined ? null : Math.round(saved.ratePerHour * 100) / 100,
    pollIntervalSeconds: seconds(saved?.intervalMs),
    expectedStalenessSeconds: seconds(saved?.expectedStalenessMs),
  };
}

/** The daemons registered in a shared PostgreSQL mirror. */
function daemonStatuses(rows: readonly DaemonRow[], now: number): DaemonStatus[] {
  return rows.map(({ id: _id, ...row }) => ({
    ...row,
    heartbeatAgeSeconds: Math.max(0, Math.round((now - Date.parse(row.heartbeatAt)) / 1000)),
  }));
}

/** Each token of the saved routing, with its quota from its own saved budget. */
async function tokenStatuses(
  state: { get<T>(key: string): Promise<T | undefined> },
  routing: RoutingState | undefined,
  plan: SavedPlan | undefined,
  now: number,
): Promise<TokenStatus[]> {
  const assignments = Object.entries(routing?.projects ?? {});
  const interval = (label: string) => plan?.tokens?.find((t) => t.token === label)?.intervalMs;
  const statuses: TokenStatus[] = [];
  for (const token of routing?.tokens ?? []) {
    const budget = await state.get<BudgetSnapshot>(budgetKey(token.label));
    statuses.push({
      label: token.label,
      scope: token.scope ?? 'unknown',
      refused: token.refused,
      projects: assignments.filter(([, label]) => label === token.label).map(([id]) => id),
      quota: quotaStatus(budget, now),
      pollIntervalSeconds: seconds(interval(token.label)),
    });
  }
  return statuses;
}

/** Several tokens' quotas as one: sums of what is known, the earliest reset and run-out. */
export function combinedQuota(quotas: readonly QuotaStatus[]): QuotaStatus {
  if (quotas.length === 1) return quotas[0] as QuotaStatus;
  const sum = (pick: (quota: QuotaStatus) => number | null) => {
    const known = quotas.map(pick).filter((value): value is number => value !== null);
    return known.length === 0 ? null : known.reduce((total, value) => total + value, 0);
  };
  const earliest = (pick: (quota: QuotaStatus) => string | null) =>
    quotas
      .map(pick)
      .filter((value): value is string => value !== null)
      .sort()[0] ?? null;
  const latest = quotas
    .map((quota) => quota.learnedAt)
    .filter((at) => at !== null)
    .sort();
  return {
    limit: sum((quota) => quota.limit),
    remaining: sum((quota) => quota.remaining),
    learnedAt: latest[latest.length - 1] ?? null,
    resetAt: earliest((quota) => quota.resetAt) ?? new Date(0).toISOString(),
    ratePerHour: sum((quota) => quota.ratePerHour),
    exhaustedAt: earliest((quota) => quota.exhaustedAt),
    pausedUntil: earliest((quota) => quota.pausedUntil),
  };
}

/** The quota outlook: today's average rate, and whether the rest lasts until the reset. */
export function quotaStatus(budget: BudgetSnapshot | undefined, now: number): QuotaStatus {
  const resetAt =
    budget?.quotaResetAt && budget.quotaResetAt > now ? budget.quotaResetAt : nextReset(now);
  const limit = budget?.quotaLimit ?? null;
  const learnedAt = budget?.observedAt;
  // A figure learned before the last reset says nothing about today.
  const current = learnedAt !== undefined && nextReset(learnedAt) >= resetAt;
  const remaining = current ? (budget?.quotaRemaining ?? null) : limit;
  let ratePerHour: number | null = null;
  let exhaustedAt: number | null = null;
  if (limit !== null && remaining !== null && current && learnedAt !== undefined) {
    const dayStart = resetAt - 86_400_000;
    const hours = Math.max(1 / 60, (learnedAt - dayStart) / 3_600_000);
    ratePerHour = Math.round(((limit - remaining) / hours) * 10) / 10;
    if (ratePerHour > 0) {
      const runsOut = learnedAt + (remaining / ratePerHour) * 3_600_000;
      exhaustedAt = runsOut < resetAt ? runsOut : null;
    }
  }
  return {
    limit,
    remaining,
    learnedAt: iso(learnedAt),
    resetAt: new Date(resetAt).toISOString(),
    ratePerHour,
    exhaustedAt: iso(exhaustedAt),
    pausedUntil: budget?.pausedUntil && budget.pausedUntil > now ? iso(budget.pausedUntil) : null,
  };
}
