/**
 * A poll that read one page of a project's tasks, or its side lists, written on the store's
 * thread. A single page is not a consistent read of the project: it may update the tasks the
 * page holds, never create or delete one. It is written only when the service's `X-Total-Count`
 * is still the total of the last consistent pass and the page's ids are the kept page's ids in
 * the same order; otherwise the caller turns it into a full consistent pass (`escalate`).
 */
import type { Project, RecordChange, Task } from '../../domain/index.js';
import { isoTime } from '../database.js';
import type { MirrorStore } from '../mirror-store.js';
import type { IdentifiedRecord, RecordKind } from '../project-records.js';
import { decodeRows } from '../task-pages.js';
import type { MirrorWriter } from './writer.js';

/** One page as a single-page poll read it. */
export interface PolledPage {
  projectId: string;
  pageSize: number;
  page: number;
  /** The page's new ETag (200), or undefined. */
  etag: string | undefined;
  /** `X-Total-Count` with the answer, when the service sent one. */
  totalCount: number | undefined;
  /** The page's rows (200), each its JSON text; undefined for a 304. */
  texts: string[] | undefined;
}

/**
 * What became of a polled page: `unchanged` (a 304, or a 200 with what the mirror holds),
 * `written` (rows updated), `escalate` (the read cannot be applied alone: a full pass is due),
 * or `busy` (a pass of the project is in flight and will settle the page).
 */
export type PagePollOutcome =
  | { kind: 'unchanged' }
  | {
      kind: 'written';
      rows: number;
      /** Each written task's `updatedAt`, in ms. */ changedAt: number[];
    }
  | { kind: 'escalate'; reason: string }
  | { kind: 'busy' };

/** The project and its three lists, as a side-list poll read them (each list whole). */
export interface PolledLists {
  project: Project;
  lists: Record<RecordKind, IdentifiedRecord[]>;
}

const LIST_TYPE = { members: 'member', resources: 'resource', dependencies: 'dependency' } as const;

/**
 * Applies a polled page (see the module comment): in one transaction the changed rows through the
 * one writer (never over a copy with a later `updatedAt`, never a task the mirror does not hold
 * in this project), then the page kept with its new ETag. Deletes nothing.
 */
export async function applyPolledPage(
  store: MirrorStore,
  writer: MirrorWriter,
  polled: PolledPage,
  now: number,
): Promise<PagePollOutcome> {
  const { projectId, pageSize, page } = polled;
  return await store.transaction(async (): Promise<PagePollOutcome> => {
    const state = await store.syncState.get(projectId);
    if (!(await store.syncState.hasBaseline(projectId)) || state?.totalCount == null) {
      return { kind: 'escalate', reason: 'no consistent pass to compare with' };
    }
    if (polled.totalCount !== undefined && polled.totalCount !== state.totalCount) {
      return {
        kind: 'escalate',
        reason: `X-Total-Count moved from ${state.totalCount} to ${polled.totalCount}`,
      };
    }
    if (polled.texts === undefined) return { kind: 'unchanged' };
    if (polled.totalCount === undefined) {
      return { kind: 'escalate', reason: 'a page without X-Total-Count' };
    }
    const kept = await store.taskPages.look(projectId, pageSize, page);
    if (kept === undefined) return { kind: 'escalate', reason: `page ${page} is not kept` };
    // Only the ids: a page kept by reference has them as such, none of its texts rebuilt.
    const keptIds =
      'ids' in kept ? kept.ids : decodeRows(kept.rows).map((text) => (JSON.parse(text) as Task).id);
    const tasks = polled.texts.map((text) => JSON.parse(text) as Task);
    const ids = tasks.map((task) => task.id);
    if (ids.length !== keptIds.length || ids.some((id, i) => id !== keptIds[i])) {
      return { kind: 'escalate', reason: `the rows of page ${page} shifted` };
    }
    const changes: RecordChange[] = [];
    const written: Task[] = [];
    // The mirror's copies in one read, not a query a task.
    const heldAll = await store.tasks.findEach(ids);
    for (let i = 0; i < tasks.length; i++) {
      const held = heldAll[i];
      // A task the mirror does not hold here was deleted by an event: only a full pass settles it.
      if (held === undefined || held.projectId !== projectId || held.data === polled.texts[i]) {
        continue;
      }
      changes.push({ op: 'put', type: 'task', projectId, record: tasks[i]! });
      written.push(tasks[i]!);
    }
    let rows = 0;
    if (changes.length > 0) {
      const outcome = await writer.applyChanges(projectId, changes, 'list tasks page');
      if (outcome === 'unknown_project') {
        return { kind: 'escalate', reason: 'the project is not mirrored' };
      }
      rows = outcome === 'changed' ? changes.length : 0;
    }
    await store.taskPages.put(projectId, pageSize, page, polled.etag, polled.texts, isoTime(now));
    if (rows === 0) return { kind: 'unchanged' };
    const changedAt = written.map((task) => Date.parse(task.updatedAt ?? ''));
    return { kind: 'written', rows, changedAt: changedAt.filter(Number.isFinite) };
  });
}

/** Applies a side-list poll: the project record and each list replaced (each read whole). */
export async function applyPolledLists(
  writer: MirrorWriter,
  polled: PolledLists,
): Promise<boolean> {
  const projectId = polled.project.id;
  const changes: RecordChange[] = [
    { op: 'put', type: 'project', projectId, record: polled.project },
    ...(Object.keys(LIST_TYPE) as RecordKind[]).map((kind): RecordChange => ({
      op: 'replace',
      type: LIST_TYPE[kind],
      projectId,
      records: polled.lists[kind],
    })),
  ];
  return (await writer.applyChanges(projectId, changes, 'side lists')) === 'changed';
}
