import { describe, expect, it } from 'vitest';
import { makeTask } from './fake-remote.js';
import { mirroredTaskIds, remoteTaskIds, setup, snapshot } from './helpers.js';

describe('a full read of a project', () => {
  it.each([0, 1, 499, 500, 501, 1234])('mirrors %i tasks in ceil(n/500) pages', async (n) => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', n);
    const report = await mirror.syncAll();
    expect(report.ok).toBe(true);
    const result = report.projects[0]!;
    const pages = Math.max(1, Math.ceil(n / 500));
    expect(result).toMatchObject({ ok: true, pagesRead: pages, pagesNotModified: 0, tasks: n });
    expect(result.requests).toBe(pages + 3);
    expect(remote.count('listTasks')).toBe(pages);
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
    const data = db.prepare('SELECT data FROM tasks WHERE id = ?').pluck();
    for (const task of remote.tasks.get('p1')!)
      expect(data.get(task.id)).toBe(JSON.stringify(task));
  });

  it('repeats once when tasks are added while paging, and converges', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    let added = false;
    remote.beforePage = async (_p, page) => {
      if (page === 2 && !added) {
        added = true;
        remote.tasks.get('p1')!.unshift(makeTask('new-1'));
      }
    };
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: true, attempts: 2, tasks: 26 });
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });

  it('repeats once when tasks are removed while paging, and converges', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    let removed = false;
    remote.beforePage = async (_p, page) => {
      if (page === 2 && !removed) {
        removed = true;
        remote.tasks.get('p1')!.splice(0, 3);
      }
    };
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: true, attempts: 2, tasks: 22 });
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });

  it('repeats when a row is replaced by another while the total stays (a row read twice)', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 20);
    await mirror.syncProject('p1');
    let done = false;
    remote.beforePage = async (_p, page) => {
      if (page === 2 && !done) {
        done = true;
        const tasks = remote.tasks.get('p1')!;
        tasks.unshift(makeTask('front'));
        tasks.pop();
      }
    };
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: true, attempts: 2, tasks: 20 });
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });

  it('fails after one repeat when the total keeps moving, leaving the mirror as it was', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    remote.tasks.get('p1')![0]!.name = 'renamed';
    const before = snapshot(db);
    let added = 0;
    remote.beforePage = async (_p, page) => {
      if (page === 2) remote.tasks.get('p1')!.push(makeTask(`more-${++added}`));
    };
    const result = await mirror.syncProject('p1');
    expect(result.ok).toBe(false);
    expect(result.errorCode).toBe('read_inconsistent');
    expect(result.error).toMatch(/X-Total-Count moved from 2\d to 2\d \(after one repeat\)/);
    expect(result.attempts).toBe(2);
    expect(snapshot(db)).toEqual(before);
    const state = db.prepare('SELECT last_error FROM sync_state WHERE project_id = ?').pluck();
    expect(state.get('p1')).toMatch(/after one repeat/);
  });

  it('stops with an error when the service never reaches its total (empty pages)', async () => {
    const { remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 15);
    remote.pageOverride = (page, served) => ({
      rows: page >= 2 ? [] : served.rows,
      totalCount: 1000,
    });
    const result = await mirror.syncProject('p1');
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/page 2 held 0 rows before X-Total-Count 1000/);
    expect(remote.count('listTasks')).toBe(4);
  });

  it('stops with an error when full pages never reach a total that grows with them', async () => {
    const { remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 0);
    remote.pageOverride = (page) => ({
      rows: Array.from({ length: 10 }, (_, i) => makeTask(`y${page}-${i}`)),
      totalCount: 10 * page + 10,
    });
    const runaway = await mirror.syncProject('p1');
    expect(runaway.ok).toBe(false);
    expect(runaway.error).toMatch(/X-Total-Count moved from 20 to 30/);
    expect(runaway.pagesRead).toBe(4);
  });

  it('rejects a page with more rows than pageSize without repeating', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    await mirror.syncProject('p1');
    const before = snapshot(db);
    remote.tasks.get('p1')![25]!.name = 'changed';
    remote.pageOverride = (page, served) =>
      page === 2 ? { rows: remote.tasks.get('p1')!.slice(10, 21), totalCount: 30 } : served;
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: false, errorCode: 'remote_malformed', attempts: 1 });
    expect(result.error).toMatch(
      /listTasks of p1 page 2: malformed response: 11 rows for a pageSize of 10/,
    );
    expect(snapshot(db)).toEqual(before);
  });

  it('rejects a page holding one id twice', async () => {
    const { remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 5);
    remote.pageOverride = (_page, served) => {
      const rows = served.rows as unknown[];
      return { rows: [...rows, rows[0]], totalCount: 6 };
    };
    const result = await mirror.syncProject('p1');
    expect(result.errorCode).toBe('remote_malformed');
    expect(result.error).toMatch(/id p1-t1 twice/);
  });

  it('fails after one repeat when pages repeat rows at a stable total', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 20);
    await mirror.syncProject('p1');
    const before = snapshot(db);
    remote.tasks.get('p1')![3]!.status = 'Done';
    remote.pageOverride = (_page, served) => ({
      rows: remote.tasks.get('p1')!.slice(0, 10),
      totalCount: served.totalCount,
    });
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: false, errorCode: 'read_inconsistent', attempts: 2 });
    expect(result.error).toMatch(/task p1-t1 appeared twice/);
    expect(snapshot(db)).toEqual(before);
  });

  it('ends a read at the first short page when 304s omit X-Total-Count', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    remote.omitTotalOn304 = true;
    await mirror.syncProject('p1');
    remote.calls.length = 0;
    const unchanged = await mirror.syncProject('p1');
    expect(unchanged).toMatchObject({ ok: true, pagesRead: 4, pagesNotModified: 3 });
    remote.tasks.get('p1')!.push(makeTask('tail'));
    remote.calls.length = 0;
    const grown = await mirror.syncProject('p1');
    expect(grown).toMatchObject({ ok: true, pagesRead: 4, pagesNotModified: 3, tasks: 31 });
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
  });
});
