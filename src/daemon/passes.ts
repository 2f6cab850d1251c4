/**
 * The daemon's passes: one project's (a poll, a refresh, a take-over) or a reconcile of every
 * project, each outcome recorded once in the poll schedule, the change rates and the freshness.
 */
import type { Logger } from 'pino';
import { DISK_FULL } from '../domain/index.js';
import type { Mirror, ProjectSyncResult } from '../mirror/index.js';
import type { DiskWatch } from './disk-watch.js';
import type { FailureLog } from './failure-log.js';
import type { Freshness } from './freshness.js';
import type { ListingRetry } from './listing-retry.js';
import type { PagePolls } from './page-polls.js';
import type { PlanFacts } from './plan-facts.js';
import type { MissedWork } from './missed.js';
import type { PlanLedger } from './planner.js';
import type { PollRates } from './poll-rates.js';
import type { PollScheduler } from './poll-scheduler.js';
import type { ObservedStaleness } from './staleness.js';

/** What a pass's outcome is recorded in. */
export interface PassesOptions {
  mirror: Pick<Mirror, 'syncProject' | 'syncAll'>;
  logger: Logger;
  /** Mirror only these projects (default: every project the tokens list). */
  projects: readonly string[] | undefined;
  scheduler: Pick<PollScheduler, 'recordResult' | 'mark' | 'forget'>;
  rates: Pick<PollRates, 'passed' | 'forget'>;
  /** The single-page polls, whose items a pass looked at when it began. */
  parts: Pick<PagePolls, 'passed' | 'forget'>;
  /** Times the changes a pass wrote (`/metrics`). */
  staleness: Pick<ObservedStaleness, 'passed'>;
  freshness: Pick<Freshness, 'passed'>;
  disk: Pick<DiskWatch, 'wrote'>;
  /** Logs a failing project per cause, not per attempt. */
  failures: Pick<FailureLog, 'failed' | 'passed' | 'forget'>;
  missed: Pick<MissedWork, 'diskRefused'>;
  facts: Pick<PlanFacts, 'refresh' | 'ids'>;
  /** Runs the reconcile again after a failed listing. */
  listingRetry: Pick<ListingRetry, 'failed' | 'succeeded'>;
  ledger: Pick<PlanLedger, 'afterRequests'>;
}

/** Runs passes and records each outcome once; see the module comment. */
export class Passes {
  private readonly recorded = new WeakSet<ProjectSyncResult>();

  constructor(private readonly options: PassesOptions) {}

  /**
   * One pass; its outcome goes to the poll schedule. True when it passed. A refresh, or a poll
   * made due by something learned (`fresh`), never joins a pass begun before it.
   */
  async syncProject(
    projectId: string,
    signal: AbortSignal,
    purpose: 'poll' | 'refresh',
    fresh = purpose === 'refresh',
  ): Promise<boolean | undefined> {
    const { mirror, scheduler } = this.options;
    const result = await mirror.syncProject(projectId, { signal, purpose, fresh });
    if (!result.ok) this.options.failures.failed(result);
    this.notePassed(result);
    const first = this.firstToRecord(result);
    if (purpose === 'refresh' && first && !signal.aborted) {
      scheduler.recordResult(projectId, result.ok);
    }
    await this.options.facts.refresh();
    await this.options.ledger.afterRequests();
    // A pass skipped because another daemon holds the project passed nothing.
    return first && result.errorCode !== 'held_elsewhere' ? result.ok : undefined;
  }

  /**
   * A reconcile of every project: one listing, then a pass over each. Each project's outcome
   * goes to the poll schedule (a failed one is retried with backoff, though the mirror does not
   * hold it yet); a failed listing counts as a failure of every project, and the reconcile is
   * retried with backoff. Returns the projects that failed.
   */
  async reconcile(signal: AbortSignal): Promise<string[]> {
    const { logger, scheduler, facts, projects } = this.options;
    const mark = scheduler.mark();
    const report = await this.options.mirror.syncAll(projects, { signal, purpose: 'poll' });
    const failed: string[] = [];
    if (report.error) {
      logger.warn({ err: report.error }, 'reconcile failed');
      if (!signal.aborted) failed.push(...(projects ?? facts.ids()));
      if (!signal.aborted) this.options.listingRetry.failed(signal);
    } else {
      this.options.listingRetry.succeeded();
    }
    for (const result of report.projects) {
      this.notePassed(result);
      if (!result.ok && result.errorCode !== 'not_attempted' && !signal.aborted) {
        this.options.failures.failed(result);
      }
      if (!this.firstToRecord(result)) continue;
      if (!result.ok && result.errorCode !== 'not_attempted') failed.push(result.projectId);
      else if (result.ok) scheduler.recordResult(result.projectId, true);
    }
    if (!signal.aborted) for (const id of failed) scheduler.recordResult(id, false);
    await this.options.rates.forget(report.removedProjects);
    await this.options.parts.forget(report.removedProjects);
    this.options.failures.forget(report.removedProjects);
    await facts.refresh();
    // A project neither listed nor mirrored (its first pass failed, then it went) is not tried
    // again. Only a complete listing says so (a token that failed to list may still see it).
    if (report.listed !== undefined && report.listingError === undefined) {
      const kept = new Set([...report.listed, ...facts.ids()]);
      scheduler.forget((projectId) => kept.has(projectId), mark);
    }
    await this.options.ledger.afterRequests();
    return failed;
  }

  /**
   * True for the first caller of a pass: a poll, a refresh and a reconcile that joined one pass
   * share its result, which the poll schedule must count once (a failure twice would double the
   * backoff).
   */
  private firstToRecord(result: ProjectSyncResult): boolean {
    if (this.recorded.has(result)) return false;
    this.recorded.add(result);
    return true;
  }

  /** A pass that passed after the realtime channel connected makes its project current. */
  private notePassed(result: ProjectSyncResult): void {
    this.options.rates.passed(result);
    this.options.parts.passed(result);
    this.options.staleness.passed(result);
    if (result.ok && result.startedAt !== undefined) {
      this.options.freshness.passed(result.projectId, result.startedAt);
    }
    if (result.ok) {
      this.options.disk.wrote();
      this.options.failures.passed(result.projectId);
    }
    // Tried again within a minute, whatever the failed-pass backoff has grown to.
    else if (result.errorCode === DISK_FULL) {
      this.options.missed.diskRefused([result.projectId], result.error);
    }
  }
}
