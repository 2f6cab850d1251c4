import pino from 'pino';
import { storeOver } from '../fixtures/store.js';
import { describe, expect, it } from 'vitest';
import { RemoteStatusError, UsageError } from '../../src/domain/index.js';
import { Mirror } from '../../src/mirror/index.js';
import { applyEvent, put, replace, setup } from './helpers.js';

const projectIds = (db: import('../../src/store/database.js').SqliteDb) =>
  db.prepare('SELECT id FROM projects ORDER BY id').pluck().all();

describe('syncAll', () => {
  it('lists projects once and removes the ones the service no longer lists', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 3);
    remote.seed('p2', 3);
    await mirror.syncAll();
    remote.projects.delete('p2');
    remote.calls.length = 0;
    const report = await mirror.syncAll();
    expect(report).toMatchObject({ ok: true, removedProjects: ['p2'] });
    expect(remote.count('listProjects')).toBe(1);
    expect(remote.count('getProject')).toBe(0);
    expect(projectIds(db)).toEqual(['p1']);
    for (const table of [
      'tasks',
      'members',
      'resources',
      'dependencies',
      'task_pages',
      'sync_state',
    ]) {
      const rows = db.prepare(`SELECT count(*) FROM ${table} WHERE project_id = 'p2'`).pluck();
      expect(rows.get()).toBe(0);
    }
  });

  it('mirrors only the projects asked for, and removes none', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 3);
    remote.seed('p2', 3);
    await mirror.syncAll();
    remote.seed('p3', 1);
    const report = await mirror.syncAll(['p3', 'p9']);
    expect(report.ok).toBe(false);
    expect(report.removedProjects).toEqual([]);
    expect(report.projects.map((p) => [p.projectId, p.ok, p.error])).toEqual([
      ['p3', true, undefined],
      ['p9', false, 'project p9 is not listed for this token'],
    ]);
    expect(projectIds(db)).toEqual(['p1', 'p2', 'p3']);
  });

  it('goes on with the other projects when one fails', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 3);
    remote.seed('p2', 3);
    remote.beforeCall = async (call) => {
      if (call.projectId === 'p1' && call.route === 'listDependencies') {
        throw new RemoteStatusError(403, 'forbidden', 'no', {
          route: 'listDependencies',
          projectId: 'p1',
        });
      }
    };
    const report = await mirror.syncAll();
    expect(report.projects.map((p) => [p.projectId, p.ok])).toEqual([
      ['p1', false],
      ['p2', true],
    ]);
    expect(report.projects[0]!.error).toBe('listDependencies of p1: HTTP 403 forbidden: no');
    const state = db
      .prepare('SELECT backfill, last_error FROM sync_state ORDER BY project_id')
      .all();
    expect(state).toEqual([
      { backfill: 'in_progress', last_error: 'listDependencies of p1: HTTP 403 forbidden: no' },
      { backfill: 'done', last_error: null },
    ]);
  });

  it('reports a failed project listing without touching the mirror', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 3);
    await mirror.syncAll();
    remote.beforeCall = async () => {
      throw new RemoteStatusError(401, 'unauthorized', undefined, { route: 'listProjects' });
    };
    const report = await mirror.syncAll();
    expect(report).toEqual({
      ok: false,
      error: 'listProjects: HTTP 401 unauthorized',
      requests: 1,
      projects: [],
      removedProjects: [],
    });
    expect(projectIds(db)).toEqual(['p1']);
  });

  it('joins a pass already running for the same project instead of starting another', async () => {
    const { remote, mirror } = setup();
    remote.seed('p1', 3);
    const [a, b] = await Promise.all([mirror.syncProject('p1'), mirror.syncProject('p1')]);
    expect(a).toEqual(b);
    expect(remote.count('listTasks')).toBe(1);
  });

  it('refuses a page size the service does not accept', () => {
    const { db, remote, clock } = setup();
    const logger = pino({ level: 'silent' });
    expect(
      () =>
        new Mirror({ store: storeOver(db, clock).mirror, remote, clock, logger, pageSize: 501 }),
    ).toThrow(UsageError);
    expect(
      () => new Mirror({ store: storeOver(db, clock).mirror, remote, clock, logger, pageSize: 0 }),
    ).toThrow(/from 1 to 500/);
  });
});

describe('syncProject', () => {
  it('reads the project with get project, conditionally after the first time', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1);
    await mirror.syncProject('p1');
    remote.projects.get('p1')!.name = 'Renamed';
    await mirror.syncProject('p1');
    await mirror.syncProject('p1');
    expect(remote.calls.filter((c) => c.route === 'getProject').map((c) => c.status)).toEqual([
      200, 200, 304,
    ]);
    expect(db.prepare('SELECT name FROM projects').pluck().get()).toBe('Renamed');
  });

  it('fails cleanly for a project the service does not know', async () => {
    const { mirror } = setup();
    const result = await mirror.syncProject('nope');
    expect(result).toMatchObject({ ok: false, errorCode: 'remote_status', requests: 1 });
    expect(result.error).toBe('getProject of nope: HTTP 404 not_found: no such project');
  });
});

