import { onTestFinished, describe, expect, it } from 'vitest';
import { MalformedResponseError, RemoteStatusError } from '../../src/domain/index.js';
import { openDatabase } from '../../src/store/database.js';
import { makeTask } from './fake-remote.js';
import {
  applyEvent,
  mirroredTaskIds,
  put,
  remoteTaskIds,
  remove,
  replace,
  setup,
  snapshot,
} from './helpers.js';

function reader(file: string) {
  const db = openDatabase(file, { readonly: true });
  onTestFinished(() => {
    db.close();
  });
  return db;
}

describe('what readers see', () => {
  it('sees a later pass before or after, never between, from a second connection', async () => {
    const { file, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    await mirror.syncProject('p1');
    const other = reader(file);
    const names = other.prepare("SELECT count(*) FROM tasks WHERE name LIKE '%!'").pluck();
    const resources = other.prepare('SELECT count(*) FROM resources').pluck();
    for (const task of remote.tasks.get('p1')!) task.name += '!';
    remote.resources.set('p1', []);
    const seen: number[] = [];
    remote.beforeCall = async (call) => {
      if (call.route !== 'getProject') seen.push(names.get() as number, resources.get() as number);
    };
    const result = await mirror.syncProject('p1');
    expect(result.ok).toBe(true);
    expect(seen.length).toBeGreaterThan(6);
    expect(new Set(seen)).toEqual(new Set([0, 1]));
    expect([names.get(), resources.get()]).toEqual([30, 0]);
  });

  it('sees the first backfill of a large project as it progresses', async () => {
    const { file, remote, mirror } = setup();
    remote.seed('p1', 1234);
    const other = reader(file);
    const progress: unknown[] = [];
    remote.beforePage = async (_p, page) => {
      if (page !== 3) return;
      // The pager writes page 2 while it requests page 3 (pipelined); a real request outlasts
      // that write, which this turn of the event loop stands for.
      await new Promise((resolve) => setImmediate(resolve));
      progress.push(
        other.prepare('SELECT count(*) FROM tasks').pluck().get(),
        other.prepare('SELECT backfill, pages_read, total_count FROM sync_state').get(),
      );
    };
    await mirror.syncProject('p1');
    expect(progress).toEqual([1000, { backfill: 'in_progress', pages_read: 2, total_count: 1234 }]);
    const state = other.prepare('SELECT backfill, pages_read, total_count FROM sync_state').get();
    expect(state).toEqual({ backfill: 'done', pages_read: 3, total_count: 1234 });
  });

  it('reports progress after every page', async () => {
    const events: unknown[] = [];
    const { remote, mirror } = setup({ pageSize: 10, onProgress: (e) => events.push(e) });
    remote.seed('p1', 15);
    await mirror.syncProject('p1');
    expect(events).toEqual([
      {
        projectId: 'p1',
        attempt: 1,
        page: 1,
        tasksRead: 10,
        totalCount: 15,
        notModified: false,
        backfill: true,
      },
      {
        projectId: 'p1',
        attempt: 1,
        page: 2,
        tasksRead: 15,
        totalCount: 15,
        notModified: false,
        backfill: true,
      },
    ]);
  });
});

describe('a failed pass', () => {
  it.each([
    [
      'a malformed page',
      'listTasks',
      () => new MalformedResponseError({ route: 'listTasks' }, 'not JSON'),
    ],
    [
      'a 500 on a list',
      'listResources',
      () => new RemoteStatusError(500, undefined, undefined, { route: 'listResources' }),
    ],
  ])('leaves the previous mirror intact after %s', async (_name, route, error) => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    remote.tasks.get('p1')!.splice(2, 5);
    remote.tasks.get('p1')![0]!.name = 'changed';
    const before = snapshot(db);
    remote.beforeCall = async (call) => {
      if (call.route === route && (call.page ?? 2) === 2) throw error();
    };
    const result = await mirror.syncProject('p1');
    expect(result.ok).toBe(false);
    expect(snapshot(db)).toEqual(before);
  });

  it('leaves the previous mirror intact when a page holds a row without an id', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    remote.tasks.get('p1')![0]!.name = 'changed';
    const before = snapshot(db);
    remote.pageOverride = (page, served) =>
      page === 3 ? { rows: [{ name: 'no id' }], totalCount: served.totalCount } : served;
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: false, errorCode: 'remote_malformed' });
    expect(result.error).toBe(
      'listTasks of p1 page 3: malformed response: row 1: task without a string id',
    );
    expect(snapshot(db)).toEqual(before);
  });
});

