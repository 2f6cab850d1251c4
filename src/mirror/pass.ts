/**
 * One project's full pass: read the project, page its tasks (repeating once if they moved), read
 * its three lists, then commit everything in one transaction. The first pass of a project (its
 * backfill) instead applies each page as it arrives, so that a large project shows up as it
 * loads. A failed pass leaves the mirror as it was; the pages it read stay kept with their ETags,
 * so the next pass gets 304s for them.
 */
import type { Logger } from 'pino';
import {
  errorLine,
  InconsistentReadError,
  MalformedResponseError,
  DISK_FULL,
  isDiskFull,
  ProjmirrorError,
  type Clock,
  type Project,
  type RemoteApi,
} from '../domain/index.js';
import type { CommitRequest, MirrorPort, Pass, PassWritten } from '../store/port.js';
import { TaskPager, type PassCounters } from './pager.js';
import {
  MAX_READ_ATTEMPTS,
  type ProjectSyncResult,
  type SyncOptions,
  type SyncProgress,
} from './types.js';

/** The engine's parts a pass uses, resolved once by `Mirror`. */
export interface PassDeps {
  /** The mirror's units of work (the writer, the kept pages, the pass's bookkeeping). */
  mirror: MirrorPort;
  remote: RemoteApi;
  clock: Clock;
  logger: Logger;
  pageSize: number;
  onProgress: ((progress: SyncProgress) => void) | undefined;
}

/** One pass over one project; `run` once. */
export class ProjectPass {
  readonly projectId: string;
  /** The error that ended the pass, if it failed. */
  failure: unknown;
  private readonly deps: PassDeps;
  private readonly listed: Project | undefined;
  private readonly call: SyncOptions;
  private readonly counters: PassCounters = {
    requests: 0,
    pagesRead: 0,
    pagesNotModified: 0,
    looks: new Map(),
  };
  private startedAt: number | undefined;
  private written: PassWritten = { rows: 0, history: 0, tasks: 0, changedAt: [] };
  private attempts = 0;
  private backfill = false;
  /** The three lists, read once per pass after the first read that held together. */
  private lists: CommitRequest['lists'] | undefined;

  /** `listed` is the project as list projects returned it; without it the pass gets it. */
  constructor(deps: PassDeps, projectId: string, listed: Project | undefined, call: SyncOptions) {
    this.deps = deps;
    this.projectId = projectId;
    this.listed = listed;
    this.call = call;
  }

  /** Runs the pass; never throws: a failure is recorded in `sync_state` and in the result. */
  async run(): Promise<ProjectSyncResult> {
    const { mirror, clock, logger } = this.deps;
    const startedAt = clock.now();
    this.startedAt = startedAt;
    let pass: Pass | undefined;
    try {
      pass = await mirror.passBegin(this.projectId);
      await this.sync(pass);
      this.written = await pass.end();
      const result = this.result();
      logger.info({ ...result, ms: clock.now() - startedAt }, 'project synced');
      return { ...result, changedAt: this.written.changedAt };
    } catch (error) {
      this.failure = error;
      const line = errorLine(error);
      await mirror.passFailed(this.projectId, line).catch((storeError: unknown) => {
        // A full disk is logged once for all by the daemon's disk watch.
        const level = isDiskFull(storeError) ? 'debug' : 'error';
        logger[level]({ projectId: this.projectId, err: errorLine(storeError) }, 'cannot record');
      });
      if (pass !== undefined) this.written = await pass.end().catch(() => this.written);
      // Its caller tells it once: sync as its line, the daemon as 'pass failed'.
      logger.debug({ projectId: this.projectId, err: line }, 'project sync failed');
      return { ...this.result(), ok: false, error: line, errorCode: codeOf(error) };
    }
  }

