/**
 * A backfill page on PostgreSQL in one statement (`TaskWriter.putPagesAtOnce` in
 * `src/store/task-writer.ts`), against a real server: a page of new tasks costs one statement and no transaction, and writes what the
 * transactional path writes; a page it cannot take (a task the mirror holds, an id seen before
 * in the read, a lease not held) writes nothing there and goes the transactional way, with that
 * path's outcome. Statements are counted by the server (`pg_stat_statements`).
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { NotHeldError, type ProjectFence, type Task } from '../../src/domain/index.js';
import { MirrorWriter } from '../../src/store/writer/writer.js';
import type { BackfillPage } from '../../src/store/writer/writer.js';
import { openConnection } from '../fixtures/connection.js';
import { MirrorStore } from '../../src/store/mirror-store.js';
import { DEFERRED_INDEXES } from '../../src/store/deferred-objects.js';
import { taskRows } from '../../src/store/task-rows.js';
import { newTally } from '../../src/store/write-context.js';
import { FakeClock } from '../fixtures/clock.js';
import { startPostgres } from '../fixtures/postgres.js';

const AT = '2026-11-25T10:00:00.000Z';

const project = { id: 'p1', name: 'P', active: true, readOnlyReason: null };

const task = (id: string, over: Partial<Task> = {}): Task => ({
  id,
  name: `Task ${id}`,
  startDate: '2026-01-01',
  endDate: '2026-01-02',
  status: 'NotStarted',
  progress: 0,
  assigneeIds: ['m1'],
  ...over,
});

const rows = (...tasks: Task[]) => taskRows(tasks);
const page = (n: number): BackfillPage => ({
  pageSize: 3,
  page: n,
  etag: `"e${n}"`,
  totalCount: 9,
  fresh: true,
});

let admin: pg.Client;
let url: string;

beforeAll(async () => {
  const server = await startPostgres({
    settings: { shared_preload_libraries: 'pg_stat_statements' },
  });
  url = await server.database();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('CREATE EXTENSION pg_stat_statements');
});

afterAll(async () => {
  await admin.end();
});

/** Calls since the last reset, by kind of statement. */
async function statements(): Promise<{ atOnce: number; begin: number }> {
  const { rows: found } = await admin.query<{ query: string; calls: string }>(
    `SELECT query, calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  const calls = (test: (query: string) => boolean) =>
    found.filter((row) => test(row.query)).reduce((sum, row) => sum + Number(row.calls), 0);
  return {
    atOnce: calls((query) => query.trimStart().startsWith('WITH go AS')),
    begin: calls((query) => /^BEGIN/i.test(query.trim())),
  };
}

/** A writer on a new connection; `begin` starts the project's backfill. */
async function mirror(claims?: ProjectFence, begin = true) {
  const db = await openConnection({ db: url }, 'write');
  // Closed however the test ends: a failed assertion does not leak the connection.
  onTestFinished(() => db.close());
  const store = new MirrorStore(db);
  const writer = new MirrorWriter(store, new FakeClock(), claims);
  const tally = newTally();
  if (begin) await writer.beginBackfill(project, tally);
  const read = (sql: string) => db.prepare(sql).all();
  return { db, store, writer, tally, read };
}

// Each test starts from an empty mirror and no statement counted.
beforeEach(async () => {
  await admin.query('DROP SCHEMA IF EXISTS projmirror CASCADE; SELECT pg_stat_statements_reset()');
});

describe('a backfill page on PostgreSQL', () => {
  it('of new tasks is one statement, no transaction, and writes what a transaction would', async () => {
    const { store, writer, tally, read } = await mirror();
    // The first page's fields are new to the catalogue: it takes the transaction, which notes them.
    expect(
      await writer.backfillPage('p1', rows(task('t1'), task('t2')), page(1), tally),
    ).toBeUndefined();
    // The project's fields, then the tasks': one statement each, not one a field.
    const { rows: noted } = await admin.query<{ calls: string }>(
      `SELECT calls FROM pg_stat_statements WHERE query LIKE 'INSERT INTO data_fields%'`,
    );
    expect(noted.map((row) => Number(row.calls))).toEqual([2]);
    await admin.query('SELECT pg_stat_statements_reset()');
    const next = rows(task('t3', { assigneeIds: ['m1', 'm2'] }), task('t4', { assigneeIds: [] }));
    expect(await writer.backfillPage('p1', next, page(2), tally)).toBeUndefined();
    expect(await statements()).toEqual({ atOnce: 1, begin: 0 });
    expect(tally.rows).toBe(5); // the project, then t1 to t4
    expect(await read('SELECT id, name, status FROM tasks ORDER BY id')).toEqual(
      ['t1', 't2', 't3', 't4'].map((id) => ({ id, name: `Task ${id}`, status: 'NotStarted' })),
    );
    expect(await read('SELECT task_id, member_id FROM task_assignees ORDER BY 1, 2')).toEqual([
      { task_id: 't1', member_id: 'm1' },
      { task_id: 't2', member_id: 'm1' },
      { task_id: 't3', member_id: 'm1' },
      { task_id: 't3', member_id: 'm2' },
    ]);
    expect(await store.taskPages.heads('p1', 3)).toEqual([
      { page: 1, etag: '"e1"', rowCount: 2 },
      { page: 2, etag: '"e2"', rowCount: 2 },
    ]);
    expect(await store.syncState.get('p1')).toMatchObject({ pagesRead: 2, totalCount: 9 });
    expect(await store.seenTasks.count('p1')).toBe(4);
    expect(await read('SELECT count(*) AS n FROM task_history')).toEqual([{ n: 0 }]);
    // PostgreSQL keeps its indexes through a backfill into an empty mirror (docs/benchmarks.md: only SQLite
    // defers them; readers and other daemons share this database).
    const indexes = await read(
      `SELECT indexname FROM pg_indexes WHERE tablename IN ('tasks', 'task_assignees')`,
    );
    expect(indexes.map((row) => (row as { indexname: string }).indexname)).toEqual(
      expect.arrayContaining([...DEFERRED_INDEXES, 'tasks_fts']),
    );
    // The writer noted the tasks' fields (no trigger does on either engine).
    expect(
      await read(`SELECT field, value_type FROM data_fields WHERE record_kind = 'tasks'`),
    ).toEqual(
      expect.arrayContaining([
        { field: 'name', value_type: 'text' },
        { field: 'startDate', value_type: 'date' },
        { field: 'progress', value_type: 'integer' },
        { field: 'assigneeIds', value_type: 'json' },
      ]),
    );
  });

  it('of new tasks goes two pages a statement when the pager hands two', async () => {
    const { store, writer, tally, read } = await mirror();
    await writer.backfillPage('p1', rows(task('t1')), page(1), tally);
    await admin.query('SELECT pg_stat_statements_reset()');
    const pair = [
      { rows: rows(task('t2'), task('t3', { assigneeIds: ['m2'] })), page: page(2) },
      { rows: rows(task('t4')), page: { ...page(3), etag: undefined, totalCount: null } },
    ];
    expect(await writer.backfillPages('p1', pair, tally)).toBeUndefined();
    expect(await statements()).toEqual({ atOnce: 1, begin: 0 });
    expect(await read('SELECT id FROM tasks ORDER BY id')).toEqual(
      ['t1', 't2', 't3', 't4'].map((id) => ({ id })),
    );
    expect(await store.taskPages.heads('p1', 3)).toEqual([
      { page: 1, etag: '"e1"', rowCount: 1 },
      { page: 2, etag: '"e2"', rowCount: 2 },
      { page: 3, etag: null, rowCount: 1 },
    ]);
    // The last page's X-Total-Count, else the one before it.
    expect(await store.syncState.get('p1')).toMatchObject({ pagesRead: 3, totalCount: 9 });
    expect(tally.rows).toBe(5);
  });

  it('two a statement refused by the server go each in its transaction, with no statement alone', async () => {
    const { store, writer, tally, read } = await mirror();
    await writer.backfillPage('p1', rows(task('t1'), task('t2')), page(1), tally);
    // A read tried again: page 1's tasks are held, so the server refuses the pair.
    await store.seenTasks.clear('p1');
    await admin.query('SELECT pg_stat_statements_reset()');
    const pair = [
      { rows: rows(task('t1'), task('t2', { name: 'Renamed' })), page: page(1) },
      { rows: rows(task('t3')), page: page(2) },
    ];
    expect(await writer.backfillPages('p1', pair, tally)).toBeUndefined();
    expect(await statements()).toEqual({ atOnce: 1, begin: 2 });
    expect(await read('SELECT id, name FROM tasks ORDER BY id')).toEqual([
      { id: 't1', name: 'Task t1' },
      { id: 't2', name: 'Renamed' },
      { id: 't3', name: 'Task t3' },
    ]);
  });

  it('two a statement not tried (fields never seen) go each the cheapest way', async () => {
    const { writer, tally, read } = await mirror();
    await admin.query('SELECT pg_stat_statements_reset()');
    const pair = [
      { rows: rows(task('t1')), page: page(1) },
      { rows: rows(task('t2')), page: page(2) },
    ];
    expect(await writer.backfillPages('p1', pair, tally)).toBeUndefined();
    // Page 1 notes the tasks' fields in its transaction; page 2 then goes in one statement.
    expect(await statements()).toEqual({ atOnce: 1, begin: 1 });
    expect(await read('SELECT id FROM tasks ORDER BY id')).toEqual([{ id: 't1' }, { id: 't2' }]);
  });

  it('of a daemon holding the lease is one statement too, the lease checked in it', async () => {
    const holder = 'daemon-with-lease';
    // The transaction's fence asks the same table: a lease held and unexpired.
    let leaseLive = true;
    const fence: ProjectFence = {
      holder,
      fence: (projectId) => {
        if (!leaseLive) return Promise.reject(new NotHeldError(projectId));
        return Promise.resolve();
      },
    };
    const { writer, tally, read } = await mirror(fence);
    await admin.query(
      `INSERT INTO projmirror.project_leases (project_id, daemon_id, acquired_at, expires_at)
       VALUES ('p1', $1, now(), now() + interval '1 hour')`,
      [holder],
    );
    await writer.backfillPage('p1', rows(task('t1')), page(1), tally);
    await admin.query('SELECT pg_stat_statements_reset()');
    expect(
      await writer.backfillPage('p1', rows(task('t2'), task('t3')), page(2), tally),
    ).toBeUndefined();
    expect(await statements()).toEqual({ atOnce: 1, begin: 0 });
    expect(await read('SELECT id FROM tasks ORDER BY id')).toEqual(
      ['t1', 't2', 't3'].map((id) => ({ id })),
    );
    // Expired, the lease no longer lets the statement write: the transaction's fence decides.
    await admin.query(`UPDATE projmirror.project_leases SET expires_at = now() - interval '1 s'`);
    leaseLive = false;
    await admin.query('SELECT pg_stat_statements_reset()');
    await expect(writer.backfillPage('p1', rows(task('t4')), page(3), tally)).rejects.toThrow(
      NotHeldError,
    );
    expect(await statements()).toMatchObject({ atOnce: 1, begin: 1 });
    expect(await read(`SELECT id FROM tasks WHERE id = 't4'`)).toEqual([]);
  });

  it('holding a task the mirror has goes the transactional way and updates it', async () => {
    const { store, writer, tally, read } = await mirror();
    await writer.backfillPage('p1', rows(task('t1'), task('t2')), page(1), tally);
    // A resumed backfill reads again a task written before (a new read: nothing seen yet).
    await store.seenTasks.clear('p1');
    await admin.query('SELECT pg_stat_statements_reset()');
    const again = rows(task('t2', { name: 'Renamed' }), task('t3'));
    expect(await writer.backfillPage('p1', again, page(1), tally)).toBeUndefined();
    const counted = await statements();
    expect(counted.atOnce).toBe(1);
    expect(counted.begin).toBeGreaterThan(0);
    expect(await read(`SELECT id, name FROM tasks ORDER BY id`)).toEqual([
      { id: 't1', name: 'Task t1' },
      { id: 't2', name: 'Renamed' },
      { id: 't3', name: 'Task t3' },
    ]);
  });

  it('repeating a task seen before in the read returns the problem, as the transaction does', async () => {
    const { writer, tally, read } = await mirror();
    await writer.backfillPage('p1', rows(task('t1'), task('t2')), page(1), tally);
    await writer.backfillPage('p1', rows(task('t3')), page(2), tally);
    expect(await writer.backfillPage('p1', rows(task('t4'), task('t3')), page(3), tally)).toBe(
      'task t3 appeared twice',
    );
    // Page 1 noted new fields (a transaction); pages 2 and 3 were tried at once, 3 in vain.
    expect((await statements()).atOnce).toBe(2);
    expect(await read('SELECT id FROM tasks ORDER BY id')).toEqual(
      ['t1', 't2', 't3'].map((id) => ({ id })),
    );
  });

  it('whose lease is not held writes nothing and fails as the fence does', async () => {
    const fence: ProjectFence = {
      holder: 'daemon-without-lease',
      fence: (projectId) => Promise.reject(new NotHeldError(projectId)),
    };
    const setup = await mirror();
    await setup.writer.backfillPage('p1', rows(task('t1'), task('t2')), page(1), setup.tally);
    const { writer, tally, read } = await mirror(fence, false);
    await admin.query('SELECT pg_stat_statements_reset()');
    await expect(writer.backfillPage('p1', rows(task('t3')), page(2), tally)).rejects.toThrow(
      NotHeldError,
    );
    expect((await statements()).atOnce).toBe(1);
    expect(await read('SELECT id FROM tasks ORDER BY id')).toEqual([{ id: 't1' }, { id: 't2' }]);
    expect(await read('SELECT max(page) AS page FROM task_pages')).toEqual([{ page: 1 }]);
  });
});

describe("a pass's lists on PostgreSQL", () => {
  it('are written in one statement for all their records, each column in its place', async () => {
    const { store, read } = await mirror();
    const context = { at: AT, history: false, tally: newTally(), fields: store.fields };
    await admin.query('SELECT pg_stat_statements_reset()');
    const members = [
      { id: 'm1', name: 'Ann', kind: 'person', rate: 80 },
      { id: 'm2', name: 'Bot', kind: 'integration' },
      { id: 'm3', name: null },
    ];
    expect(await store.records.members.replace('p1', members, context)).toEqual(['m1', 'm2', 'm3']);
    const dependencies = [
      { id: 'd1', predecessorId: 't1', successorId: 't2', type: 'FS' },
      { id: 'd2', predecessorId: 't2', successorId: 't3' },
    ];
    expect(await store.records.dependencies.replace('p1', dependencies, context)).toEqual([
      'd1',
      'd2',
    ]);
    const { rows: calls } = await admin.query<{ query: string; calls: string }>(
      `SELECT query, calls FROM pg_stat_statements WHERE query LIKE 'INSERT INTO %'`,
    );
    const writes = (table: string) =>
      calls
        .filter((row) => row.query.startsWith(`INSERT INTO ${table} `))
        .reduce((sum, row) => sum + Number(row.calls), 0);
    expect([writes('members'), writes('dependencies')]).toEqual([1, 1]);
    expect(context.tally.rows).toBe(5);
    const held = (await read(
      'SELECT id, name, kind, data::text AS data FROM members ORDER BY id',
    )) as Array<{ data: string }>;
    expect(held.map((row) => ({ ...row, data: JSON.parse(row.data) as unknown }))).toEqual(
      members.map((m) => ({ id: m.id, name: m.name, kind: m.kind ?? null, data: m })),
    );
    expect(
      await read('SELECT id, predecessor_id, successor_id, type FROM dependencies ORDER BY id'),
    ).toEqual([
      { id: 'd1', predecessor_id: 't1', successor_id: 't2', type: 'FS' },
      { id: 'd2', predecessor_id: 't2', successor_id: 't3', type: null },
    ]);
    // A second pass: one record changed, one gone, one as it was.
    const again = [members[0]!, { ...members[1]!, name: 'Bot 2' }];
    expect(await store.records.members.replace('p1', again, context)).toEqual(['m2', 'm3']);
    expect(await read('SELECT id, name FROM members ORDER BY id')).toEqual([
      { id: 'm1', name: 'Ann' },
      { id: 'm2', name: 'Bot 2' },
    ]);
  });
});
