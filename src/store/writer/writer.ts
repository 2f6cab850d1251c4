/**
 * The only writer of mirrored rows (projects, tasks, assignees, members, resources, dependencies).
 * Whatever brings a record — a pass's commit, a realtime event, a record fetched on a hint, the
 * service's answer to an outbox item — it reaches the mirror through one of the entry points
 * below, which trust the records' types (checked once where they entered: the remote client, the
 * realtime channel's `checkEvent`, the outbox's answers), keep task history, and note in the guard of a
 * pass in flight exactly which records they wrote, so that the pass's commit leaves those alone
 * and replaces everything else.
 */
import {
  MalformedResponseError,
  SOLE_OWNER,
  type CheckedEvent,
  type CheckedRecord,
  type Clock,
  type ListType,
  type ProjectFence,
  type Project,
  type RecordChange,
  type RemoteContext,
  type Task,
} from '../../domain/index.js';
import { isoTime } from '../database.js';
import type { MirrorStore } from '../mirror-store.js';
import type { RecordKind } from '../project-records.js';
import type { StoredTask } from '../task-writer.js';
import { pickRows, type TaskRows } from '../task-rows.js';
import { sameJson } from '../values.js';
import { newTally, type WriteContext, type WriteTally } from '../write-context.js';
import type { CommitPlan, Survey } from './commit.js';
import { PassGuard } from './guard.js';
import { keptRows } from './kept-pages.js';
import type { ApplyOutcome, EventOutcome, PageProblem } from '../port.js';

/** Where a backfill page sits in the read, and whether its rows were just received. */
export interface BackfillPage {
  pageSize: number;
  page: number;
  etag: string | undefined;
  /** `X-Total-Count` with the page; null keeps the one recorded. */
  totalCount: number | null;
  /** True for rows just received (kept, most of them new); false for a 304's kept rows. */
  fresh: boolean;
}

/** The table of each per-project list. */
const LIST_TABLE: Readonly<Record<ListType, RecordKind>> = {
  member: 'members',
  resource: 'resources',
  dependency: 'dependencies',
};

/** The per-project lists, in the order passes read and write them. */
const RECORD_KINDS: readonly RecordKind[] = ['members', 'resources', 'dependencies'];

/** The one write path into the mirror over one connection. */
export class MirrorWriter {
  private readonly store: MirrorStore;
  private readonly clock: Clock;
  private readonly guards = new Map<string, PassGuard>();

  private readonly claims: ProjectFence;

  constructor(store: MirrorStore, clock: Clock, claims: ProjectFence = SOLE_OWNER) {
    this.store = store;
    this.clock = clock;
    this.claims = claims;
  }

  /** Starts guarding `projectId` for a pass: until `release`, other writes are noted in the guard. */
  guard(projectId: string): PassGuard {
    const guard = new PassGuard();
    this.guards.set(projectId, guard);
    return guard;
  }

  /** Ends the guard a pass took. */
  /** True while a pass of the project is in flight (its guard is held). */
  guarding(projectId: string): boolean {
    return this.guards.has(projectId);
  }

  release(projectId: string, guard: PassGuard): void {
    if (this.guards.get(projectId) === guard) this.guards.delete(projectId);
  }

  /**
   * Writes what a checked realtime event says, with no request (its records checked where it
   * entered: `checkEvent`). Throws `MalformedResponseError` when a change is of another project.
   */
  async applyEvent(event: CheckedEvent): Promise<ApplyOutcome> {
    const context = { route: `event ${event.type}`, projectId: event.projectId };
    return await this.applyInTransaction(event.projectId, event.changes, context);
  }

  /**
   * Writes events that arrived together in one transaction, so that the pages they share (the
   * sync state, the ends of the indexes they append to, the full-text index's new segment) are
   * written once for all. Each event is a savepoint of its own: one refused (a change of another
   * project) is `malformed` and leaves the others written. A store error rolls back all of them.
   */
  async applyEvents(events: readonly CheckedEvent[]): Promise<EventOutcome[]> {
    return await this.store.transaction(async () => {
      const outcomes: EventOutcome[] = [];
      for (const event of events) {
        try {
          outcomes.push(await this.applyEvent(event));
        } catch (error) {
          if (!(error instanceof MalformedResponseError)) throw error;
          outcomes.push({ malformed: error.problem });
        }
      }
      return outcomes;
    });
  }

