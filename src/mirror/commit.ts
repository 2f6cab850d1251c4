/**
 * The end of a consistent pass, in two steps, on the store's thread. The survey (here) walks the
 * kept pages outside any write lock, a page at a time in its own snapshot: it notes every task
 * seen (a task seen twice means the collection moved) and which pages differ from the mirror. The
 * writer's `commitPass` then writes, in one transaction, only those pages, the deletions, the
 * three lists, the project and the bookkeeping; an unchanged pass holds the write lock briefly.
 */
import type { MirrorStore } from '../store/mirror-store.js';
import type { CommitRequest } from '../store/port.js';
import type { IdentifiedRecord, RecordKind } from '../store/project-records.js';
import type { PassGuard } from './guard.js';
import type { Task } from '../domain/index.js';
import { decodeRows } from '../store/task-pages.js';
import { keptPage } from './page-writer.js';

/** The members, resources and dependencies a pass read. */
export type ProjectLists = Record<RecordKind, IdentifiedRecord[]>;

/** A consistent read as the store commits it, with the guard of the pass that read it. */
export type CommitPlan = CommitRequest & { guard: PassGuard };

/** What the survey found: the pages to write and whether any task is to be deleted. */
export interface Survey {
  changedPages: number[];
  unseen: number;
}

/**
 * Walks the kept pages 1..lastPage (not for a backfill, whose pages were applied as read),
 * noting each task seen and each page holding a row the mirror does not have as is. Returns a
 * problem instead when a task turns up twice: the read must be repeated.
 */
export async function survey(store: MirrorStore, plan: CommitPlan): Promise<Survey | string> {
  const changedPages: number[] = [];
  // The attempt cleared the tasks seen before it read: only the survey marks them here.
  for (let page = 1; page <= plan.lastPage && !plan.backfill; page++) {
    const found = await surveyPage(store, plan, page);
    if (typeof found === 'string') return found;
    if (found) changedPages.push(page);
  }
  return { changedPages, unseen: await countUnseen(store, plan, changedPages.length === 0) };
}

/**
 * Notes a kept page's tasks as seen; a problem if one was seen before, else whether a task of it
 * (not written by another write during the pass) is not in the mirror as the page has it.
 * PostgreSQL: one statement (`SurveyPages`); SQLite: the same steps in one snapshot.
 */
async function surveyPage(
  store: MirrorStore,
  plan: CommitPlan,
  page: number,
): Promise<boolean | string> {
  const { projectId, pageSize, guard } = plan;
  if (store.surveyPages) {
    const found = await store.surveyPages.survey(projectId, pageSize, page, guard.tasks);
    return found.repeated === undefined ? found.differs : `task ${found.repeated} appeared twice`;
  }
  return await store.snapshot(async () => {
    const texts = decodeRows((await keptPage(store, projectId, pageSize, page)).rows);
    const ids = texts.map((text) => (JSON.parse(text) as Task).id);
    const repeated = await store.seenTasks.markAll(projectId, ids);
    if (repeated !== undefined) return `task ${repeated} appeared twice`;
    const unguarded = ids.flatMap((id, i) =>
      guard.tasks.has(id) ? [] : [[id, texts[i]!] as const],
    );
    return await store.tasks.anyDiffers(projectId, unguarded);
  });
}

/**
 * How many mirrored tasks of the project the read did not see. When every task seen is known to
 * be in the mirror (a backfill puts each row it reads; an unchanged pass found each one), this
 * is a difference of two counts; otherwise a scan.
 */
async function countUnseen(
  store: MirrorStore,
  plan: CommitPlan,
  unchanged: boolean,
): Promise<number> {
  const { projectId } = plan;
  if (plan.guard.tasks.size === 0 && (plan.backfill || unchanged)) {
    return (await store.tasks.count(projectId)) - (await store.seenTasks.count(projectId));
  }
  return await store.seenTasks.countUnseen(projectId);
}
