/**
 * Which token reads each project. Every token's listing says which projects it sees; each project
 * is assigned one of them: the one with the most budget left for one more project (its quota
 * left divided by the projects it already serves, plus one), and it keeps that token while it
 * works. A token the service refuses, one that lost the project, or one whose budget would hold
 * the call back past `FAILOVER_WAIT_MS` hands the project to the next best. Pure bookkeeping:
 * no I/O, no clock.
 */

/**
 * A token whose next request would wait longer than this (a spent quota, the reserve kept for
 * pushes, a pause after a 429) is passed over for one that would not; a burst window never
 * waits this long, so it never moves a project.
 */
export const FAILOVER_WAIT_MS = 2 * 60 * 1000;

/** What the routing needs to know of a token's budget now. */
export interface TokenBudget {
  /** Requests left today (the quota assumed until the service tells it). */
  left: number;
  /** How long a request would wait now. */
  waitMs: number;
}

/** The routing as saved across restarts: each project's token. */
export interface SavedRouting {
  projects: Record<string, string>;
}

/** Why a token stopped reading a project. */
export type HandOver = 'refused' | 'hidden' | 'exhausted';

/** The projects each token sees and the token each project is read through. */
export class ProjectRouting {
  /** Project → the labels whose last listing (or a successful call) showed it. */
  private readonly visible = new Map<string, Set<string>>();
  private readonly assigned = new Map<string, string>();
  private readonly refused = new Set<string>();

  /** `labels` in configuration order (ties go to the earlier). */
  constructor(readonly labels: readonly string[]) {}

  /** Takes a token's listing: it sees exactly `projectIds` now. */
  listed(label: string, projectIds: readonly string[]): void {
    const seen = new Set(projectIds);
    for (const [projectId, labels] of this.visible) {
      if (!seen.has(projectId)) this.hide(projectId, label, labels);
    }
    for (const projectId of seen) this.show(projectId, label);
    this.refused.delete(label);
  }

  /** Notes a call of `label` that the service answered: it works, and sees `projectId`. */
  succeeded(label: string, projectId: string | undefined): void {
    this.refused.delete(label);
    if (projectId === undefined) return;
    this.show(projectId, label);
    if (!this.assigned.has(projectId)) this.assigned.set(projectId, label);
  }

  /** Notes why `label` stopped reading `projectId`, so the next choice passes it over. */
  handOver(label: string, projectId: string | undefined, why: HandOver): void {
    if (why === 'refused') this.refused.add(label);
    if (why === 'hidden' && projectId !== undefined) {
      const labels = this.visible.get(projectId);
      if (labels !== undefined) this.hide(projectId, label, labels);
    }
    if (projectId !== undefined && this.assigned.get(projectId) === label) {
      this.assigned.delete(projectId);
    }
  }

  /** True while the service refuses the token (401, or 403 to its listing). */
  isRefused(label: string): boolean {
    return this.refused.has(label);
  }

  /** True when `label`'s listing (or a call) showed the project. */
  sees(label: string, projectId: string): boolean {
    return this.visible.get(projectId)?.has(label) ?? false;
  }

  /** The labels known to see the project. */
  seenBy(projectId: string): string[] {
    return this.labels.filter((label) => this.sees(label, projectId));
  }

  /** The token the project is read through, if one is assigned. */
  tokenOf(projectId: string): string | undefined {
    return this.assigned.get(projectId);
  }

  /** The projects `label` reads. */
  served(label: string): string[] {
    return [...this.assigned].filter(([, owner]) => owner === label).map(([id]) => id);
  }

  /** Every project and its token. */
  assignments(): Record<string, string> {
    return Object.fromEntries([...this.assigned].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Starts from a saved routing, keeping only tokens still configured. */
  restore(saved: SavedRouting | undefined): void {
    for (const [projectId, label] of Object.entries(saved?.projects ?? {})) {
      if (!this.labels.includes(label)) continue;
      this.show(projectId, label);
      this.assigned.set(projectId, label);
    }
  }

  /**
   * The token to call for `projectId` (or for a call of no project), skipping `tried`: the
   * assigned one while it works; else, among the tokens that see the project (every token, when
   * none is known to), the best by `budgets`. Undefined once every token was tried.
   */
  choose(
    projectId: string | undefined,
    budgets: ReadonlyMap<string, TokenBudget>,
    tried: ReadonlySet<string> = new Set(),
  ): string | undefined {
    const current = projectId === undefined ? undefined : this.assigned.get(projectId);
    if (current !== undefined && !tried.has(current) && this.works(current, budgets)) {
      return current;
    }
    const seeing = projectId === undefined ? [] : this.seenBy(projectId);
    // Tokens known not to see the project are never tried: each would spend a request on a refusal.
    const candidates = seeing.length === 0 ? this.labels : seeing;
    const pool = candidates.filter((label) => !tried.has(label));
    const best = this.rank(pool, budgets, projectId)[0];
    if (best !== undefined && projectId !== undefined) this.assigned.set(projectId, best);
    return best;
  }

  /** Assigns every project of a listing that has no working token yet, spreading them out. */
  assignAll(projectIds: readonly string[], budgets: ReadonlyMap<string, TokenBudget>): void {
    for (const projectId of projectIds) this.choose(projectId, budgets);
  }

  /** Tokens that work first, then those that wait least, then the most budget per project. */
  private rank(
    pool: readonly string[],
    budgets: ReadonlyMap<string, TokenBudget>,
    projectId: string | undefined,
  ): string[] {
    const key = (label: string) => {
      const budget = budgets.get(label) ?? { left: 0, waitMs: Number.POSITIVE_INFINITY };
      const others = this.served(label).filter((id) => id !== projectId).length;
      return {
        refused: this.refused.has(label) ? 1 : 0,
        waits: budget.waitMs > FAILOVER_WAIT_MS ? budget.waitMs : 0,
        perProject: budget.left / (others + 1),
        order: this.labels.indexOf(label),
      };
    };
    return pool
      .map((label) => ({ label, key: key(label) }))
      .sort(
        (a, b) =>
          a.key.refused - b.key.refused ||
          a.key.waits - b.key.waits ||
          b.key.perProject - a.key.perProject ||
          a.key.order - b.key.order,
      )
      .map(({ label }) => label);
  }

  private works(label: string, budgets: ReadonlyMap<string, TokenBudget>): boolean {
    const waitMs = budgets.get(label)?.waitMs ?? Number.POSITIVE_INFINITY;
    return !this.refused.has(label) && waitMs <= FAILOVER_WAIT_MS;
  }

  private show(projectId: string, label: string): void {
    const labels = this.visible.get(projectId);
    if (labels === undefined) this.visible.set(projectId, new Set([label]));
    else labels.add(label);
  }

  private hide(projectId: string, label: string, labels: Set<string>): void {
    labels.delete(label);
    if (labels.size === 0) this.visible.delete(projectId);
    if (this.assigned.get(projectId) === label) this.assigned.delete(projectId);
  }
}
