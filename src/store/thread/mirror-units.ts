/**
 * The mirror's units of work, on the thread that owns the connection: each method is one unit
 * (one transaction, or a read), taking and returning plain data, so that it can be sent as a
 * message. The writer, its per-record guards and the survey of a pass's kept pages live here,
 * beside the rows they compare; the pass itself (requests, paging, retries) stays with the engine.
 */
import type {
  Clock,
  Project,
  ProjectFence,
  RealtimeEvent,
  RecordChange,
} from '../../domain/index.js';
import { MirrorWriter } from '../writer/writer.js';
import type { PassGuard } from '../writer/guard.js';
import { survey } from '../writer/commit.js';
import { keptRows } from '../writer/kept-pages.js';
import {
  applyPolledLists,
  applyPolledPage,
  type PagePollOutcome,
  type PolledLists,
  type PolledPage,
} from '../writer/page-poll.js';
import { isoTime } from '../database.js';
import type { MirrorHandle } from '../handle.js';
import { MirrorStore } from '../mirror-store.js';
import { rowsOf } from '../task-rows.js';
import { newTally, type WriteTally } from '../write-context.js';
import { PAGES_PER_STATEMENT } from '../task-writer.js';
import type {
  BackfillPageInput,
  CommitRequest,
  EventOutcome,
  KeptHead,
  PageProblem,
  PassStart,
  ApplyOutcome,
} from '../port.js';

/** What the store holds of one pass in flight: its guard and what it wrote. */
interface PassInFlight {
  guard: PassGuard;
  tally: WriteTally;
}

/** The mirror's units over one connection. */
export class MirrorUnits {
  readonly store: MirrorStore;
  readonly writer: MirrorWriter;
  private readonly clock: Clock;
  private readonly passes = new Map<string, PassInFlight>();

  constructor(mirror: MirrorHandle, clock: Clock, claims: ProjectFence) {
    this.store = new MirrorStore(mirror);
    this.clock = clock;
    this.writer = new MirrorWriter(this.store, clock, claims);
  }

  /** Starts guarding a pass of `projectId`; what the pass needs to know of the mirror. */
  async passBegin(projectId: string): Promise<PassStart> {
    const { store } = this;
    this.passes.set(projectId, { guard: this.writer.guard(projectId), tally: newTally() });
    const held = await store.projects.data(projectId);
    return {
      baseline: await store.syncState.hasBaseline(projectId),
      heldProject: held,
      pagesPerWrite: store.tasks.writesPagesAtOnce ? PAGES_PER_STATEMENT : 1,
      heldProjectEtag:
        held === undefined
          ? undefined
          : ((await store.syncState.get(projectId))?.projectEtag ?? undefined),
    };
  }

  /** Ends a pass: its guard released; what it wrote, and the tasks the mirror holds now. */
  async passEnd(projectId: string): Promise<{ rows: number; history: number; tasks: number }> {
    const pass = this.passes.get(projectId);
    this.passes.delete(projectId);
    if (pass) this.writer.release(projectId, pass.guard);
    return {
      rows: pass?.tally.rows ?? 0,
      history: pass?.tally.history ?? 0,
      tasks: await this.store.tasks.count(projectId),
    };
  }

  /** A pass failed: recorded in its sync state; indexes a cold sync deferred are built. */
  async passFailed(projectId: string, error: string): Promise<void> {
    const { store } = this;
    await store.transaction(async () => {
      await store.syncState.passFailed(projectId, error, isoTime(this.clock.now()));
      await store.deferred.restore();
    });
  }

  /** A new full read of the project begins: nothing seen yet, nothing shifted. */
  async attemptBegin(projectId: string): Promise<void> {
    await this.store.seenTasks.clear(projectId);
    this.pass(projectId).guard.shifted = false;
  }

  /** True when another write created or deleted a task of the project during the attempt. */
  shifted(projectId: string): boolean {
    return this.pass(projectId).guard.shifted;
  }

  /** The first step of a backfill: the project's record, and the backfill begun. */
  async beginBackfill(project: Project): Promise<void> {
    await this.writer.beginBackfill(project, this.pass(project.id).tally);
  }

  /** The ETag and row count of every kept page at `pageSize`, for conditional requests. */
  async keptHeads(projectId: string, pageSize: number): Promise<Array<[number, KeptHead]>> {
    const heads = await this.store.taskPages.heads(projectId, pageSize);
    return heads.map(({ page, etag, rowCount }) => [page, { etag, rowCount }]);
  }

