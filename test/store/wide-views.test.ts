import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import { declaredType } from '../../src/store/wide-views.js';
import Database from 'better-sqlite3';
import {
  DEFERRED_INDEXES,
  DEFERRED_TRIGGERS,
  DeferredObjects,
  INDEX_BUILD_CACHE_KIB,
} from '../../src/store/deferred-objects.js';
import { SqliteConnection } from '../../src/store/sqlite-connection.js';
import { openDatabase } from '../../src/store/database.js';
import { put, setup } from '../mirror/helpers.js';

function columns(db: SqliteDb, view: string): Record<string, string> {
  const info = db.pragma(`table_info(${view})`) as Array<{ name: string; type: string }>;
  return Object.fromEntries(info.map((column) => [column.name, column.type]));
}

describe('wide views: every field of data is a column', () => {
  it('has a typed column per field, and a new field appears after the pass that first sees it', async () => {
    const { db, remote, clock, mirror } = setup();
    remote.seed('p1', 3);
    await mirror.syncProject('p1');
    expect(columns(db, 'v_tasks_all')).toEqual({
      task_id: 'TEXT',
      project_id: 'TEXT',
      assigneeIds: 'TEXT',
      endDate: 'DATE',
      id: 'TEXT',
      name: 'TEXT',
      progress: 'INTEGER',
      startDate: 'DATE',
      status: 'TEXT',
      updatedAt: 'TIMESTAMP',
    });
    expect(columns(db, 'v_projects_all')).toMatchObject({ active: 'BOOLEAN', name: 'TEXT' });
    expect(columns(db, 'v_dependencies_all')).toMatchObject({ predecessorId: 'TEXT' });

    const [first, second] = remote.tasks.get('p1')!;
    Object.assign(first!, {
      priority: 2,
      flagged: true,
      meta: { phase: 'shell', tags: ['a'] },
      Name: 'shadows name',
      'cost (EUR)': 12.5,
    });
    Object.assign(second!, { priority: 3.5, progress: 12.5 } satisfies Partial<Task> & object);
    // Projects and lists are written by upserts: their fields are noted all the same.
    Object.assign(remote.projects.get('p1')!, { client: 'ACME', startsOn: '2026-01-05' });
    remote.members.set('p1', [{ id: 'm1', name: 'Ada', kind: 'person', hourlyRate: 80 }]);
    expect(columns(db, 'v_tasks_all')).not.toHaveProperty('priority');
    await clock.advance(60_000);
    await mirror.syncProject('p1');

    expect(columns(db, 'v_tasks_all')).toMatchObject({
      priority: 'REAL',
      flagged: 'BOOLEAN',
      meta: 'TEXT',
      Name_2: 'TEXT',
      'cost (EUR)': 'REAL',
      progress: 'REAL',
    });
    expect(columns(db, 'v_projects_all')).toMatchObject({ client: 'TEXT', startsOn: 'DATE' });
    expect(columns(db, 'v_members_all')).toMatchObject({ hourlyRate: 'INTEGER' });
    expect(db.prepare(`SELECT client FROM v_projects_all`).pluck().get()).toBe('ACME');
    const row = db.prepare(`SELECT * FROM v_tasks_all WHERE task_id = ?`).get(first!.id) as Record<
      string,
      unknown
    >;
    expect(row).toMatchObject({
      priority: 2,
      flagged: 1,
      meta: '{"phase":"shell","tags":["a"]}',
      name: first!.name,
      Name_2: 'shadows name',
      'cost (EUR)': 12.5,
      project_id: 'p1',
    });
    const third = db
      .prepare(`SELECT priority, flagged FROM v_tasks_all WHERE task_id = 'p1-t3'`)
      .get();
    expect(third).toEqual({ priority: null, flagged: null });
  });

  it('infers each type from every kind of value seen', () => {
    expect(declaredType(new Set(['boolean', 'null']))).toBe('BOOLEAN');
    expect(declaredType(new Set(['integer']))).toBe('INTEGER');
    expect(declaredType(new Set(['integer', 'real']))).toBe('REAL');
    expect(declaredType(new Set(['date']))).toBe('DATE');
    expect(declaredType(new Set(['date', 'timestamp']))).toBe('TIMESTAMP');
    expect(declaredType(new Set(['integer', 'text']))).toBe('TEXT');
    expect(declaredType(new Set(['json']))).toBe('TEXT');
    expect(declaredType(new Set(['null']))).toBe('TEXT');
  });

  it('leaves the views alone when a pass brings no new field', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 2);
    await mirror.syncProject('p1');
    const schemaVersion = () => db.pragma('schema_version', { simple: true });
    const before = schemaVersion();
    remote.tasks.get('p1')![0]!.name = 'Renamed';
    await mirror.syncProject('p1');
    expect(db.prepare(`SELECT name FROM v_tasks_all WHERE task_id = 'p1-t1'`).pluck().get()).toBe(
      'Renamed',
    );
    expect(schemaVersion()).toBe(before);
  });
});

