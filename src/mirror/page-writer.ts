/** Where each task page read by a pass goes: kept for the commit, or (first pass) applied at once. */
import { StoreError, type Clock, type Task } from '../domain/index.js';
import { isoTime } from '../store/database.js';
import type { MirrorStore } from '../store/mirror-store.js';
import { decodeRows, type KeptPage } from '../store/task-pages.js';
import type { WriteTally } from '../store/write-context.js';
import type { MirrorWriter } from './writer.js';

/** A task read twice within one full read: the collection moved under the pass. */
export class RepeatedTaskError extends Error {
  constructor(taskId: string) {
    super(`task ${taskId} appeared twice`);
  }
}

/** The rows of a kept page, each parsed from its own text, with that text. */
export function keptRows(kept: KeptPage): Array<[Task, string]> {
  return decodeRows(kept.rows).map((text) => [JSON.parse(text) as Task, text]);
}

/** The kept copy of a page, which must be there. */
export function keptPage(
  store: MirrorStore,
  projectId: string,
  pageSize: number,
  page: number,
): KeptPage {
  const kept = store.taskPages.get(projectId, pageSize, page);
  if (kept === undefined) throw new StoreError(`kept page ${page} of ${projectId} is missing`);
  return kept;
}

/** Takes each page as the pager reads it. Either method may throw `RepeatedTaskError`. */
export interface PageWriter {
  /** A page answered 200: its rows, with their ETag and `X-Total-Count`. */
  received(page: number, etag: string | undefined, rows: Task[], totalCount: number): void;
  /** A page answered 304: its kept copy stands. */
  reused(page: number, totalCount: number | undefined): void;
}

/** Where the pages of one project's pass are kept. */
export interface PageTarget {
  store: MirrorStore;
  clock: Clock;
  projectId: string;
  pageSize: number;
}

/** Later passes: a page is only kept; the pass's commit applies every page at once. */
export class StagingWriter implements PageWriter {
  private readonly target: PageTarget;

  constructor(target: PageTarget) {
    this.target = target;
  }

  received(page: number, etag: string | undefined, rows: Task[]): void {
    const { store, clock, projectId, pageSize } = this.target;
    const texts = rows.map((row) => JSON.stringify(row));
    store.taskPages.put(projectId, pageSize, page, etag, texts, isoTime(clock.now()));
  }

  reused(): void {}
}

/**
 * The first pass (backfill): a page is kept and applied to the mirror (through the writer) in one
 * transaction as it arrives, so a large project becomes visible as it loads; no history (this is
 * the baseline).
 */
export class BackfillWriter implements PageWriter {
  private readonly target: PageTarget;
  private readonly writer: MirrorWriter;
  private readonly tally: WriteTally;

  constructor(target: PageTarget, writer: MirrorWriter, tally: WriteTally) {
    this.target = target;
    this.writer = writer;
    this.tally = tally;
  }

  received(page: number, etag: string | undefined, rows: Task[], totalCount: number): void {
    const { store, clock, projectId, pageSize } = this.target;
    const texts = rows.map((row) => JSON.stringify(row));
    const pairs = rows.map((row, index): [Task, string] => [row, texts[index] as string]);
    this.writer.backfillPage(projectId, pairs, this.options(true), () => {
      store.taskPages.put(projectId, pageSize, page, etag, texts, isoTime(clock.now()));
      store.syncState.backfillProgress(projectId, page, totalCount);
    });
  }

  reused(page: number, totalCount: number | undefined): void {
    const { store, projectId, pageSize } = this.target;
    const rows = keptRows(keptPage(store, projectId, pageSize, page));
    this.writer.backfillPage(projectId, rows, this.options(false), () => {
      store.syncState.backfillProgress(projectId, page, totalCount ?? null);
    });
  }

  /** A second sighting of a task within one read throws `RepeatedTaskError`. */
  private options(fresh: boolean) {
    const { store, projectId } = this.target;
    const markSeen = (taskIds: readonly string[]) => {
      const repeated = store.seenTasks.markAll(projectId, taskIds);
      if (repeated !== undefined) throw new RepeatedTaskError(repeated);
    };
    return { fresh, tally: this.tally, markSeen };
  }
}