  private async sync(pass: Pass): Promise<void> {
    const { logger } = this.deps;
    this.backfill = !pass.baseline;
    const { project, etag } = await this.readProject(pass);
    if (this.backfill) await pass.beginBackfill(project);
    const pager = this.pager(pass);
    for (;;) {
      this.attempts += 1;
      const problem = await this.attempt(pass, pager, project, etag);
      if (problem === undefined) return;
      if (this.attempts >= MAX_READ_ATTEMPTS) {
        throw new InconsistentReadError(this.projectId, problem);
      }
      logger.info(
        { projectId: this.projectId, problem },
        'tasks moved while paging; reading again',
      );
    }
  }

  /** One full read and, if it held together, its commit; else what went wrong. */
  private async attempt(
    pass: Pass,
    pager: TaskPager,
    project: Project,
    projectEtag: string | undefined,
  ): Promise<string | undefined> {
    const { pageSize } = this.deps;
    await pass.attemptBegin();
    const outcome = await pager.read(this.attempts);
    if (outcome.problem !== undefined) return outcome.problem;
    if (this.attempts < MAX_READ_ATTEMPTS && (await pass.shifted())) {
      return 'events created or deleted tasks while paging';
    }
    this.lists ??= await this.readLists();
    const request: CommitRequest = {
      projectId: this.projectId,
      project,
      projectEtag,
      backfill: this.backfill,
      pageSize,
      lastPage: outcome.lastPage,
      totalCount: outcome.totalCount,
      lists: this.lists,
    };
    return pass.commit(request);
  }

  private pager(pass: Pass): TaskPager {
    const { remote, pageSize, onProgress } = this.deps;
    return new TaskPager({
      remote,
      pass,
      projectId: this.projectId,
      pageSize,
      backfill: this.backfill,
      counters: this.counters,
      call: this.call,
      onProgress,
    });
  }

  /** The project record: as listed, else from get project (conditional on the ETag held). */
  private async readProject(start: Pass): Promise<{ project: Project; etag: string | undefined }> {
    if (this.listed !== undefined) return { project: this.listed, etag: undefined };
    const { remote } = this.deps;
    const context = { route: 'getProject', projectId: this.projectId };
    const held = start.heldProject;
    const heldEtag = start.heldProjectEtag;
    const answer = await remote.getProject(this.projectId, heldEtag ?? undefined, this.options());
    // Checked where it entered, its id included (`RemoteApi` returns checked records).
    if (!answer.notModified) return { project: answer.value, etag: answer.etag };
    if (held === undefined || heldEtag == null) {
      throw new MalformedResponseError(context, '304 Not Modified to a request without ETag');
    }
    return { project: JSON.parse(held) as Project, etag: answer.etag ?? heldEtag };
  }

  private async readLists(): Promise<CommitRequest['lists']> {
    const { remote } = this.deps;
    const id = this.projectId;
    const options = this.options();
    // Checked where they entered (`RemoteApi` returns checked records).
    const [members, resources, dependencies] = await Promise.all([
      remote.listMembers(id, options),
      remote.listResources(id, options),
      remote.listDependencies(id, options),
    ]);
    return { members, resources, dependencies };
  }

  /** Each HTTP request the pass's calls send counts: retries and failover included. */
  private options() {
    const onSent = () => (this.counters.requests += 1);
    return { signal: this.call.signal, purpose: this.call.purpose ?? 'poll', onSent };
  }

  private result(): ProjectSyncResult {
    return {
      projectId: this.projectId,
      ok: true,
      ...(this.startedAt === undefined ? {} : { startedAt: this.startedAt }),
      requests: this.counters.requests,
      pagesRead: this.counters.pagesRead,
      pagesNotModified: this.counters.pagesNotModified,
      pageLooks: [...this.counters.looks].map(([page, changed]) => ({ page, changed })),
      rowsWritten: this.written.rows,
      historyWritten: this.written.history,
      tasks: this.written.tasks,
      attempts: this.attempts,
      backfill: this.backfill,
    };
  }
}

function codeOf(error: unknown): string {
  if (isDiskFull(error)) return DISK_FULL;
  if (error instanceof ProjmirrorError) return error.code;
  if (error instanceof Error && error.name === 'AbortError') return 'aborted';
  return 'internal';
}