describe('deletions and events', () => {
  it('deletes tasks, members, resources and dependencies the service deleted', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 10);
    remote.members.get('p1')!.push({ id: 'm2', name: 'Bo', kind: 'integration' });
    await mirror.syncAll();
    remote.tasks.get('p1')!.splice(0, 4);
    remote.members.set('p1', [{ id: 'm2', name: 'Bo', kind: 'integration' }]);
    remote.resources.set('p1', []);
    remote.dependencies.set('p1', []);
    const result = (await mirror.syncAll()).projects[0]!;
    expect(result).toMatchObject({ ok: true, tasks: 6, rowsWritten: 4 + 1 + 1 + 1 });
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
    expect(db.prepare('SELECT id, kind FROM members').all()).toEqual([
      { id: 'm2', kind: 'integration' },
    ]);
    expect(db.prepare('SELECT count(*) FROM resources').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM dependencies').pluck().get()).toBe(0);
    expect(
      db.prepare("SELECT count(*) FROM task_assignees WHERE task_id = 'p1-t1'").pluck().get(),
    ).toBe(0);
  });

  it('does not let a pass overwrite or undo what events wrote while it ran', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 30);
    await mirror.syncProject('p1');
    for (const task of remote.tasks.get('p1')!) task.progress = 10;
    let once = false;
    remote.beforePage = async (_p, page) => {
      if (page !== 3 || once) return;
      once = true;
      // Events for writes made after pages 1 and 2 were read: p1-t21 shifts onto page 2.
      const tasks = remote.tasks.get('p1')!;
      tasks[0] = { ...tasks[0]!, progress: 90, updatedAt: '2026-02-01T00:00:00.000Z' };
      expect(await put(mirror, 'p1', 'task', tasks[0])).toBe('changed');
      const [gone] = tasks.splice(1, 1);
      expect(await remove(mirror, 'p1', 'task', gone!.id)).toBe('changed');
      const born = makeTask('p1-born');
      tasks.push(born);
      expect(await put(mirror, 'p1', 'task', born)).toBe('changed');
      expect(await replace(mirror, 'p1', 'resource', [{ id: 'r9', name: 'Pump' }])).toBe('changed');
      remote.resources.set('p1', [{ id: 'r9', name: 'Pump' }]);
    };
    const result = await mirror.syncProject('p1');
    // The total stayed at 30 but the events said rows shifted: the read was made again.
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    const progress = db.prepare('SELECT progress FROM tasks WHERE id = ?').pluck();
    expect(progress.get('p1-t1')).toBe(90);
    expect(progress.get('p1-t2')).toBeUndefined();
    expect(progress.get('p1-born')).toBe(0);
    expect(mirroredTaskIds(db, 'p1')).toEqual(remoteTaskIds(remote, 'p1'));
    expect(db.prepare('SELECT id FROM resources').pluck().all()).toEqual(['r9']);
  });

  it('replaces every list but the records events wrote during the pass (first pass included)', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 12);
    const identity = { id: 'm-bot', name: 'bot (integration)', kind: 'integration' };
    remote.beforePage = async (_p, page) => {
      if (page !== 1) return;
      // The service creates the token's identity on its first request and announces it.
      remote.members.set('p1', [...remote.members.get('p1')!, identity]);
      const event = { type: 'member.changed', projectId: 'p1', id: 'm-bot', data: identity };
      expect(await applyEvent(mirror, event as never)).toBe('changed');
    };
    expect((await mirror.syncProject('p1')).ok).toBe(true);
    const members = db.prepare('SELECT id FROM members ORDER BY id').pluck().all();
    expect(members).toEqual(
      remote.members
        .get('p1')!
        .map((m) => m.id)
        .sort(),
    );
    expect(members.length).toBeGreaterThan(1);

    // A later pass: a resource event and a dependency removal land mid-pass.
    remote.beforePage = async (_p, page) => {
      if (page !== 2) return;
      const [first, ...rest] = remote.resources.get('p1')!;
      const renamed = { ...first!, name: 'Renamed' };
      remote.resources.set('p1', [renamed, ...rest, { id: 'r-new', name: 'New' }]);
      expect(await put(mirror, 'p1', 'resource', renamed)).toBe('changed');
      const [gone, ...kept] = remote.dependencies.get('p1')!;
      remote.dependencies.set('p1', kept);
      expect(await remove(mirror, 'p1', 'dependency', gone!.id)).toBe('changed');
    };
    expect((await mirror.syncProject('p1')).ok).toBe(true);
    const ids = (table: string) => db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all();
    expect(ids('resources')).toEqual(
      remote.resources
        .get('p1')!
        .map((r) => r.id)
        .sort(),
    );
    expect(ids('dependencies')).toEqual(
      remote.dependencies
        .get('p1')!
        .map((d) => d.id)
        .sort(),
    );
    expect(db.prepare("SELECT name FROM resources WHERE id = 'r-new'").pluck().get()).toBe('New');
  });

  it('keeps a task an event created during the pass, after a read that did not include it', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 5);
    await mirror.syncProject('p1');
    remote.beforeCall = async (call) => {
      if (call.route === 'listMembers') await put(mirror, 'p1', 'task', makeTask('p1-late'));
    };
    expect((await mirror.syncProject('p1')).ok).toBe(true);
    expect(mirroredTaskIds(db, 'p1')).toContain('p1-late');
  });

  it('ignores an event older than the task it would overwrite', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1);
    await mirror.syncProject('p1');
    const stale = makeTask('p1-t1', { name: 'old', updatedAt: '2025-12-31T00:00:00.000Z' });
    expect(await put(mirror, 'p1', 'task', stale)).toBe('unchanged');
    expect(db.prepare('SELECT name FROM tasks').pluck().get()).toBe('Task p1-t1');
  });
});
