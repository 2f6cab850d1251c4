/**
 * The pull engine: full passes over every project (`syncAll`) or one (`syncProject`). Every write
 * into the mirror, a pass's or anyone else's, goes through its `writer`; one instance per mirror
 * file, so that the writer knows which passes are in flight.
 */
import {
  BudgetExhaustedError,
  errorLine,
  IncompleteListingError,
  RateLimitedError,
  SOLE_OWNER,
  UsageError,
  type Project,
  type ProjectClaims,
} from '../domain/index.js';
import type { MirrorPort } from '../store/port.js';
import { ProjectPass, type PassDeps } from './pass.js';
import { pollLists, pollPage, type ListsPollResult, type PagePollResult } from './page-poll.js';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type MirrorOptions,
  type ProjectSyncResult,
  type SyncOptions,
  type SyncReport,
} from './types.js';

/** A pass's result, with the error that ended it (to tell whether the next projects may go on). */
interface PassOutcome {
  result: ProjectSyncResult;
  failure: unknown;
}

interface InFlight {
  pass: ProjectPass;
  done: Promise<PassOutcome>;
  /** The pass that follows it, for callers that asked for a fresh one meanwhile. */
  next?: Promise<PassOutcome>;
}

/** The mirror engine over one database connection and one remote. */
export class Mirror {
  private readonly deps: PassDeps;
  private readonly laneOf: (projectId: string) => string;
  private readonly claims: ProjectClaims;
  private readonly inFlight = new Map<string, InFlight>();