  /**
   * Pages read by a backfill (`rows`, or undefined when answered 304: their kept copies), each
   * kept and applied (`MirrorWriter.backfillPages`); the page and problem when a task of one was
   * seen before.
   */
  async backfillPages(
    projectId: string,
    pages: readonly BackfillPageInput[],
  ): Promise<PageProblem | undefined> {
    const { tally } = this.pass(projectId);
    if (pages.every(({ rows }) => rows !== undefined)) {
      const fresh = pages.map(({ place, rows }) => ({
        rows: rowsOf(rows!),
        page: { ...place, fresh: true },
      }));
      return await this.writer.backfillPages(projectId, fresh, tally);
    }
    // A 304 among them: page by page, each kept copy read when its page's turn comes.
    for (const { place, rows } of pages) {
      const fresh = rows !== undefined;
      const written =
        rows === undefined
          ? await keptRows(this.store, projectId, place.pageSize, place.page)
          : rowsOf(rows);
      const page = { ...place, fresh };
      const problem = await this.writer.backfillPages(projectId, [{ rows: written, page }], tally);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }

  /** A page read by a later pass: only kept, for the commit. */
  async stagePage(
    projectId: string,
    page: { pageSize: number; page: number; etag: string | undefined },
    texts: string[],
  ): Promise<void> {
    const at = isoTime(this.clock.now());
    await this.store.taskPages.put(projectId, page.pageSize, page.page, page.etag, texts, at);
  }

  /**
   * Commits a consistent read: surveys the kept pages, then writes what differs in one
   * transaction with the bookkeeping. Returns a problem instead when a task turned up twice.
   */
  async commit(request: CommitRequest): Promise<string | undefined> {
    const { store } = this;
    const { guard, tally } = this.pass(request.projectId);
    const plan = { ...request, guard };
    // Only the survey marks the tasks seen by a later pass: a commit tried again starts afresh.
    if (!plan.backfill) await store.seenTasks.clear(plan.projectId);
    const found = await survey(store, plan);
    if (typeof found === 'string') return found;
    await this.writer.commitPass(plan, found, tally);
    return undefined;
  }

  /**
   * A single page a poll read (`page-poll.ts`): its changed rows written, or why a full pass is
   * due; `busy` while a pass of the project is in flight (its commit settles the page).
   */
  async pagePolled(polled: PolledPage): Promise<PagePollOutcome> {
    if (this.passes.has(polled.projectId)) return { kind: 'busy' };
    return await applyPolledPage(this.store, this.writer, polled, this.clock.now());
  }

  /** The project and its side lists a poll read, each list whole: true when something changed. */
  async listsPolled(polled: PolledLists): Promise<boolean> {
    return await applyPolledLists(this.writer, polled);
  }

  /** Writes what a realtime event says. */
  async applyEvent(event: RealtimeEvent): Promise<ApplyOutcome> {
    return await this.writer.applyEvent(event);
  }

  /** Writes events that arrived together, in one transaction. */
  async applyEvents(events: readonly RealtimeEvent[]): Promise<EventOutcome[]> {
    return await this.writer.applyEvents(events);
  }

  /** Writes records fetched from the service on a hint. */
  async applyFetched(
    projectId: string,
    changes: readonly RecordChange[],
    route: string,
  ): Promise<ApplyOutcome> {
    return await this.writer.applyChanges(projectId, changes, route);
  }

  /** Every mirrored project's id. */
  async projectIds(): Promise<string[]> {
    return await this.store.projects.ids();
  }

  /** Projects the mirror holds rows or bookkeeping of. */
  async knownProjectIds(): Promise<string[]> {
    const { store } = this;
    const states = await store.syncState.list();
    return [...new Set([...(await store.projects.ids()), ...states.map((s) => s.projectId)])];
  }

  /** The tasks the mirror holds for a project. */
  async taskCount(projectId: string): Promise<number> {
    return await this.store.tasks.count(projectId);
  }

  /** True when the mirror holds the project's record. */
  async hasProject(projectId: string): Promise<boolean> {
    return (await this.store.projects.data(projectId)) !== undefined;
  }

  /** Deletes a project with everything mirrored and kept for it. */
  async removeProject(projectId: string): Promise<void> {
    await this.writer.removeProject(projectId);
  }

  private pass(projectId: string): PassInFlight {
    const pass = this.passes.get(projectId);
    if (pass === undefined) throw new Error(`no pass of ${projectId} in flight`);
    return pass;
  }
}
