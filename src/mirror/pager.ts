/**
 * One full read of a project's tasks (spec 4.2): constant page size, pages upward from 1, stop
 * when the rows read reach `X-Total-Count`. Each page is asked with the ETag of its kept copy, so
 * an unchanged page costs a 304 and no transfer. An attempt that finds the collection moved (the
 * total changed, a page came short or empty before the total, a row came twice, pages ran past
 * the total) ends at once with a `problem`, for the caller to repeat once.
 */
import { MalformedResponseError, type RemoteApi, type RemoteContext } from '../domain/index.js';
import type { KeptHead, PageRead, Pass } from '../store/port.js';
import { PAGE_SLACK, type SyncOptions, type SyncProgress } from './types.js';

/** Request counts of a pass, shared by its attempts: HTTP requests sent, pages read. */
export interface PassCounters {
  requests: number;
  pagesRead: number;
  pagesNotModified: number;
  /** Each page asked with a kept ETag: whether it changed since (a 200) or not (a 304). */
  looks: Map<number, boolean>;
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
  /** The pass in flight: its kept pages' heads, and where an attempt's pages go. */
  pass: Pick<Pass, 'keptHeads' | 'pages'>;
  projectId: string;
  pageSize: number;
  backfill: boolean;
  counters: PassCounters;
  call: SyncOptions;
  onProgress: ((progress: SyncProgress) => void) | undefined;
}

/** A page read, and how many rows it stood for. */
interface ReadResult {
  read: PageRead;
  count: number;
  totalCount: number | undefined;
}

/** Reads a project's task pages, one attempt at a time. */
export class TaskPager {
  private readonly setup: PagerSetup;

  constructor(setup: PagerSetup) {
    this.setup = setup;
  }

  /**
   * One full read. Throws on remote errors and malformed pages; returns `problem` if it moved.
   * Pipelined: the next pages are requested and parsed while the store writes the ones before
   * (the pass's `PageSink`); every write has ended when this returns.
   */
  async read(attempt: number): Promise<AttemptOutcome> {
    const { pageSize, pass, backfill } = this.setup;
    const kept = new Map(await pass.keptHeads(pageSize));
    const writes = pass.pages(pageSize, backfill);
    /** The outcome, once every write has ended (a task one found repeated comes first). */
    const settled = async (outcome: AttemptOutcome): Promise<AttemptOutcome> => {
      const repeated = await writes.finish();
      if (repeated === undefined) return outcome;
      return { lastPage: repeated.page, totalCount: outcome.totalCount, problem: repeated.problem };
    };
    let rowsRead = 0;
    let firstTotal: number | undefined;
    for (let page = 1; ; page++) {
      const limit = firstTotal === undefined ? Infinity : Math.ceil(firstTotal / pageSize);
      if (page > limit + PAGE_SLACK) {
        const problem = `${page - 1} pages did not reach X-Total-Count ${firstTotal}`;
        return settled({ lastPage: page - 1, totalCount: rowsRead, problem });
      }
      let result: ReadResult;
      try {
        result = await this.readPage(page, kept.get(page));
      } catch (error) {
        await writes.abandon();
        throw error;
      }
      const repeated = await writes.add(result.read);
      if (repeated !== undefined) {
        const totalCount = firstTotal ?? rowsRead;
        return { lastPage: repeated.page, totalCount, problem: repeated.problem };
      }
      const moved = this.moved(firstTotal, result.totalCount);
      firstTotal ??= result.totalCount;
      rowsRead += result.count;
      const total = firstTotal;
      this.report({
        attempt,
        page,
        tasksRead: rowsRead,
        totalCount: total,
        notModified: result.read.notModified,
      });
      const outcome = { lastPage: page, totalCount: total ?? rowsRead };
      if (moved !== undefined) return settled({ ...outcome, problem: moved });
      // Without any X-Total-Count (304s that omit it) the first short page ends the collection.
      if (total === undefined) {
        if (result.count < pageSize) return settled(outcome);
        continue;
      }
      if (rowsRead === total) return settled(outcome);
      if (rowsRead > total)
        return settled({ ...outcome, problem: `${rowsRead} rows, X-Total-Count ${total}` });
      if (result.count < pageSize) {
        const problem = `page ${page} held ${result.count} rows before X-Total-Count ${total} was reached`;
        return settled({ ...outcome, problem });
      }
    }
  }

  private moved(first: number | undefined, total: number | undefined): string | undefined {
    if (first === undefined || total === undefined || first === total) return undefined;
    return `X-Total-Count moved from ${first} to ${total}`;
  }

  /** Requests and checks one page (its write is the caller's: see `read`). */
  private async readPage(page: number, kept: KeptHead | undefined): Promise<ReadResult> {
    const { remote, projectId, pageSize, counters, call } = this.setup;
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
      counters.looks.set(page, false);
      const total = answer.totalCount;
      const read: PageRead = { page, notModified: true, totalCount: total };
      return { read, count: kept.rowCount, totalCount: total };
    }
    // The page was checked where it entered (`RemoteApi` returns checked pages).
    const { rows, totalCount: total } = answer;
    if (kept?.etag != null) counters.looks.set(page, true);
    const read: PageRead = { page, notModified: false, etag: answer.etag, rows, totalCount: total };
    return { read, count: rows.length, totalCount: total };
  }

  private report(progress: Omit<SyncProgress, 'projectId' | 'backfill'>): void {
    const { onProgress, projectId, backfill } = this.setup;
    onProgress?.({ projectId, backfill, ...progress });
  }
}