  constructor(options: MirrorOptions) {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new UsageError(`page size ${pageSize} is not an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    this.laneOf = options.laneOf ?? (() => '');
    this.claims = options.claims ?? SOLE_OWNER;
    this.deps = {
      mirror: options.store,
      remote: options.remote,
      clock: options.clock,
      logger: options.logger,
      pageSize,
      onProgress: options.onProgress,
    };
  }

  /** Tasks per page of its reads. */
  get pageSize(): number {
    return this.deps.pageSize;
  }

  /** The one write path into the mirror, for events, fetched records and outbox answers. */
  get writer(): MirrorPort {
    return this.deps.mirror;
  }

  /**
   * Lists projects once, then passes over each of `projectIds` (default: every listed project,
   * and then projects no longer listed are deleted from the mirror). Projects in different lanes
   * (`laneOf`) are passed at once, those of one lane one after the other. A failing project does
   * not stop the others, except a spent quota or an abort, after which the rest of its lane are
   * reported as not attempted. A listing that is incomplete (`IncompleteListingError`) removes
   * nothing, and the projects it lacks fail with its reason. Never throws for remote failures:
   * they are in the report.
   */
  async syncAll(projectIds?: readonly string[], options: SyncOptions = {}): Promise<SyncReport> {
    const report: SyncReport = { ok: true, requests: 0, projects: [], removedProjects: [] };
    let projects: readonly Project[];
    try {
      // Every token's listing counts, and each retry of one.
      const onSent = () => (report.requests += 1);
      projects = await this.deps.remote.listProjects({ ...callOptions(options), onSent });
    } catch (error) {
      if (!(error instanceof IncompleteListingError)) {
        return { ...report, ok: false, error: errorLine(error) };
      }
      projects = error.projects;
      report.listingError = errorLine(error);
      if (error.refusals.length > 0) report.refusedTokens = [...error.refusals];
    }
    // Checked where it entered, no id twice (`RemoteApi` returns checked records).
    const listed = new Map(projects.map((project) => [project.id, project]));
    report.listed = [...listed.keys()];
    // Daemons sharing a mirror each pass the listed projects they hold (see ProjectClaims), of
    // those asked for (`--projects`): a project left out is not leased either.
    const asked = projectIds ?? [...listed.keys()];
    const complete = report.listingError === undefined;
    const mine = new Set(
      await this.claims.listed(
        asked.filter((id) => listed.has(id)),
        complete,
      ),
    );
    report.heldElsewhere = asked.filter((id) => listed.has(id) && !mine.has(id)).sort();
    let ids = asked.filter((id) => mine.has(id) || !listed.has(id));
    if (projectIds === undefined && report.listingError === undefined) {
      report.removedProjects = await this.removeUnlisted(listed);
    } else if (projectIds === undefined) {
      ids = [...ids, ...(await this.deps.mirror.projectIds()).filter((id) => !listed.has(id))];
    }
    const results = new Map<string, ProjectSyncResult>();
    const lanes = new Map<string, string[]>();
    for (const id of ids) {
      if (listed.has(id)) lanes.set(this.laneOf(id), [...(lanes.get(this.laneOf(id)) ?? []), id]);
      else results.set(id, await this.unlisted(id, report.listingError));
    }
    await Promise.all(
      [...lanes.values()].map((lane) => this.syncLane(lane, listed, options, results)),
    );
    for (const id of ids) {
      const result = results.get(id) as ProjectSyncResult;
      report.projects.push(result);
      report.requests += result.requests;
    }
    // Refused tokens list nothing: what the others list is complete, so each project decides.
    const listingOk = report.listingError === undefined || report.refusedTokens !== undefined;
    report.ok = listingOk && report.projects.every((result) => result.ok);
    return report;
  }

  /** Reads one page of a project's tasks and applies it if it can be alone (`page-poll.ts`). */
  pollPage(projectId: string, page: number, options: SyncOptions = {}): Promise<PagePollResult> {
    return pollPage(this.deps, projectId, page, options);
  }

  /** Reads a project and its three side lists and writes what differs (`page-poll.ts`). */
  pollLists(projectId: string, options: SyncOptions = {}): Promise<ListsPollResult> {
    return pollLists(this.deps, projectId, options);
  }

  /** One full pass over one project, reading the project itself with get project. */
  async syncProject(projectId: string, options: SyncOptions = {}): Promise<ProjectSyncResult> {
    return (await this.runPass(projectId, undefined, options)).result;
  }

  /** Passes over one lane's projects one after the other, into `results`. */
  private async syncLane(
    projectIds: readonly string[],
    listed: ReadonlyMap<string, Project>,
    options: SyncOptions,
    results: Map<string, ProjectSyncResult>,
  ): Promise<void> {
    let stopped: string | undefined;
    for (const projectId of projectIds) {
      if (stopped !== undefined) {
        results.set(projectId, await this.skipped(projectId, `not attempted: ${stopped}`));
        continue;
      }
      const outcome = await this.runPass(projectId, listed.get(projectId), options);
      results.set(projectId, outcome.result);
      if (stopsOthers(outcome.failure, options)) stopped = outcome.result.error;
    }
  }

  /** The result of a project the listing lacks. */
  private async unlisted(
    projectId: string,
    listingError: string | undefined,
  ): Promise<ProjectSyncResult> {
    if (listingError === undefined) {
      return this.skipped(projectId, `project ${projectId} is not listed for this token`);
    }
    return {
      ...(await this.skipped(projectId, `project ${projectId} is not listed: ${listingError}`)),
      errorCode: 'listing_incomplete',
    };
  }

  /** Runs a pass, or joins the one already running for this project. */
  private async runPass(
    projectId: string,
    listed: Project | undefined,
    options: SyncOptions,
  ): Promise<PassOutcome> {
    const running = this.inFlight.get(projectId);
    if (running !== undefined && !options.fresh) return running.done;
    if (running !== undefined) {
      // Any pass begun once this one ended began after the caller asked: it may be joined.
      const joinable = { ...options, fresh: false };
      running.next ??= running.done.then(() => this.runPass(projectId, listed, joinable));
      return running.next;
    }
    if (!this.claims.mine(projectId)) {
      const result = { ...(await this.skipped(projectId, `held by another daemon`)), ok: true };
      return { result: { ...result, errorCode: 'held_elsewhere' }, failure: undefined };
    }
    const pass = new ProjectPass(this.deps, projectId, listed, options);
    const done = pass
      .run()
      .then((result) => ({ result, failure: pass.failure }))
      .finally(() => this.inFlight.delete(projectId));
    this.inFlight.set(projectId, { pass, done });
    return done;
  }

  /** Deletes from the mirror every project (and its bookkeeping) the listing no longer has. */
  private async removeUnlisted(listed: ReadonlyMap<string, Project>): Promise<string[]> {
    const { mirror, logger } = this.deps;
    const known = await mirror.knownProjectIds();
    const gone = await this.claims.removable(known.filter((id) => !listed.has(id)).sort());
    for (const projectId of gone) {
      await mirror.removeProject(projectId);
      logger.info({ projectId }, 'project no longer listed; removed from the mirror');
    }
    return gone;
  }

  private async skipped(projectId: string, error: string): Promise<ProjectSyncResult> {
    return {
      projectId,
      ok: false,
      error,
      errorCode: 'not_attempted',
      requests: 0,
      pagesRead: 0,
      pagesNotModified: 0,
      rowsWritten: 0,
      historyWritten: 0,
      tasks: await this.deps.mirror.taskCount(projectId).catch(() => 0),
      attempts: 0,
      backfill: false,
    };
  }
}

function callOptions(options: SyncOptions) {
  return { signal: options.signal, purpose: options.purpose ?? 'poll' };
}

/** After these, the next projects would fail the same way: the quota is spent or we were told to stop. */
function stopsOthers(error: unknown, options: SyncOptions): boolean {
  if (options.signal?.aborted) return true;
  if (error instanceof BudgetExhaustedError) return true;
  return error instanceof RateLimitedError && error.serviceCode === 'quota_exceeded';
}
