/**
 * The pull engine: full passes over every project (`syncAll`) or one (`syncProject`), and the
 * apply paths the realtime listener feeds with records it received. All of them write through
 * the same repositories and transactions, and record task history the same way. One instance per
 * mirror file: it knows which passes are in flight, so that an event applied during a pass is not
 * overwritten by the pass's older copy.
 */
import {
  BudgetExhaustedError,
  errorLine,
  RateLimitedError,
  UsageError,
  type Dependency,
  type Member,
  type Project,
  type Resource,
  type Task,
} from '../domain/index.js';
import { isoTime } from '../store/database.js';
import { MirrorStore } from '../store/mirror-store.js';
import type { RecordKind } from '../store/project-records.js';
import { newTally, type WriteContext } from '../store/write-context.js';
import type { PassGuard } from './guard.js';
import { ProjectPass, type PassDeps } from './pass.js';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type ApplyOutcome,
  type MirrorOptions,
  type ProjectSyncResult,
  type SyncOptions,
  type SyncReport,
} from './types.js';
import { checkProject, checkRecords, checkTask } from './validate.js';

/** A pass's result, with the error that ended it (to tell whether the next projects may go on). */
interface PassOutcome {
  result: ProjectSyncResult;
  failure: unknown;
}

interface InFlight {
  pass: ProjectPass;
  done: Promise<PassOutcome>;
}

/** The mirror engine over one database connection and one remote. */
export class Mirror {
  private readonly deps: PassDeps;
  private readonly inFlight = new Map<string, InFlight>();

