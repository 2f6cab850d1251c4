/**
 * The end of a consistent pass, in two steps, on the store's thread. The survey (here) walks the
 * kept pages outside any write lock, each in a snapshot of its own (on PostgreSQL, ten pages in
 * one statement, which is its own snapshot): it notes every task
 * seen (a task seen twice means the collection moved) and which pages differ from the mirror. The
 * writer's `commitPass` then writes, in one transaction, only those pages, the deletions, the
 * three lists, the project and the bookkeeping; an unchanged pass holds the write lock briefly.
 */
import type { MirrorStore } from '../mirror-store.js';
import type { CommitRequest } from '../port.js';
import type { IdentifiedRecord, RecordKind } from '../project-records.js';
import type { PassGuard } from './guard.js';
import type { Task } from '../../domain/index.js';
import { SURVEY_PAGES_PER_STATEMENT, type PageSurvey } from '../survey-pages.js';
import { decodeRows, keptPageMissing } from '../task-pages.js';

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
  for (let page = 1; page <= plan.lastPage && !plan.backfill;) {
    const found = await surveyPages(store, plan, page);
    for (const one of found) {
      if (!one.kept) throw keptPageMissing(plan.projectId, one.page);
      if (one.repeated !== undefined) return `task ${one.repeated} appeared twice`;
      if (one.differs) changedPages.push(one.page);
    }
    page += found.length;
  }
  return { changedPages, unseen: await countUnseen(store, plan, changedPages.length === 0) };
}

/**
 * Surveys kept pages from `first` on, in order: each page's tasks noted as seen, whether one was
 * seen before, and whether a task of it (not written by another write during the pass) is not
 * in the mirror as the page has it. PostgreSQL: up to `SURVEY_PAGES_PER_STATEMENT` pages in one
 * statement (`SurveyPages`); SQLite: one page, its steps in one snapshot.
 */
async function surveyPages(
  store: MirrorStore,
  plan: CommitPlan,
  first: number,
): Promise<PageSurvey[]> {
  const { projectId, pageSize, guard } = plan;
  if (store.surveyPages) {
    const last = Math.min(plan.lastPage, first + SURVEY_PAGES_PER_STATEMENT - 1);
    return await store.surveyPages.survey(projectId, pageSize, first, last, guard.tasks);
  }
  return await store.snapshot(async () => {
    const kept = await store.taskPages.look(projectId, pageSize, first);
    if (kept === undefined) throw keptPageMissing(projectId, first);
    // A page kept by reference: its ids, and no text to compare but those saved since.
    const texts = 'rows' in kept ? decodeRows(kept.rows) : undefined;
    const ids = 'ids' in kept ? kept.ids : texts!.map((text) => (JSON.parse(text) as Task).id);
    const repeated = await store.seenTasks.markAll(projectId, ids);
    const page = { page: first, kept: true, repeated, differs: false };
    if (repeated !== undefined) return [page];
    if (texts === undefined) {
      const unguarded = ids.filter((id) => !guard.tasks.has(id));
      return [{ ...page, differs: await store.taskPages.referenceDiffers(projectId, unguarded) }];
    }
    const unguarded = ids.flatMap((id, i) =>
      guard.tasks.has(id) ? [] : [[id, texts[i]!] as const],
    );
    return [{ ...page, differs: await store.tasks.anyDiffers(projectId, unguarded) }];
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
