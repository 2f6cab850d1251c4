/**
 * Where the pages of one attempt go, on the main thread's side of the store: gathered up to the
 * number of pages the store writes at once, and handed to it as one unit behind the one in
 * flight (`PageWrites`); kept for the commit (`StagingWriter`) or, for a backfill, applied as
 * they come (`BackfillWriter`).
 */
import type { PageProblem, PageRead, PageSink } from '../port.js';
import { preparePage } from '../task-rows.js';
import type { StorePass } from './pass-units.js';
import type { AsyncGroup } from './units.js';

/**
 * Takes the pages in read order, up to `pagesPerWrite` at a time; `write` resolves with the page
 * and problem when a task of one was already seen in this read (the collection moved), else
 * undefined.
 */
export interface PageWriter {
  readonly pagesPerWrite: number;
  write(pages: readonly PageRead[]): Promise<PageProblem | undefined>;
}

/** Where the pages of one project's pass go: its units, at one page size. */
export interface PageTarget {
  units: Pick<AsyncGroup<StorePass>, 'stagePage' | 'backfillPages'>;
  pageSize: number;
}

/**
 * The writes of one attempt's pages, in read order: pages gather until the writer takes
 * `pagesPerWrite` of them, and then go as one write behind the one in flight, which is awaited.
 * So one write is in flight at most while the next pages are requested and parsed (memory stays
 * flat), and a write's problem is known once the next `pagesPerWrite` pages are read.
 */
export class PageWrites implements PageSink {
  private readonly writer: PageWriter;
  private gathered: PageRead[] = [];
  private inFlight: Promise<PageProblem | undefined> = Promise.resolve(undefined);

  constructor(writer: PageWriter) {
    this.writer = writer;
  }

  /** Takes a page read; a problem when a write ended with one (the read then ends). */
  async add(read: PageRead): Promise<PageProblem | undefined> {
    this.gathered.push(read);
    if (this.gathered.length < this.writer.pagesPerWrite) return undefined;
    return await this.flush();
  }

  /** Every page read written and every write ended: the first problem, if any. */
  async finish(): Promise<PageProblem | undefined> {
    return (await this.flush()) ?? (await this.inFlight);
  }

  /** A read failed: what was read is written still, and every write has ended (errors dropped). */
  async abandon(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.inFlight.catch(() => undefined);
  }

  /** Starts the gathered pages' write behind the one in flight, and awaits that one. */
  private async flush(): Promise<PageProblem | undefined> {
    const previous = this.inFlight;
    if (this.gathered.length > 0) {
      this.inFlight = handled(this.writer.write(this.gathered));
      this.gathered = [];
    }
    let problem: PageProblem | undefined;
    try {
      problem = await previous;
    } catch (error) {
      // A write failed: the one just started ends too before the read does.
      await this.inFlight.catch(() => undefined);
      throw error;
    }
    if (problem !== undefined) await this.inFlight.catch(() => undefined);
    return problem;
  }
}

/** Later passes: a page is only kept; the pass's commit applies every page at once. */
export class StagingWriter implements PageWriter {
  readonly pagesPerWrite = 1;
  private readonly target: PageTarget;

  constructor(target: PageTarget) {
    this.target = target;
  }

  async write(pages: readonly PageRead[]): Promise<undefined> {
    const { units, pageSize } = this.target;
    for (const read of pages) {
      // A 304's kept copy stands as it is.
      if (read.notModified) continue;
      const texts = read.rows.map((task) => JSON.stringify(task));
      await units.stagePage({ pageSize, page: read.page, etag: read.etag }, texts);
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
    const { units, pageSize } = this.target;
    return units.backfillPages(
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

/**
 * `write`, marked as handled at once: it is awaited only after the next pages' requests, and a
 * store failure meanwhile must not count as an unhandled rejection (which ends the process);
 * awaiting it still throws.
 */
function handled<T>(write: Promise<T>): Promise<T> {
  write.catch(() => undefined);
  return write;
}