  constructor(options: MirrorOptions) {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new UsageError(`page size ${pageSize} is not an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    this.deps = {
      store: new MirrorStore(options.db),
      remote: options.remote,
      clock: options.clock,
      logger: options.logger,
      pageSize,
      onProgress: options.onProgress,
    };
  }

  /** The repositories the engine writes through, for writers that must share its connection. */
  get store(): MirrorStore {
    return this.deps.store;
  }

  /**
   * Lists projects once, then passes over each of `projectIds` (default: every listed project,
   * and then projects no longer listed are deleted from the mirror). A failing project does not
   * stop the others, except a spent quota or an abort, after which the rest are reported as not
   * attempted. Never throws for remote failures: they are in the report.
   */
  async syncAll(projectIds?: readonly string[], options: SyncOptions = {}): Promise<SyncReport> {
    const report: SyncReport = { ok: true, requests: 1, projects: [], removedProjects: [] };
    let listed: Map<string, Project>;
    try {
      const projects = await this.deps.remote.listProjects(callOptions(options));
      const context = { route: 'listProjects' };
      listed = new Map(checkRecords(projects, context).map((p) => [p.id, p as Project]));
    } catch (error) {
      return { ...report, ok: false, error: errorLine(error) };
    }
    if (projectIds === undefined) report.removedProjects = this.removeUnlisted(listed);
    let stopped: string | undefined;
    for (const projectId of projectIds ?? [...listed.keys()]) {
      const project = listed.get(projectId);
      let result: ProjectSyncResult;
      if (stopped !== undefined) {
        result = this.skipped(projectId, `not attempted: ${stopped}`);
      } else if (project === undefined) {
        result = this.skipped(projectId, `project ${projectId} is not listed for this token`);
      } else {
        const outcome = await this.runPass(projectId, project, options);
        result = outcome.result;
        if (stopsOthers(outcome.failure, options)) stopped = result.error;
      }
      report.projects.push(result);
      report.requests += result.requests;
    }
    report.ok = report.projects.every((result) => result.ok);
    return report;
  }

  /** One full pass over one project, reading the project itself with get project. */
  async syncProject(projectId: string, options: SyncOptions = {}): Promise<ProjectSyncResult> {
    return (await this.runPass(projectId, undefined, options)).result;
  }

  /** Writes a project record received from an event; only for projects already mirrored. */
  applyProject(project: Project): ApplyOutcome {
    const checked = checkProject(project, { route: 'applyProject' });
    return this.apply(checked.id, (context, guard) => {
      if (guard) guard.project = true;
      return this.deps.store.projects.put(checked, context);
    });
  }

  /**
   * Writes a task received from an event (or a write's response), with its history. A task the
   * mirror holds with a later `updatedAt` is left alone: the event is older than what is held.
   */
  applyTask(projectId: string, task: Task): ApplyOutcome {
    const checked = checkTask(task, { route: 'applyTask', projectId });
    return this.apply(projectId, (context, guard) => {
      const held = this.deps.store.tasks.find(checked.id);
      if (guard) {
        guard.tasks.add(checked.id);
        if (held === undefined) guard.shifted = true;
      }
      if (isNewer(held?.updatedAt, checked.updatedAt)) return false;
      return this.deps.store.tasks.put(projectId, checked, JSON.stringify(checked), context);
    });
  }

  /** Deletes a task an event said was deleted, recording the deletion. */
  removeTask(projectId: string, taskId: string): ApplyOutcome {
    return this.apply(projectId, (context, guard) => {
      const removed = this.deps.store.tasks.remove(projectId, taskId, context);
      if (guard) {
        guard.tasks.add(taskId);
        if (removed) guard.shifted = true;
      }
      return removed;
    });
  }

  /** Writes one member, resource or dependency received from an event (insert or update). */
  applyRecord(kind: RecordKind, projectId: string, record: unknown): ApplyOutcome {
    const [checked] = checkRecords([record], { route: `apply ${kind}`, projectId });
    if (checked === undefined) return 'unchanged';
    return this.apply(projectId, (context, guard) => {
      guard?.lists.add(kind);
      const data = JSON.stringify(checked);
      if (this.deps.store.records[kind].data(projectId, checked.id) === data) return false;
      this.deps.store.records[kind].put(projectId, checked, data, context);
      return true;
    });
  }

  /** Makes the project's members exactly `members`. */
  replaceMembers(projectId: string, members: readonly Member[]): ApplyOutcome {
    return this.replaceRecords('members', projectId, members);
  }

  /** Makes the project's resources exactly `resources`. */
  replaceResources(projectId: string, resources: readonly Resource[]): ApplyOutcome {
    return this.replaceRecords('resources', projectId, resources);
  }

  /** Makes the project's dependencies exactly `dependencies`. */
  replaceDependencies(projectId: string, dependencies: readonly Dependency[]): ApplyOutcome {
    return this.replaceRecords('dependencies', projectId, dependencies);
  }

  /** Runs a pass, or joins the one already running for this project. */
  private async runPass(
    projectId: string,
    listed: Project | undefined,
    options: SyncOptions,
  ): Promise<PassOutcome> {
    const running = this.inFlight.get(projectId);
    if (running !== undefined) return running.done;
    const pass = new ProjectPass(this.deps, projectId, listed, options);
    const done = pass
      .run()
      .then((result) => ({ result, failure: pass.failure }))
      .finally(() => this.inFlight.delete(projectId));
    this.inFlight.set(projectId, { pass, done });
    return done;
  }

  private replaceRecords(
    kind: RecordKind,
    projectId: string,
    records: readonly unknown[],
  ): ApplyOutcome {
    const route = `replace ${kind}`;
    const checked = checkRecords(records, { route, projectId });
    return this.apply(projectId, (context, guard) => {
      guard?.lists.add(kind);
      return this.deps.store.records[kind].replace(projectId, checked, context) > 0;
    });
  }

  /** Runs one apply path in a transaction, with history once the project has its baseline. */
  private apply(
    projectId: string,
    write: (context: WriteContext, guard: PassGuard | undefined) => boolean,
  ): ApplyOutcome {
    const { store, clock } = this.deps;
    return store.transaction(() => {
      if (store.projects.data(projectId) === undefined) return 'unknown_project';
      const history = store.syncState.hasBaseline(projectId);
      const context = { at: isoTime(clock.now()), history, tally: newTally() };
      const changed = write(context, this.inFlight.get(projectId)?.pass.guard);
      if (changed) store.syncState.changed(projectId, context.at);
      return changed ? 'changed' : 'unchanged';
    });
  }

  /** Deletes from the mirror every project (and its bookkeeping) the listing no longer has. */
  private removeUnlisted(listed: ReadonlyMap<string, Project>): string[] {
    const { store, logger } = this.deps;
    const known = new Set([
      ...store.projects.ids(),
      ...store.syncState.list().map((s) => s.projectId),
    ]);
    const gone = [...known].filter((id) => !listed.has(id)).sort();
    for (const projectId of gone) {
      store.removeProject(projectId);
      logger.info({ projectId }, 'project no longer listed; removed from the mirror');
    }
    return gone;
  }

  private skipped(projectId: string, error: string): ProjectSyncResult {
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
      tasks: this.deps.store.tasks.count(projectId),
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

/** True when `held` is a later time than `incoming` (both the service's `updatedAt`). */
function isNewer(held: string | null | undefined, incoming: unknown): boolean {
  if (typeof held !== 'string' || typeof incoming !== 'string') return false;
  const heldMs = Date.parse(held);
  const incomingMs = Date.parse(incoming);
  return Number.isFinite(heldMs) && Number.isFinite(incomingMs) && heldMs > incomingMs;
}
