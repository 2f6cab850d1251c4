/**
 * One full read of a project's tasks (spec 4.2): constant page size, pages upward from 1, stop
 * when the rows read reach `X-Total-Count`. Each page is asked with the ETag of its kept copy, so
 * an unchanged page costs a 304 and no transfer. An attempt that finds the collection moved (the
 * total changed, a page came short or empty before the total, a row came twice, pages ran past
 * the total) ends at once with a `problem`, for the caller to repeat once.
 */
import {
  checkTaskPage,
  checkTotalCount,
  MalformedResponseError,
  type RemoteApi,
  type RemoteContext,
  type Task,
} from '../domain/index.js';
import type { KeptHead, MirrorPort } from '../store/port.js';
import type { PageWriter } from './page-writer.js';
import { PAGE_SLACK, type SyncOptions, type SyncProgress } from './types.js';

/** Request counts of a pass, shared by its attempts: HTTP requests sent, pages read. */
export interface PassCounters {
  requests: number;
  pagesRead: number;
  pagesNotModified: number;
}

/** How an attempt ended: the pages that hold the collection, or why it must be repeated. */
export interface AttemptOutcome {
  lastPage: number;
  totalCount: number;
  problem?: string;
}

/** Everything one project's reads need. */
export interface PagerSetup {
  remote: RemoteApi;
  mirror: MirrorPort;
  writer: PageWriter;
  projectId: string;
  pageSize: number;
  backfill: boolean;
  counters: PassCounters;
  call: SyncOptions;
  onProgress: ((progress: SyncProgress) => void) | undefined;
}

interface PageRead {
  count: number;
  totalCount: number | undefined;
  notModified: boolean;
  /** The page's write to the store: the problem when one of its tasks was seen before. */
  written: Promise<string | undefined>;
}

/** Reads a project's task pages, one attempt at a time. */
export class TaskPager {
  private readonly setup: PagerSetup;

  constructor(setup: PagerSetup) {
    this.setup = setup;
  }

  /**
   * One full read. Throws on remote errors and malformed pages; returns `problem` if it moved.
   * Pipelined: the next page is requested and parsed while the store writes the one before (one
   * write in flight at most, so memory stays flat); every write has ended when this returns.
   */
  async read(attempt: number): Promise<AttemptOutcome> {
    const { pageSize, mirror, projectId } = this.setup;
    const kept = new Map(await mirror.keptHeads(projectId, pageSize));
    let writing: Promise<string | undefined> = Promise.resolve(undefined);
    let writingPage = 0;
    /** The outcome, once the write in flight has ended (a task it found repeated comes first). */
    const settled = async (outcome: AttemptOutcome): Promise<AttemptOutcome> => {
      const repeated = await writing;
      if (repeated === undefined) return outcome;
      return { lastPage: writingPage, totalCount: outcome.totalCount, problem: repeated };
    };
    let rowsRead = 0;
    let firstTotal: number | undefined;
    for (let page = 1; ; page++) {
      const limit = firstTotal === undefined ? Infinity : Math.ceil(firstTotal / pageSize);
      if (page > limit + PAGE_SLACK) {
        const problem = `${page - 1} pages did not reach X-Total-Count ${firstTotal}`;
        return settled({ lastPage: page - 1, totalCount: rowsRead, problem });
      }
      let read: PageRead;
      try {
        read = await this.readPage(page, kept.get(page));
      } catch (error) {
        await writing.catch(() => undefined);
        throw error;
      }
      let repeated: string | undefined;
      try {
        repeated = await writing;
      } catch (error) {
        read.written.catch(() => undefined);
        throw error;
      }
      if (repeated !== undefined) {
        await read.written.catch(() => undefined);
        return { lastPage: writingPage, totalCount: firstTotal ?? rowsRead, problem: repeated };
      }
      writing = read.written;
      writingPage = page;
      const moved = this.moved(firstTotal, read.totalCount);
      firstTotal ??= read.totalCount;
      rowsRead += read.count;
      const total = firstTotal;
      this.report({
        attempt,
        page,
        tasksRead: rowsRead,
        totalCount: total,
        notModified: read.notModified,
      });
      const outcome = { lastPage: page, totalCount: total ?? rowsRead };
      if (moved !== undefined) return settled({ ...outcome, problem: moved });
      // Without any X-Total-Count (304s that omit it) the first short page ends the collection.
      if (total === undefined) {
        if (read.count < pageSize) return settled(outcome);
        continue;
      }
      if (rowsRead === total) return settled(outcome);
      if (rowsRead > total)
        return settled({ ...outcome, problem: `${rowsRead} rows, X-Total-Count ${total}` });
      if (read.count < pageSize) {
        const problem = `page ${page} held ${read.count} rows before X-Total-Count ${total} was reached`;
        return settled({ ...outcome, problem });
      }
    }
  }

  private moved(first: number | undefined, total: number | undefined): string | undefined {
    if (first === undefined || total === undefined || first === total) return undefined;
    return `X-Total-Count moved from ${first} to ${total}`;
  }

  /** Requests and checks one page, and starts its write (not awaited: see `read`). */
  private async readPage(page: number, kept: KeptHead | undefined): Promise<PageRead> {
    const { remote, writer, projectId, pageSize, counters, call } = this.setup;
    call.signal?.throwIfAborted();
    const context: RemoteContext = { route: 'listTasks', projectId, page };
    const answer = await remote.listTasksPage(projectId, page, pageSize, kept?.etag ?? undefined, {
      signal: call.signal,
      purpose: call.purpose ?? 'poll',
      onSent: () => (counters.requests += 1),
    });
    counters.pagesRead += 1;
    if (answer.notModified) {
      if (kept?.etag == null) {
        throw new MalformedResponseError(context, '304 Not Modified to a request without ETag');
      }
      counters.pagesNotModified += 1;
      const total =
        answer.totalCount === undefined ? undefined : checkTotalCount(answer.totalCount, context);
      const written = handled(writer.reused(page, total));
      return { count: kept.rowCount, totalCount: total, notModified: true, written };
    }
    const rows: Task[] = checkTaskPage(answer.rows, pageSize, context);
    const total = checkTotalCount(answer.totalCount, context);
    const written = handled(writer.received(page, answer.etag, rows, total));
    return { count: rows.length, totalCount: total, notModified: false, written };
  }

  private report(progress: Omit<SyncProgress, 'projectId' | 'backfill'>): void {
    const { onProgress, projectId, backfill } = this.setup;
    onProgress?.({ projectId, backfill, ...progress });
  }
}

/**
 * `write`, marked as handled at once: it is awaited only after the next page's request, and a
 * store failure meanwhile must not count as an unhandled rejection (which ends the process);
 * awaiting it still throws.
 */
function handled<T>(write: Promise<T>): Promise<T> {
  write.catch(() => undefined);
  return write;
}