  /**
   * Writes records the service gave on `route`: fetched on a hint (get task, one list), or its
   * answer to an outbox item, inside the transaction that marks the item done (rejecting rolls
   * the write back).
   */
  async applyChanges(
    projectId: string,
    changes: readonly RecordChange[],
    route: string,
  ): Promise<ApplyOutcome> {
    return await this.applyInTransaction(projectId, changes, { route, projectId });
  }

  /** A pass's first step on a project never passed: its record, and the backfill begun. */
  async beginBackfill(project: Project, tally: WriteTally): Promise<void> {
    const { store } = this;
    await this.fenced(project.id, async () => {
      await store.projects.put(project, this.context(false, tally));
      await store.syncState.beginBackfill(project.id);
      await store.deferred.deferIfEmpty();
    });
  }

  /**
   * Consecutive pages of a backfill, each with its rows (a 304's are its kept copy). Where the
   * store writes several at once (PostgreSQL) and every one is fresh and new, one statement for
   * all; else page by page (`backfillPage`), but each page in its transaction once the server
   * refused the statement (what refused it, such as tasks the mirror holds on a read tried
   * again, would most likely refuse a page alone too). Returns the page whose task was seen
   * before in this read, if any, with the problem; the pages after it in `pages` are not
   * written.
   */
  async backfillPages(
    projectId: string,
    pages: ReadonlyArray<{ rows: TaskRows; page: BackfillPage }>,
    tally: WriteTally,
  ): Promise<PageProblem | undefined> {
    const context = this.context(false, tally);
    const together =
      pages.length > 1 ? await this.writtenAtOnce(projectId, pages, context) : 'not tried';
    if (together === 'written') return undefined;
    for (const { rows, page } of pages) {
      const problem =
        together === 'refused'
          ? await this.pageInTransaction(projectId, rows, page, context)
          : await this.backfillPage(projectId, rows, page, tally);
      if (problem !== undefined) return { page: page.page, problem };
    }
    return undefined;
  }

  /**
   * One page of a backfill: in one statement where the store offers it (`writtenAtOnce`), else
   * in its transaction (`pageInTransaction`). Returns the id of a task seen before in this read,
   * if any, and then writes nothing but what marked it.
   */
  async backfillPage(
    projectId: string,
    rows: TaskRows,
    page: BackfillPage,
    tally: WriteTally,
  ): Promise<string | undefined> {
    const context = this.context(false, tally);
    const alone = await this.writtenAtOnce(projectId, [{ rows, page }], context);
    if (alone === 'written') return undefined;
    return await this.pageInTransaction(projectId, rows, page, context);
  }

  /**
   * One page of a backfill in one transaction: each row noted as seen, the page kept (`fresh`
   * rows, just received; a 304's rows are its kept copy already) with the backfill's progress,
   * and each row written unless a write during the pass holds a later copy. Returns the problem
   * when a task was seen before in this read, and then writes nothing but what marked it. On
   * SQLite, a fresh page whose tasks the mirror holds none of, while no write during the pass
   * guards a task and no id of the read was marked one by one, is inserted whole and noted seen
   * as a page (`SeenTasks.defer`): any id of the read it repeated would have been held.
   */
  private async pageInTransaction(
    projectId: string,
    rows: TaskRows,
    page: BackfillPage,
    context: WriteContext,
  ): Promise<string | undefined> {
    const { store } = this;
    const guard = this.guards.get(projectId);
    return await this.fenced(projectId, async () => {
      const { pageSize, etag } = page;
      const keep = async () => {
        if (page.fresh) {
          await store.taskPages.put(projectId, pageSize, page.page, etag, rows.texts, context.at);
        }
        await store.syncState.backfillProgress(projectId, page.page, page.totalCount);
      };
      // A page of tasks all new, no write during the pass in the way: noted seen as a page, and
      // kept by reference (its rows are the texts just inserted: written once, not twice).
      if (
        page.fresh &&
        !context.history &&
        (guard === undefined || guard.tasks.size === 0) &&
        (await store.seenTasks.mayDefer(projectId)) &&
        (await store.tasks.putPage(projectId, rows, context, 'new'))
      ) {
        await store.taskPages.putReference(
          projectId,
          pageSize,
          page.page,
          etag,
          rows.ids,
          context.at,
        );
        await store.syncState.backfillProgress(projectId, page.page, page.totalCount);
        await store.seenTasks.defer(projectId, pageSize, page.page, rows.ids.length);
        return undefined;
      }
      const repeated = await store.seenTasks.markAll(projectId, rows.ids);
      if (repeated !== undefined) return `task ${repeated} appeared twice`;
      await keep();
      const unguarded = guard ? pickRows(rows, (id) => !guard.tasks.has(id)) : rows;
      await store.tasks.putPage(projectId, unguarded, context, page.fresh ? 'fresh' : 'kept');
      return undefined;
    });
  }

