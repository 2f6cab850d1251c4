/**
 * Where each task page read by a pass goes: kept for the commit, or (first pass) applied at once.
 * The main thread's half; the store reads its kept pages back with `src/store/writer/kept-pages.ts`.
 */
import type { Task } from '../domain/index.js';
import { preparePage, type MirrorPort, type PageProblem } from '../store/port.js';

/** A page as the pager read it: its rows (answered 200), or none (304: its kept copy stands). */
export type PageRead =
  | { page: number; notModified: false; etag: string | undefined; rows: Task[]; totalCount: number }
  | { page: number; notModified: true; totalCount: number | undefined };

/**
 * Takes the pages as the pager reads them, in read order, up to `pagesPerWrite` at a time;
 * `write` resolves with the page and problem when a task of one was already seen in this read
 * (the collection moved), else undefined.
 */
export interface PageWriter {
  readonly pagesPerWrite: number;
  write(pages: readonly PageRead[]): Promise<PageProblem | undefined>;
}

/** Where the pages of one project's pass go. */
export interface PageTarget {
  mirror: MirrorPort;
  projectId: string;
  pageSize: number;
}

/** Later passes: a page is only kept; the pass's commit applies every page at once. */
export class StagingWriter implements PageWriter {
  readonly pagesPerWrite = 1;
  private readonly target: PageTarget;

  constructor(target: PageTarget) {
    this.target = target;
  }

  async write(pages: readonly PageRead[]): Promise<undefined> {
    const { mirror, projectId, pageSize } = this.target;
    for (const read of pages) {
      // A 304's kept copy stands as it is.
      if (read.notModified) continue;
      const texts = read.rows.map((task) => JSON.stringify(task));
      await mirror.stagePage(projectId, { pageSize, page: read.page, etag: read.etag }, texts);
    }
    return undefined;
  }
}

/**
 * The first pass (backfill): a page is kept and applied to the mirror in one unit of work as it
 * arrives, so a large project becomes visible as it loads; no history (this is the baseline).
 * `pagesPerWrite` pages go together where the store writes them in one round trip.
 */
export class BackfillWriter implements PageWriter {
  readonly pagesPerWrite: number;
  private readonly target: PageTarget;

  constructor(target: PageTarget, pagesPerWrite: number) {
    this.target = target;
    this.pagesPerWrite = pagesPerWrite;
  }

  write(pages: readonly PageRead[]): Promise<PageProblem | undefined> {
    const { mirror, projectId, pageSize } = this.target;
    return mirror.backfillPages(
      projectId,
      pages.map((read) =>
        read.notModified
          ? {
              place: {
                pageSize,
                page: read.page,
                etag: undefined,
                totalCount: read.totalCount ?? null,
              },
              rows: undefined,
            }
          : {
              place: { pageSize, page: read.page, etag: read.etag, totalCount: read.totalCount },
              rows: preparePage(read.rows),
            },
      ),
    );
  }
}
