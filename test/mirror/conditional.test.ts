import pino from 'pino';
import { storeOver } from '../fixtures/store.js';
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, RateLimitedError } from '../../src/domain/index.js';
import { Mirror } from '../../src/mirror/index.js';
import { openDatabase } from '../../src/store/database.js';
import { FakeClock } from '../fixtures/clock.js';
import { countWrites, mirroredTaskIds, remoteTaskIds, setup, snapshot } from './helpers.js';

const quotaStop = () => new BudgetExhaustedError(Date.UTC(2026, 10, 22), 'daily quota spent');

describe('conditional requests and resumption', () => {
  it('makes an unchanged second pass cost one request per page and write no mirrored row', async () => {
    const { db, remote, clock, mirror } = setup();
    remote.seed('p1', 1234);
    remote.seed('p2', 0);
    expect((await mirror.syncAll()).ok).toBe(true);
    remote.tasks.get('p1')![7]!.name = 'renamed';
    await clock.advance(60_000);
    await mirror.syncAll();
    const pages = db.prepare('SELECT * FROM task_pages ORDER BY project_id, page').all();
    const before = snapshot(db);
    const writes = countWrites(db);
    remote.calls.length = 0;
    await clock.advance(60_000);

    const report = await mirror.syncAll();

    expect(report.ok).toBe(true);
    expect(report.requests).toBe(1 + (3 + 3) + (1 + 3));
    expect(remote.calls.length).toBe(report.requests);
    expect(remote.count('listTasks')).toBe(4);
    expect(remote.count('listTasks', 304)).toBe(4);
    expect(report.projects.map((p) => [p.rowsWritten, p.historyWritten])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(writes()).toBe(0);
    expect(snapshot(db)).toEqual(before);
    expect(db.prepare('SELECT * FROM task_pages ORDER BY project_id, page').all()).toEqual(pages);
    const lastPass = db.prepare('SELECT last_pass_at FROM sync_state WHERE project_id = ?').pluck();
    expect(lastPass.get('p1')).toBe(new Date(clock.now()).toISOString());
  });

  it('keeps a backfill by reference, and puts a task edited or deleted by hand right at the next pass', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1234);
    expect((await mirror.syncProject('p1')).ok).toBe(true);
    // The backfill inserted every page whole: each page is kept as its ids, no second copy.
    expect(db.prepare('SELECT count(*) FROM task_page_refs').pluck().get()).toBe(3);
    const rows = db.prepare('SELECT rows FROM task_pages ORDER BY page').pluck().all() as string[];
    expect(rows.every((ids) => ids.startsWith('["p1-t'))).toBe(true);
    const data = db.prepare('SELECT data FROM tasks WHERE id = ?').pluck();
    const before = [data.get('p1-t8'), data.get('p1-t9')];
    // A user's own SQL: the service still has both tasks as the backfill read them.
    db.prepare(`UPDATE tasks SET name = 'mine', data = '{"id":"p1-t8"}' WHERE id = 'p1-t8'`).run();
    db.prepare(`DELETE FROM tasks WHERE id = 'p1-t9'`).run();
    expect(db.prepare('SELECT count(*) FROM task_page_originals').pluck().get()).toBe(2);
    remote.calls.length = 0;

    const result = await mirror.syncProject('p1');

    // Every page answered 304: the pages' rows came from the texts saved, and put them back.
    expect(result).toMatchObject({ ok: true, pagesRead: 3, pagesNotModified: 3 });
    expect([data.get('p1-t8'), data.get('p1-t9')]).toEqual(before);
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });

  it('asks again only for the page that changed and writes only its changed row', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1234);
    await mirror.syncProject('p1');
    remote.tasks.get('p1')![700]!.progress = 40;
    const writes = countWrites(db);
    remote.calls.length = 0;
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: true, pagesRead: 3, pagesNotModified: 2, rowsWritten: 1 });
    expect(remote.count('getProject', 304)).toBe(1);
    // The task row and one history row.
    expect(writes()).toBe(2);
    const progress = db.prepare('SELECT progress FROM tasks WHERE id = ?').pluck();
    expect(progress.get('p1-t701')).toBe(40);
  });

  it('converges on 304s alone: rows the mirror holds differently, or in excess, are fixed', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    const data = db.prepare('SELECT data FROM tasks WHERE id = ?').pluck();
    const original = data.get('p1-t12');
    db.prepare(
      `UPDATE tasks SET data = json_set(data, '$.name', 'drift'), name = 'drift' WHERE id = ?`,
    ).run('p1-t12');
    const extra = JSON.stringify({ id: 'ghost' });
    db.prepare(
      `INSERT INTO tasks (id, project_id, data, synced_at) VALUES ('ghost', 'p1', ?, 'x')`,
    ).run(extra);
    remote.calls.length = 0;
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: true, pagesRead: 3, pagesNotModified: 3, rowsWritten: 2 });
    expect(data.get('p1-t12')).toBe(original);
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });

  it('resumes a first backfill stopped by the quota: pages already read answer 304', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1234);
    remote.beforeCall = async (call) => {
      if (call.route === 'listTasks' && call.page === 3) throw quotaStop();
    };
    const stopped = await mirror.syncProject('p1');
    expect(stopped).toMatchObject({ ok: false, errorCode: 'budget_exhausted', tasks: 1000 });
    const state = db.prepare('SELECT * FROM sync_state WHERE project_id = ?');
    expect(state.get('p1')).toMatchObject({
      backfill: 'in_progress',
      pages_read: 2,
      total_count: 1234,
    });

    remote.beforeCall = undefined;
    remote.calls.length = 0;
    const resumed = await mirror.syncProject('p1');
    expect(resumed).toMatchObject({ ok: true, pagesRead: 3, pagesNotModified: 2, tasks: 1234 });
    expect(remote.calls.filter((c) => c.route === 'listTasks').map((c) => c.status)).toEqual([
      304, 304, 200,
    ]);
    expect(state.get('p1')).toMatchObject({ backfill: 'done', last_error: null });
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });

  it('leaves the mirror untouched by a later pass stopped by a 429, then resumes it', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    await mirror.syncProject('p1');
    for (const task of remote.tasks.get('p1')!) task.status = 'InProgress';
    const before = snapshot(db);
    remote.beforeCall = async (call) => {
      if (call.route === 'listTasks' && call.page === 3) {
        throw new RateLimitedError('rate_limited', 'slow down', { route: 'listTasks' }, 60_000);
      }
    };
    const stopped = await mirror.syncProject('p1');
    expect(stopped).toMatchObject({ ok: false, errorCode: 'remote_status' });
    expect(snapshot(db)).toEqual(before);

    remote.beforeCall = undefined;
    remote.calls.length = 0;
    const resumed = await mirror.syncProject('p1');
    expect(resumed).toMatchObject({ ok: true, pagesRead: 3, pagesNotModified: 2, rowsWritten: 30 });
    expect(resumed.historyWritten).toBe(30);
    const statuses = db.prepare('SELECT DISTINCT status FROM tasks').pluck().all();
    expect(statuses).toEqual(['InProgress']);
  });

  it('resumes after the process dies mid-pass: a new engine on the same file gets 304s', async () => {
    const { db, file, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    await mirror.syncProject('p1');
    for (const task of remote.tasks.get('p1')!) task.name += ' (v2)';
    remote.beforeCall = async (call) => {
      if (call.page === 3) throw new Error('killed');
    };
    await mirror.syncProject('p1');
    db.close();

    const reopened = openDatabase(file);
    try {
      remote.beforeCall = undefined;
      remote.calls.length = 0;
      const logger = pino({ level: 'silent' });
      const clock = new FakeClock();
      const again = new Mirror({
        store: storeOver(reopened, clock).mirror,
        remote,
        clock,
        logger,
        pageSize: 10,
      });
      const result = await again.syncProject('p1');
      expect(result).toMatchObject({ ok: true, pagesNotModified: 2, rowsWritten: 30 });
      const names = reopened.prepare("SELECT count(*) FROM tasks WHERE name LIKE '% (v2)'");
      expect(names.pluck().get()).toBe(30);
    } finally {
      reopened.close();
    }
  });

  it('stops syncAll at a spent quota: later projects are reported as not attempted', async () => {
    const { remote, mirror } = setup();
    remote.seed('p1', 3);
    remote.seed('p2', 3);
    remote.seed('p3', 3);
    remote.beforeCall = async (call) => {
      if (call.projectId === 'p2') throw quotaStop();
    };
    const report = await mirror.syncAll();
    expect(report.ok).toBe(false);
    expect(report.projects.map((p) => [p.projectId, p.ok, p.errorCode])).toEqual([
      ['p1', true, undefined],
      ['p2', false, 'budget_exhausted'],
      ['p3', false, 'not_attempted'],
    ]);
    expect(report.projects[2]!.error).toMatch(/^not attempted: daily quota spent/);
    expect(remote.calls.some((c) => c.projectId === 'p3')).toBe(false);
  });

  it('stops between pages when its signal aborts, keeping the pages read', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    const controller = new AbortController();
    remote.beforePage = async (_p, page) => {
      if (page === 2) controller.abort();
    };
    const result = await mirror.syncProject('p1', { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, errorCode: 'aborted', pagesRead: 2 });
    expect(remote.count('listTasks')).toBe(2);
    expect(db.prepare('SELECT count(*) FROM task_pages').pluck().get()).toBe(2);
  });
});
