/** The end of a consistent pass: the mirror made equal to what was read, in one transaction. */
import { StoreError, type Project } from '../domain/index.js';
import type { MirrorStore } from '../store/mirror-store.js';
import type { IdentifiedRecord, RecordKind } from '../store/project-records.js';
import type { WriteContext } from '../store/write-context.js';
import type { PassGuard } from './guard.js';
import { applyKeptRows, RepeatedTaskError } from './page-writer.js';

/** The per-project lists, in the order they are read and written. */
export const RECORD_KINDS: readonly RecordKind[] = ['members', 'resources', 'dependencies'];

/** The members, resources and dependencies a pass read. */
export type ProjectLists = Record<RecordKind, IdentifiedRecord[]>;

/** What a consistent read found, ready to commit. */
export interface CommitPlan {
  projectId: string;
  project: Project;
  /** A new ETag of the project, when the pass read it with get project. */
  projectEtag: string | undefined;
  /** The first pass: its pages were applied as they came, only deletions remain. */
  backfill: boolean;
  pageSize: number;
  lastPage: number;
  totalCount: number;
  lists: ProjectLists;
  guard: PassGuard;
}

/**
 * Writes the project, every kept page 1..lastPage (rows whose JSON is unchanged are skipped),
 * deletes the tasks not read and the list records gone, drops pages no longer used and records
 * the pass, all in one transaction. Returns a problem instead when a task turns up twice across
 * the kept pages (the collection moved): the transaction then rolls back whole.
 */
export function commitPass(
  store: MirrorStore,
  plan: CommitPlan,
  context: WriteContext,
): string | undefined {
  const { projectId, guard } = plan;
  const before = { ...context.tally };
  try {
    store.transaction(() => {
      if (!guard.project) store.projects.put(plan.project, context);
      if (!plan.backfill) applyKeptPages(store, plan, context);
      for (const taskId of guard.tasks) store.seenTasks.mark(projectId, taskId);
      store.seenTasks.removeUnseen(projectId, context);
      for (const kind of RECORD_KINDS) {
        if (!guard.lists.has(kind))
          store.records[kind].replace(projectId, plan.lists[kind], context);
      }
      store.taskPages.prune(projectId, plan.pageSize, plan.lastPage);
      store.syncState.passCompleted(projectId, {
        at: context.at,
        pagesRead: plan.lastPage,
        totalCount: plan.totalCount,
        projectEtag: plan.projectEtag,
        changed: context.tally.rows > 0,
      });
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof RepeatedTaskError)) throw error;
    Object.assign(context.tally, before);
    return error.message;
  }
}

function applyKeptPages(store: MirrorStore, plan: CommitPlan, context: WriteContext): void {
  const { projectId, pageSize, guard } = plan;
  store.seenTasks.clear(projectId);
  for (let page = 1; page <= plan.lastPage; page++) {
    const kept = store.taskPages.get(projectId, pageSize, page);
    if (kept === undefined) throw new StoreError(`kept page ${page} of ${projectId} is missing`);
    applyKeptRows(store, projectId, kept, guard, context);
  }
}