describe('apply paths', () => {
  it('refuse projects that are not mirrored', async () => {
    const { mirror } = setup();
    expect(await put(mirror, 'p1', 'task', { id: 't1' } as never)).toBe('unknown_project');
    expect(await replace(mirror, 'p1', 'member', [])).toBe('unknown_project');
    expect(
      await put(mirror, 'p1', 'project', {
        id: 'p1',
        name: 'x',
        active: true,
        readOnlyReason: null,
      }),
    ).toBe('unknown_project');
  });

  it('write projects and lists, and report when nothing changed', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1);
    await mirror.syncProject('p1');
    const project = { id: 'p1', name: 'New', active: false, readOnlyReason: 'archived' };
    expect(await put(mirror, 'p1', 'project', project)).toBe('changed');
    expect(await put(mirror, 'p1', 'project', project)).toBe('unchanged');
    expect(db.prepare('SELECT name, active, read_only_reason FROM projects').get()).toEqual({
      name: 'New',
      active: 0,
      read_only_reason: 'archived',
    });
    const members = [{ id: 'm1', name: 'Ada', kind: 'person' }];
    expect(await replace(mirror, 'p1', 'member', members)).toBe('unchanged');
    expect(await replace(mirror, 'p1', 'member', [...members, { id: 'm2' }])).toBe('changed');
    const deps = [{ id: 'd9', predecessorId: 'a', successorId: 'b', type: 'SS' }];
    expect(await replace(mirror, 'p1', 'dependency', deps)).toBe('changed');
    expect(
      db.prepare('SELECT id, predecessor_id, successor_id, type FROM dependencies').all(),
    ).toEqual([{ id: 'd9', predecessor_id: 'a', successor_id: 'b', type: 'SS' }]);
    const lastChange = db.prepare('SELECT last_change_at FROM sync_state').pluck().get();
    expect(lastChange).toBe(new Date(Date.UTC(2026, 10, 21)).toISOString());
  });

  it('write one list record from an event, and nothing when it is unchanged', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1);
    await mirror.syncProject('p1');
    const resource = { id: 'p1-r1', name: 'Crane' };
    expect(await put(mirror, 'p1', 'resource', resource)).toBe('unchanged');
    expect(await put(mirror, 'p1', 'resource', { ...resource, name: 'Tower crane' })).toBe(
      'changed',
    );
    expect(await put(mirror, 'p1', 'member', { id: 'm7', kind: 'integration' })).toBe('changed');
    expect(db.prepare('SELECT name FROM resources').pluck().all()).toEqual(['Tower crane']);
    expect(db.prepare('SELECT id, kind FROM members ORDER BY id').all()).toEqual([
      { id: 'm1', kind: 'person' },
      { id: 'm7', kind: 'integration' },
    ]);
  });

  it('check an event as strictly as a response: nothing of a bad event is written', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 2);
    await mirror.syncProject('p1');
    const before = db.prepare('SELECT id, data FROM tasks ORDER BY id').all();
    const task = JSON.parse(
      db.prepare("SELECT data FROM tasks WHERE id = 'p1-t1'").pluck().get() as string,
    );
    const events = [
      { type: 'task.updated', projectId: 'p1', id: 'p1-t1', data: { ...task, id: 'p1-phantom' } },
      { type: 'task.updated', projectId: 'p1', id: 'p1-t1', data: { ...task, progress: 'NaN' } },
      { type: 'task.updated', projectId: 'p1', id: 'p1-t1', data: { ...task, name: 5 } },
      { type: 'task.created', projectId: 'p1', data: { ...task, id: 'p1-x', projectId: 'p2' } },
      { type: 'project.updated', projectId: 'p1', data: { id: 'p2', name: 'Other' } },
      { type: 'member.changed', projectId: 'p1', id: 'm1', data: { id: 'm2' } },
      { type: 'task.updated', projectId: 'p1', id: 'p1-t1' },
    ];
    for (const event of events) {
      await expect(applyEvent(mirror, event as never)).rejects.toThrow(/malformed response/);
    }
    expect(db.prepare('SELECT id, data FROM tasks ORDER BY id').all()).toEqual(before);
    expect(db.prepare('SELECT count(*) FROM task_history').pluck().get()).toBe(0);
  });

  it('reject a record without an id', async () => {
    const { remote, mirror } = setup();
    remote.seed('p1', 1);
    await mirror.syncProject('p1');
    await expect(put(mirror, 'p1', 'task', { name: 'x' } as never)).rejects.toThrow(
      /task without a string id/,
    );
    await expect(replace(mirror, 'p1', 'resource', [{ name: 'x' }] as never)).rejects.toThrow(
      /row 1/,
    );
  });
});
