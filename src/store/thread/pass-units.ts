/**
 * A pass in flight, on the store thread: it owns the pass's guard (what other writes did during
 * it) and its tally (what it wrote). `MirrorUnits.passBegin` makes one and opens it as a group of
 * units of its own, which the pass's handle on the main thread (`pass-handle.ts`) asks; `end`
 * closes it. Each method is one unit of work.
 */
import type { Clock, Project } from '../../domain/index.js';
import { isoTime } from '../database.js';
import type { MirrorStore } from '../mirror-store.js';
import type { CommitRequest, KeptHead, PagePlace, PageProblem, PassWritten } from '../port.js';
import { rowsOf, type PreparedPage } from '../task-rows.js';
import { PAGES_PER_STATEMENT } from '../task-writer.js';
import { survey } from '../writer/commit.js';
import type { PassGuard } from '../writer/guard.js';
import { keptRows } from '../writer/kept-pages.js';
import type { MirrorWriter } from '../writer/writer.js';
import { newTally, type WriteTally } from '../write-context.js';

/** A backfill page as the handle sends it: its place, its tasks (undefined: a 304's kept copy). */
export interface BackfillPageInput {
  place: PagePlace & { totalCount: number | null };
  rows: PreparedPage | undefined;
}

/** What a pass's handle learns when it opens: the unit group to ask, and what the pass must know. */
export interface PassOpened {
  /** The name of the pass's group of units (`pass:<n>`). */
  group: string;
  baseline: boolean;
  heldProject: string | undefined;
  heldProjectEtag: string | undefined;
  /**
   * How many backfill pages the handle hands `backfillPages` at once: more than one where the
   * store writes them in one round trip (PostgreSQL), so that its latency is paid once for them.
   * The store's own choice: it never crosses the port.
   */
  pagesPerWrite: number;
}

/** One pass of one project, with its guard and tally. */
export class StorePass {
  readonly projectId: string;
  private readonly store: MirrorStore;
  private readonly writer: MirrorWriter;
  private readonly clock: Clock;
  private readonly guard: PassGuard;
  private readonly tally: WriteTally = { ...newTally(), changedAt: [] };
  private readonly close: () => void;

  constructor(
    projectId: string,
    parts: { store: MirrorStore; writer: MirrorWriter; clock: Clock },
    close: () => void,
  ) {
    this.projectId = projectId;
    this.store = parts.store;
    this.writer = parts.writer;
    this.clock = parts.clock;
    this.guard = parts.writer.guard(projectId);
    this.close = close;
  }

  /** What the pass's handle must know of the mirror as the pass begins. */
  async opened(group: string): Promise<PassOpened> {
    const { store, projectId } = this;
    const held = await store.projects.data(projectId);
    return {
      group,
      baseline: await store.syncState.hasBaseline(projectId),
      heldProject: held,
      pagesPerWrite: store.tasks.writesPagesAtOnce ? PAGES_PER_STATEMENT : 1,
      heldProjectEtag:
        held === undefined
          ? undefined
          : ((await store.syncState.get(projectId))?.projectEtag ?? undefined),
    };
  }

  /** Ends the pass: its guard released; what it wrote, and the tasks the mirror holds now. */
  async end(): Promise<PassWritten> {
    this.close();
    this.writer.release(this.projectId, this.guard);
    const { rows, history, changedAt = [] } = this.tally;
    return { rows, history, tasks: await this.store.tasks.count(this.projectId), changedAt };
  }

  /** A new full read of the project begins: nothing seen yet, nothing shifted. */
  async attemptBegin(): Promise<void> {
    await this.store.seenTasks.clear(this.projectId);
    this.guard.shifted = false;
  }

  /** True when another write created or deleted a task of the project during the attempt. */
  shifted(): boolean {
    return this.guard.shifted;
  }

  /** The first step of a backfill: the project's record, and the backfill begun. */
  async beginBackfill(project: Project): Promise<void> {
    await this.writer.beginBackfill(project, this.tally);
  }

  /** The ETag and row count of every kept page at `pageSize`, for conditional requests. */
  async keptHeads(pageSize: number): Promise<Array<[number, KeptHead]>> {
    const heads = await this.store.taskPages.heads(this.projectId, pageSize);
    return heads.map(({ page, etag, rowCount }) => [page, { etag, rowCount }]);
  }

  /**
   * Pages read by a backfill (`rows`, or undefined when answered 304: their kept copies), each
   * kept and applied (`MirrorWriter.backfillPages`); the page and problem when a task of one was
   * seen before.
   */
  async backfillPages(pages: readonly BackfillPageInput[]): Promise<PageProblem | undefined> {
    const { projectId, tally } = this;
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
  async stagePage(place: PagePlace, texts: string[]): Promise<void> {
    const at = isoTime(this.clock.now());
    const { pageSize, page, etag } = place;
    await this.store.taskPages.put(this.projectId, pageSize, page, etag, texts, at);
  }

  /**
   * Commits a consistent read: surveys the kept pages, then writes what differs in one
   * transaction with the bookkeeping. Returns a problem instead when a task turned up twice.
   */
  async commit(request: CommitRequest): Promise<string | undefined> {
    const { store, guard, tally } = this;
    if (request.projectId !== this.projectId) {
      throw new Error(`a commit of ${request.projectId} in the pass of ${this.projectId}`);
    }
    const plan = { ...request, guard };
    // Only the survey marks the tasks seen by a later pass: a commit tried again starts afresh.
    if (!plan.backfill) await store.seenTasks.clear(plan.projectId);
    const found = await survey(store, plan);
    if (typeof found === 'string') return found;
    await this.writer.commitPass(plan, found, tally);
    return undefined;
  }
}

/** Where the passes in flight are found as groups of units: on the host, beside its own groups. */
export class PassGroups {
  private host: Record<string, object> | undefined;
  private next = 1;

  /** The host the passes' groups join (`createHost`). */
  attach(host: Record<string, object>): void {
    this.host = host;
  }

  /** Opens `make`'s pass as a group of units; its name. `close` (the pass's end) removes it. */
  open(make: (close: () => void) => StorePass): { group: string; pass: StorePass } {
    const host = this.host;
    if (host === undefined) throw new Error('passes opened before the host was built');
    const group = `pass:${this.next++}`;
    const pass = make(() => {
      delete host[group];
    });
    host[group] = pass;
    return { group, pass };
  }
}
