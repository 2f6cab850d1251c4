/** Where each task page read by a pass goes: kept for the commit, or (first pass) applied at once. */
import type { Task } from '../domain/index.js';
import type { MirrorStore } from '../store/mirror-store.js';
import type { MirrorPort } from '../store/port.js';
import { keptPageMissing, type KeptPage } from '../store/task-pages.js';
import { rowsOfKept, taskRows, type TaskRows } from '../store/task-rows.js';

/** The kept copy of a page, which must be there. */
export async function keptPage(
  store: MirrorStore,
  projectId: string,
  pageSize: number,
  page: number,
): Promise<KeptPage> {
  const kept = await store.taskPages.get(projectId, pageSize, page);
  if (kept === undefined) throw keptPageMissing(projectId, page);
  return kept;
}

/** The rows of a kept page, which must be there, each parsed from its own text. */
export async function keptRows(
  store: MirrorStore,
  projectId: string,
  pageSize: number,
  page: number,
): Promise<TaskRows> {
  return rowsOfKept((await keptPage(store, projectId, pageSize, page)).rows);
}

/**
 * Takes each page as the pager reads it; each method resolves with the problem when a task of the
 * page was already seen in this read (the collection moved), else undefined.
 */
export interface PageWriter {
  /** A page answered 200: its rows, with their ETag and `X-Total-Count`. */
  received(
    page: number,
    etag: string | undefined,
    rows: Task[],
    totalCount: number,
  ): Promise<string | undefined>;
  /** A page answered 304: its kept copy stands. */
  reused(page: number, totalCount: number | undefined): Promise<string | undefined>;
}

/** Where the pages of one project's pass go. */
export interface PageTarget {
  mirror: MirrorPort;
  projectId: string;
  pageSize: number;
}

/** Later passes: a page is only kept; the pass's commit applies every page at once. */
export class StagingWriter implements PageWriter {
  private readonly target: PageTarget;

  constructor(target: PageTarget) {
    this.target = target;
  }

  async received(page: number, etag: string | undefined, rows: Task[]): Promise<undefined> {
    const { mirror, projectId, pageSize } = this.target;
    const texts = rows.map((task) => JSON.stringify(task));
    await mirror.stagePage(projectId, { pageSize, page, etag }, texts);
    return undefined;
  }

  reused(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
}

/**
 * The first pass (backfill): a page is kept and applied to the mirror in one unit of work as it
 * arrives, so a large project becomes visible as it loads; no history (this is the baseline).
 */
export class BackfillWriter implements PageWriter {
  private readonly target: PageTarget;

  constructor(target: PageTarget) {
    this.target = target;
  }

  received(
    page: number,
    etag: string | undefined,
    rows: Task[],
    totalCount: number,
  ): Promise<string | undefined> {
    const { mirror, projectId, pageSize } = this.target;
    return mirror.backfillPage(projectId, { pageSize, page, etag, totalCount }, taskRows(rows));
  }

  reused(page: number, totalCount: number | undefined): Promise<string | undefined> {
    const { mirror, projectId, pageSize } = this.target;
    const at = { pageSize, page, etag: undefined, totalCount: totalCount ?? null };
    return mirror.backfillPage(projectId, at, undefined);
  }
}