  /**
   * Fresh backfill pages of tasks new to the mirror, in one statement where the store offers it
   * (PostgreSQL: one round trip instead of a transaction's eight a page). Else, with nothing
   * written: 'not tried' when the store has no such statement, history is kept, a page answered
   * 304 or a field was never seen; 'refused' when the server found a task held or seen already,
   * an id twice among the pages, the lease lost, or another writer inserted one of the ids
   * meanwhile. A transaction then handles each page.
   */
  private async writtenAtOnce(
    projectId: string,
    pages: ReadonlyArray<{ rows: TaskRows; page: BackfillPage }>,
    context: WriteContext,
  ): Promise<'written' | 'refused' | 'not tried'> {
    const { store } = this;
    if (!store.tasks.writesPagesAtOnce || context.history) return 'not tried';
    if (!pages.every(({ page }) => page.fresh)) return 'not tried';
    const fields = pages.flatMap(({ rows }) => rows.fields);
    if (await context.fields.wouldGrow('tasks', fields)) return 'not tried';
    const guard = this.guards.get(projectId);
    const written = pages.map(({ rows, page }) => ({
      page: page.page,
      etag: page.etag,
      totalCount: page.totalCount,
      rows,
      write: new Set(rows.ids.filter((id) => !guard?.tasks.has(id))),
    }));
    const ok = await store.tasks.putPagesAtOnce({
      projectId,
      holder: this.claims.holder,
      pageSize: pages[0]!.page.pageSize,
      pages: written,
      at: context.at,
    });
    if (!ok) return 'refused';
    for (const { write } of written) context.tally.rows += write.size;
    return 'written';
  }

  /**
   * Makes the mirror equal to a consistent read in one transaction: the project, the rows of the
   * changed pages, the tasks not seen deleted, the lists replaced, the kept pages pruned and the
   * pass recorded. What other writes did during the pass (its guard) stays as they left it.
   */
  async commitPass(plan: CommitPlan, found: Survey, tally: WriteTally): Promise<void> {
    const { store } = this;
    const { projectId, guard } = plan;
    const context = this.context(!plan.backfill, tally);
    await this.fenced(projectId, async () => {
      if (!guard.project) await store.projects.put(plan.project, context);
      for (const page of found.changedPages) {
        const rows = await keptRows(store, projectId, plan.pageSize, page);
        const unguarded = pickRows(rows, (id) => !guard.tasks.has(id));
        await store.tasks.putPage(projectId, unguarded, context, 'kept');
      }
      if (found.unseen > 0) {
        for (const taskId of guard.tasks) await store.seenTasks.mark(projectId, taskId);
        await store.tasks.removeUnseen(projectId, context);
      }
      for (const kind of RECORD_KINDS) {
        await store.records[kind].replace(projectId, plan.lists[kind], context, guard.lists[kind]);
      }
      await store.taskPages.prune(projectId, plan.pageSize, plan.lastPage);
      await store.syncState.passCompleted(projectId, {
        at: context.at,
        pagesRead: plan.lastPage,
        totalCount: plan.totalCount,
        projectEtag: plan.projectEtag,
        changed: tally.rows > 0,
      });
      // A field the service sent for the first time becomes a column of the wide views.
      if (store.fields.takeGrowth()) await store.refreshWideViews();
      await store.deferred.restore();
    });
  }

  /** Deletes a project with everything mirrored and kept for it. */
  async removeProject(projectId: string): Promise<void> {
    await this.store.removeProject(projectId);
  }

  /** Runs `changes` of one project in one transaction (a savepoint inside the caller's). */
  private async applyInTransaction(
    projectId: string,
    changes: readonly RecordChange[],
    route: RemoteContext,
  ): Promise<ApplyOutcome> {
    const { store } = this;
    return await store.transaction(async () => {
      if ((await store.projects.data(projectId)) === undefined) return 'unknown_project';
      await this.fence(projectId);
      const context = this.context(await store.syncState.hasBaseline(projectId), newTally());
      let changed = false;
      for (const change of changes) {
        if (change.projectId !== projectId) {
          throw new MalformedResponseError(route, `a change of project ${change.projectId}`);
        }
        changed = (await this.applyOne(change, context)) || changed;
      }
      if (changed) await store.syncState.changed(projectId, context.at);
      return changed ? 'changed' : 'unchanged';
    });
  }

