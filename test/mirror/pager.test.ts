/**
 * The pager hands its writer the pages in read order, `pagesPerWrite` at a time, with one write in
 * flight at most while it reads on (`src/mirror/pager.ts` over the pass's page sink,
 * `src/store/thread/page-sink.ts`): the last pages go even when fewer,
 * a page read before a failed request is written still, and a problem a write finds ends the
 * read at the page it names.
 */
import { describe, expect, it } from 'vitest';
import { TaskPager } from '../../src/mirror/pager.js';
import type { PageProblem, PageRead, Pass } from '../../src/store/port.js';
import { PageWrites, type PageWriter } from '../../src/store/thread/page-sink.js';
import { FakeRemote } from './fake-remote.js';

/**
 * A writer that records each write's pages, one write at a time as the store's units run, and
 * how many writes were asked and not ended at once.
 */
class RecordingWriter implements PageWriter {
  readonly writes: number[][] = [];
  mostOutstanding = 0;
  /** Writes asked and not ended: none once a read has returned or thrown. */
  outstanding = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** The problem to answer for a write holding this page. */
  problemAt: number | undefined;
  /** The page whose write fails (a store error). */
  failAt: number | undefined;

  constructor(readonly pagesPerWrite: number) {}

  async write(pages: readonly PageRead[]): Promise<PageProblem | undefined> {
    this.outstanding += 1;
    this.mostOutstanding = Math.max(this.mostOutstanding, this.outstanding);
    const run = this.queue.then(async () => {
      this.writes.push(pages.map((read) => read.page));
      // A store's write takes a while: the pager reads on meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    this.queue = run;
    await run;
    this.outstanding -= 1;
    if (pages.some((read) => read.page === this.failAt)) throw new Error('the disk is full');
    const problem = pages.find((read) => read.page === this.problemAt);
    return problem && { page: problem.page, problem: 'task t1 appeared twice' };
  }
}

function pager(remote: FakeRemote, writer: PageWriter) {
  const pass: Pick<Pass, 'keptHeads' | 'pages'> = {
    keptHeads: () => Promise.resolve([]),
    pages: () => new PageWrites(writer),
  };
  return new TaskPager({
    remote,
    pass,
    projectId: 'p1',
    pageSize: 10,
    backfill: true,
    counters: { requests: 0, pagesRead: 0, pagesNotModified: 0, looks: new Map() },
    call: {},
    onProgress: undefined,
  });
}

describe('the pager', () => {
  it.each([
    [1, [[1], [2], [3], [4], [5]]],
    [2, [[1, 2], [3, 4], [5]]],
  ])(
    'writes %i page(s) at a time, the next write asked only behind the one in flight, the last ones too',
    async (k, writes) => {
      const remote = new FakeRemote();
      remote.seed('p1', 45);
      const writer = new RecordingWriter(k);
      expect(await pager(remote, writer).read(1)).toEqual({ lastPage: 5, totalCount: 45 });
      expect(writer.writes).toEqual(writes);
      expect(writer.outstanding).toBe(0);
      // One write in flight and the next one queued behind it: never more (memory stays flat).
      expect(writer.mostOutstanding).toBe(2);
    },
  );

  it('writes a page read before a request failed, then throws', async () => {
    const remote = new FakeRemote();
    remote.seed('p1', 45);
    remote.beforePage = (_projectId, page) => {
      if (page === 4) throw new Error('the service fell over');
    };
    const writer = new RecordingWriter(2);
    await expect(pager(remote, writer).read(1)).rejects.toThrow('the service fell over');
    expect(writer.writes).toEqual([[1, 2], [3]]);
    expect(writer.outstanding).toBe(0);
  });

  it('ends the read at the page whose write found a task twice, reading on no further', async () => {
    const remote = new FakeRemote();
    remote.seed('p1', 95);
    const writer = new RecordingWriter(2);
    writer.problemAt = 2;
    const outcome = await pager(remote, writer).read(1);
    expect(outcome).toEqual({ lastPage: 2, totalCount: 95, problem: 'task t1 appeared twice' });
    // Pages 3 and 4 were read while pages 1 and 2 were written; their write ended before this returned.
    expect(writer.writes).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(remote.count('listTasks')).toBe(4);
    expect(writer.outstanding).toBe(0);
  });

  it("throws a write's error once the write started after it has ended too", async () => {
    const remote = new FakeRemote();
    remote.seed('p1', 95);
    const writer = new RecordingWriter(2);
    writer.failAt = 1;
    await expect(pager(remote, writer).read(1)).rejects.toThrow('the disk is full');
    expect(writer.writes).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(writer.outstanding).toBe(0);
  });
});
