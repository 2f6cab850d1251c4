/**
 * A first backfill into PostgreSQL, where the pager hands the store two pages at a time, stopped
 * by the quota and resumed: the pages read before the stop are kept (the one read alone before it
 * too), the resumed read gets 304s for them, the two-page writes that mix a 304 with a page just
 * received go page by page, and the mirror ends equal to the service.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { BudgetExhaustedError } from '../../src/domain/index.js';
import { openConnection } from '../fixtures/connection.js';
import { startPostgres } from '../fixtures/postgres.js';
import { engineOver, remoteTaskIds } from './helpers.js';

const quotaStop = () => new BudgetExhaustedError(Date.UTC(2026, 10, 22), 'daily quota spent');

describe('a first backfill into PostgreSQL, two pages a write', () => {
  it('resumed after the quota stopped it, answers 304 for the pages kept and converges', async () => {
    const server = await startPostgres();
    const db = await openConnection({ db: await server.database() }, 'write');
    onTestFinished(() => db.close());
    const { remote, mirror } = engineOver(db);
    remote.seed('p1', 2345);
    remote.beforeCall = async (call) => {
      if (call.route === 'listTasks' && call.page === 4) throw quotaStop();
    };
    const stopped = await mirror.syncProject('p1');
    // Pages 1 and 2 went together; page 3, read alone before the stop, was written still.
    expect(stopped).toMatchObject({ ok: false, errorCode: 'budget_exhausted', tasks: 1500 });
    const state = db.prepare(`SELECT backfill, pages_read FROM sync_state WHERE project_id = 'p1'`);
    expect(await state.get()).toEqual({ backfill: 'in_progress', pages_read: 3 });

    remote.beforeCall = undefined;
    remote.calls.length = 0;
    // A task of page 2 renamed meanwhile: its page answers 200 now, pages 1 and 3 304. So two
    // of the writes hold a 304 and a page just received ([1, 2] and [3, 4]): page by page.
    remote.tasks.get('p1')![700]!.name = 'Renamed';
    const resumed = await mirror.syncProject('p1');
    expect(resumed).toMatchObject({ ok: true, pagesRead: 5, pagesNotModified: 2, tasks: 2345 });
    expect(remote.calls.filter((c) => c.route === 'listTasks').map((c) => c.status)).toEqual([
      304, 200, 304, 200, 200,
    ]);
    expect(await state.get()).toEqual({ backfill: 'done', pages_read: 5 });
    const held = await db
      .prepare(`SELECT id FROM tasks WHERE project_id = 'p1' ORDER BY id`)
      .pluck()
      .all();
    expect(held).toEqual(remoteTaskIds(remote, 'p1'));
    const renamed = remote.tasks.get('p1')![700]!.id;
    expect(await db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(renamed)).toBe(
      'Renamed',
    );
    // The 304 pages of the mixed writes kept their ETags: the next pass is all 304s.
    remote.calls.length = 0;
    const again = await mirror.syncProject('p1');
    expect(again).toMatchObject({ ok: true, pagesRead: 5, pagesNotModified: 5, rowsWritten: 0 });
  });
});