  private async applyOne(change: RecordChange, context: WriteContext): Promise<boolean> {
    const guard = this.guards.get(change.projectId);
    switch (change.op) {
      case 'put':
        if (change.type === 'project') return await this.putProject(change.record, context);
        if (change.type === 'task')
          return await this.putTask(change.projectId, change.record, context);
        return await this.putRecord(change.type, change.projectId, change.record, context);
      case 'remove':
        if (change.type === 'task')
          return await this.removeTask(change.projectId, change.id, context);
        guard?.lists[LIST_TABLE[change.type]].add(change.id);
        return this.store.records[LIST_TABLE[change.type]].remove(
          change.projectId,
          change.id,
          context,
        );
      case 'replace': {
        const kind = LIST_TABLE[change.type];
        const touched = await this.store.records[kind].replace(
          change.projectId,
          change.records,
          context,
        );
        for (const id of touched) guard?.lists[kind].add(id);
        return touched.length > 0;
      }
      case 'assignees': {
        const held = await this.store.tasks.find(change.taskId);
        if (held === undefined || held.projectId !== change.projectId) return false;
        const task = { ...(JSON.parse(held.data) as Task), assigneeIds: [...change.assigneeIds] };
        return await this.putTask(change.projectId, task, context, held);
      }
    }
  }

  private async putProject(project: Project, context: WriteContext): Promise<boolean> {
    const guard = this.guards.get(project.id);
    if (guard) guard.project = true;
    return await this.store.projects.put(project, context);
  }

  /**
   * Writes a task unless the mirror holds a later version of it (by the service's `updatedAt`),
   * reading the mirror's copy once (`found`: already read by the caller).
   */
  private async putTask(
    projectId: string,
    task: Task,
    context: WriteContext,
    found?: StoredTask,
  ): Promise<boolean> {
    const held = found ?? (await this.store.tasks.find(task.id));
    const guard = this.guards.get(projectId);
    if (guard) {
      guard.tasks.add(task.id);
      if (held === undefined) guard.shifted = true;
    }
    if (isNewer(held?.updatedAt, task.updatedAt)) return false;
    return await this.store.tasks.put(projectId, task, JSON.stringify(task), context, { held });
  }

  private async removeTask(
    projectId: string,
    taskId: string,
    context: WriteContext,
  ): Promise<boolean> {
    const removed = await this.store.tasks.remove(projectId, taskId, context);
    const guard = this.guards.get(projectId);
    if (guard) {
      guard.tasks.add(taskId);
      if (removed) guard.shifted = true;
    }
    return removed;
  }

  private async putRecord(
    type: ListType,
    projectId: string,
    checked: CheckedRecord,
    context: WriteContext,
  ): Promise<boolean> {
    const kind = LIST_TABLE[type];
    this.guards.get(projectId)?.lists[kind].add(checked.id);
    const data = JSON.stringify(checked);
    if (sameJson(await this.store.records[kind].data(projectId, checked.id), data)) return false;
    await this.store.records[kind].put(projectId, checked, data, context);
    return true;
  }

  /**
   * Runs `fn` in one write transaction of `projectId`, fenced first: the mirror's writes of a
   * project are only its lease holder's (`NotHeldError` otherwise, nothing written).
   */
  private fenced<T>(projectId: string, fn: () => Promise<T>): Promise<T> {
    return this.store.transaction(async () => {
      await this.fence(projectId);
      return await fn();
    });
  }

  /** The one check of the lease before a write (the statement's own is `leaseHeld`'s SQL). */
  private async fence(projectId: string): Promise<void> {
    await this.claims.fence(projectId);
  }

  private context(history: boolean, tally: WriteTally): WriteContext {
    return { at: isoTime(this.clock.now()), history, tally, fields: this.store.fields };
  }
}

/** True when `held` is a later time than `incoming` (both the service's `updatedAt`). */
function isNewer(held: string | null | undefined, incoming: unknown): boolean {
  if (typeof held !== 'string' || typeof incoming !== 'string') return false;
  const heldMs = Date.parse(held);
  const incomingMs = Date.parse(incoming);
  return Number.isFinite(heldMs) && Number.isFinite(incomingMs) && heldMs > incomingMs;
}