describe('field discovery: by the writer, once per field', () => {
  it('notes a field once per connection and refreshes the views only when the set grew', async () => {
    const { db, remote, clock, mirror } = setup();
    remote.seed('p1', 3);
    await mirror.syncProject('p1');
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE '%_fields_%'`).all()).toEqual(
      [],
    );
    expect(columns(db, 'v_tasks_all')).toHaveProperty('status');
    // Forgotten behind the writer's back: a pass whose fields are all known neither notes it
    // again (it compares with what it loaded once) nor remakes the views (nothing grew).
    db.prepare(`DELETE FROM data_fields WHERE record_kind = 'tasks' AND field = 'status'`).run();
    const schemaVersion = () => db.pragma('schema_version', { simple: true });
    const before = schemaVersion();
    remote.tasks.get('p1')![0]!.name = 'Renamed';
    await clock.advance(60_000);
    await mirror.syncProject('p1');
    const statusNoted = () =>
      db
        .prepare(
          `SELECT count(*) FROM data_fields WHERE record_kind = 'tasks' AND field = 'status'`,
        )
        .pluck()
        .get();
    expect(statusNoted()).toBe(0);
    expect(schemaVersion()).toBe(before);
    expect(columns(db, 'v_tasks_all')).toHaveProperty('status');

    // A new field: one row for it, and the views made again from data_fields.
    Object.assign(remote.tasks.get('p1')![1]!, { priority: 2 });
    await clock.advance(60_000);
    await mirror.syncProject('p1');
    const priority = db
      .prepare(`SELECT value_type, first_seen_at FROM data_fields WHERE field = 'priority'`)
      .all();
    expect(priority).toEqual([{ value_type: 'integer', first_seen_at: expect.any(String) }]);
    expect(columns(db, 'v_tasks_all')).toMatchObject({ priority: 'INTEGER' });
    expect(columns(db, 'v_tasks_all')).not.toHaveProperty('status');
  });

  it('notes no field of a page row a write during the pass superseded', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 3);
    const first = remote.tasks.get('p1')![0]!;
    const newer = { ...first, updatedAt: '2099-01-01T00:00:00.000Z' };
    Object.assign(first, { legacy: 'only in the copy the page had' });
    remote.beforePage = async (_p, page) => {
      remote.beforePage = undefined;
      if (page === 1) await put(mirror, 'p1', 'task', newer);
    };
    expect(await mirror.syncProject('p1')).toMatchObject({ ok: true });
    expect(db.prepare(`SELECT data FROM tasks WHERE id = ?`).pluck().get(first.id)).toBe(
      JSON.stringify(newer),
    );
    expect(
      db.prepare(`SELECT count(*) FROM data_fields WHERE field = 'legacy'`).pluck().get(),
    ).toBe(0);
    expect(columns(db, 'v_tasks_all')).not.toHaveProperty('legacy');
  });

  it('notes the fields of records written by events between passes', async () => {
    const { db, remote, clock, mirror } = setup();
    remote.seed('p1', 2);
    await mirror.syncProject('p1');
    const task = { ...remote.tasks.get('p1')![0]!, flagged: true };
    await put(mirror, 'p1', 'task', task);
    expect(
      db.prepare(`SELECT value_type FROM data_fields WHERE field = 'flagged'`).pluck().all(),
    ).toEqual(['boolean']);
    // The views take it at the next pass's commit, though that pass brings nothing new.
    Object.assign(remote.tasks.get('p1')![0]!, { flagged: true });
    await clock.advance(60_000);
    await mirror.syncProject('p1');
    expect(columns(db, 'v_tasks_all')).toMatchObject({ flagged: 'BOOLEAN' });
  });
});

/** The ids of the tasks whose names match `words`, through tasks_fts. */
function searchTasks(db: SqliteDb, words: string): unknown[] {
  return db
    .prepare(
      `SELECT t.id FROM tasks_fts JOIN tasks t ON t.rowid = tasks_fts.rowid
       WHERE tasks_fts MATCH ? ORDER BY t.id`,
    )
    .pluck()
    .all(words);
}

describe('tasks_fts: full-text search over task names', () => {
  it('indexes a backfill when it completes, and each changed row of later passes', async () => {
    const { db, file, remote, mirror } = setup();
    remote.seed('p1', 1234);
    remote.tasks.get('p1')![0]!.name = 'Pour concrete slab';
    const search = (words: string) => searchTasks(db, words);
    const other = new Database(file, { readonly: true });
    const during: unknown[] = [];
    remote.beforePage = async (_p, page) => {
      if (page !== 3) return;
      // Page 2 is written while page 3 is requested; a request takes longer than that write.
      await new Promise((resolve) => setImmediate(resolve));
      during.push(
        other.prepare('SELECT count(*) FROM tasks').pluck().get(),
        other
          .prepare(`SELECT count(*) FROM tasks_fts WHERE tasks_fts MATCH 'concrete'`)
          .pluck()
          .get(),
      );
    };
    await mirror.syncProject('p1');
    other.close();
    // The rows show page by page; the index takes them in one statement at the end.
    expect(during).toEqual([1000, 0]);
    expect(search('concrete')).toEqual(['p1-t1']);
    expect(search('task').length).toBe(1233);
    db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();

    remote.beforePage = undefined;
    remote.tasks.get('p1')![700]!.name = 'Install wiring';
    await mirror.syncProject('p1');
    expect(search('wiring')).toEqual(['p1-t701']);
    db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
  });

  it('indexes the tasks inserted: at once after the backfill, at its end during it', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1234);
    const search = (words: string) => searchTasks(db, words);
    const during: unknown[] = [];
    remote.beforePage = async (_p, page) => {
      // An event inserts a task while its project's backfill is under way: not indexed yet. (The
      // backfill's attempt then begins again, having seen the collection shift.)
      if (page !== 2 || during.length > 0) return;
      await put(mirror, 'p1', 'task', { id: 'p1-early', projectId: 'p1', name: 'Early bird' });
      during.push(search('early'));
    };
    await mirror.syncProject('p1');
    expect(during).toEqual([[]]);
    expect(search('early')).toEqual(['p1-early']);
    // After it, an event's insert is found at once, and once.
    await put(mirror, 'p1', 'task', { id: 'p1-late', projectId: 'p1', name: 'Late bird' });
    expect(search('bird')).toEqual(['p1-early', 'p1-late']);
    db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
  });

  it('finds tasks by word and keeps in step with renames, deletions and removed projects', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 3);
    remote.seed('p2', 1);
    const [a, b] = remote.tasks.get('p1')!;
    a!.name = 'Pour concrete slab';
    b!.name = 'Café terrace: béton';
    await mirror.syncProject('p1');
    await mirror.syncProject('p2');
    const search = (words: string) => searchTasks(db, words);
    expect(search('concrete')).toEqual(['p1-t1']);
    expect(search('beton')).toEqual(['p1-t2']);
    expect(search('task')).toEqual(['p1-t3', 'p2-t1']);

    a!.name = 'Pour foundation';
    remote.tasks.set('p1', [a!, remote.tasks.get('p1')![2]!]);
    await mirror.syncProject('p1');
    expect(search('concrete')).toEqual([]);
    expect(search('foundation')).toEqual(['p1-t1']);
    expect(search('beton')).toEqual([]);

    remote.projects.delete('p2');
    await mirror.syncAll();
    expect(search('task')).toEqual(['p1-t3']);
    db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
  });
});

describe('secondary indexes and the full-text insert trigger of a cold sync', () => {
  const deferred = [...DEFERRED_INDEXES, ...DEFERRED_TRIGGERS];
  const inSchema = `SELECT name FROM sqlite_master
    WHERE type IN ('index', 'trigger') AND name IN (${deferred.map(() => '?').join(', ')})`;
  const present = (db: SqliteDb) =>
    db
      .prepare(inSchema)
      .pluck()
      .all(...deferred)
      .sort();

  it('are built once at the commit of a backfill into an empty mirror, kept for later ones', async () => {
    const { db, file, remote, mirror } = setup();
    remote.seed('p1', 1234);
    remote.seed('p2', 10);
    const other = new Database(file, { readonly: true });
    const during: unknown[] = [];
    remote.beforePage = async (projectId, page) => {
      if (page !== 2) return;
      const names = present(other).length;
      const open = other
        .prepare(`SELECT count(*) FROM tasks WHERE project_id = ? AND status IS NOT 'Done'`)
        .pluck()
        .get(projectId);
      during.push([projectId, names, open]);
    };
    await mirror.syncProject('p1');
    expect(during).toEqual([['p1', 0, expect.any(Number)]]);
    expect(present(db)).toEqual([...deferred].sort());
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT count(*) FROM tasks WHERE project_id = 'p1'`)
      .all();
    expect(JSON.stringify(plan)).toContain('tasks_by_project');
    // A second project's backfill finds tasks in the mirror: nothing dropped.
    remote.beforePage = async () => {
      expect(present(other)).toEqual([...deferred].sort());
    };
    await mirror.syncProject('p2');
    other.close();
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('are kept while any project has completed its backfill, though it holds no task', async () => {
    // An event, an outbox answer or another process may insert into that project meanwhile.
    const { db, file, remote, mirror } = setup();
    remote.seed('p0', 0);
    await mirror.syncProject('p0');
    remote.seed('p1', 1234);
    const other = openDatabase(file);
    const during: unknown[] = [];
    remote.beforePage = async (projectId, page) => {
      if (projectId !== 'p1' || page !== 2 || during.length > 0) return;
      during.push(present(other));
      await put(mirror, 'p0', 'task', { id: 'p0-a', projectId: 'p0', name: 'Zebra crossing' });
      other
        .prepare(`INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES (?, ?, ?, ?, ?)`)
        .run('p0-b', 'p0', 'Zebra stripes', '{"id":"p0-b"}', '2026-11-25T10:00:00.000Z');
    };
    await mirror.syncProject('p1');
    other.close();
    expect(during).toEqual([[...deferred].sort()]);
    expect(searchTasks(db, 'zebra')).toEqual(['p0-a', 'p0-b']);
    db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
  });

  it('are built under a bounded page cache, which gets its size back after, even when a build fails', async () => {
    // An index build sorts in memory up to the cache's size: bounded, a large project's cold
    // sync peaks no higher at its commit than during its pages (benchmark 5).
    const { db } = setup();
    db.pragma('cache_size = -12345');
    const cacheSize = () => db.pragma('main.cache_size', { simple: true });
    const built: Array<[string, unknown]> = [];
    let failAt: string | undefined = undefined;
    class Watched extends SqliteConnection {
      override async exec(sql: string): Promise<void> {
        const index = /^CREATE (?:INDEX|TRIGGER) IF NOT EXISTS (\w+)/.exec(sql)?.[1];
        if (index !== undefined) {
          built.push([index, cacheSize()]);
          if (index === failAt) throw new Error('no room left');
        }
        await super.exec(sql);
      }
    }
    const objects = new DeferredObjects(new Watched(db));
    await objects.deferIfEmpty();
    expect(present(db)).toEqual([]);
    await objects.restore();
    expect(built).toEqual(deferred.map((name) => [name, -INDEX_BUILD_CACHE_KIB]));
    expect(present(db)).toEqual([...deferred].sort());
    expect(cacheSize()).toBe(-12345);

    await objects.deferIfEmpty();
    failAt = DEFERRED_INDEXES[1];
    await expect(objects.restore()).rejects.toThrow('no room left');
    expect(cacheSize()).toBe(-12345);
  });

  it('are built when the backfill that deferred them fails', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1234);
    remote.beforePage = async (_projectId, page) => {
      if (page === 2) throw new Error('the service fell over');
    };
    const result = await mirror.syncProject('p1');
    expect(result.ok).toBe(false);
    expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(500);
    expect(present(db)).toEqual([...deferred].sort());
  });
});
