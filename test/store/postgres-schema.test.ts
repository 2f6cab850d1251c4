/**
 * schema.pg.sql against a real PostgreSQL: a SQLite mirror built the way the daemon builds one is
 * copied row by row into it, and every view must return SQLite's rows.
 */
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pino from 'pino';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../src/daemon/wiring.js';
import { zonedDay } from '../../src/domain/index.js';
import { isoTime } from '../../src/store/database.js';
import { connectionOf } from '../../src/store/handle.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { REPORT_VIEW_NAMES } from '../../src/store/report-views.js';
import { applyTimeZoneToReader, recordTimeZone } from '../../src/store/timezone.js';
import { noteHeldFields, refreshWideViews, WIDE_VIEWS } from '../../src/store/wide-views.js';
import { singleToken } from '../../src/tokens/index.js';
import { tempDatabase } from '../fixtures/db.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { buildReportMirror, queuePendingEdits, zoneOffTheUtcDay } from '../report/mirror.js';
import { addCraftedRows, EVERY_KIND_JSON } from './postgres-schema/crafted.js';
import {
  applySchema,
  connect,
  copyRows,
  expectSameRows,
  icuDatabase,
  pgType,
  postgresRows,
  sqliteRows,
  sortedLists,
  sqliteTables,
  SQLITE_ONLY_TABLES,
} from './postgres-schema/mirror-copy.js';

const TOKEN = 'glt_test_pg_schema_0123456789abcdef';
const VIEWS = [...REPORT_VIEW_NAMES, 'v_task_assignees', 'v_today'];
const WIDE = Object.values(WIDE_VIEWS).map((wide) => wide.view);

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
});

/** A new database with schema.pg.sql applied, and a client whose search_path is its schema. */
async function freshPostgres(): Promise<pg.Client> {
  const client = await connect(await server.database());
  await applySchema(client);
  return client;
}

/** Like freshPostgres, in a database that sorts text by ICU's en-US rules ('m' before 'Z'). */
async function freshIcuPostgres(): Promise<pg.Client> {
  const client = await connect(await icuDatabase(server.adminUrl));
  await applySchema(client);
  return client;
}

/** The report mirror (four days of syncs) with the crafted rows, its wide views refreshed. */
async function reportMirror() {
  const mirror = await buildReportMirror();
  addCraftedRows(mirror.db, isoTime(Date.now() - 60_000));
  // Queued edits, which v_tasks_pending applies (or not) as schema.sql's does.
  await queuePendingEdits((sql, params) => mirror.db.prepare(sql).run(...params));
  // Rows inserted by hand: their fields noted as an upgrade notes the rows held.
  noteHeldFields(mirror.db);
  await refreshWideViews(connectionOf(mirror.db));
  return mirror;
}

async function one<T>(client: pg.Client, sql: string): Promise<T> {
  return (await client.query(sql)).rows[0] as T;
}

describe('schema.pg.sql', () => {
  it("has schema.sql's tables, views, columns and indexes, in PostgreSQL's types", async () => {
    const { db } = tempDatabase();
    const client = await freshPostgres();
    const sqlite = new Map<string, Array<{ name: string; type: string }>>();
    const objects = db
      .prepare<[], { name: string; type: string }>(
        `SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')
         AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'tasks_fts%' AND name <> 'column_types'`,
      )
      .all();
    for (const { name } of objects) sqlite.set(name, db.pragma(`table_info(${name})`) as never);
    const { rows } = await client.query<{ table: string; column: string; type: string }>(
      `SELECT table_name AS table, column_name AS column, data_type AS type
       FROM information_schema.columns WHERE table_schema = 'projmirror'
       ORDER BY table_name, ordinal_position`,
    );
    const postgres = new Map<string, Array<{ column: string; type: string }>>();
    for (const row of rows) postgres.set(row.table, [...(postgres.get(row.table) ?? []), row]);

    // change_batch numbers SQLite's transactions; PostgreSQL has their ids, and change_commits.
    sqlite.delete('change_batch');
    for (const name of SQLITE_ONLY_TABLES) sqlite.delete(name);
    const pgOnly = ['daemons', 'project_leases', 'schema_meta', 'change_commits'];
    expect([...postgres.keys()].sort()).toEqual([...sqlite.keys(), ...pgOnly].sort());
    for (const [name, columns] of sqlite) {
      const isView = objects.find((o) => o.name === name)!.type === 'view';
      const expected = columns.map((c) => ({ column: c.name, type: pgType(name, c, isView) }));
      if (name === 'outbox') expected.push({ column: 'claimed_by', type: 'text' });
      const actual = postgres.get(name)!.map(({ column, type }) => ({ column, type }));
      expect(actual, name).toEqual(expected);
    }

    const sqliteIndexes = db
      .prepare<[], { name: string; tbl_name: string }>(
        `SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'`,
      )
      .all()
      .flatMap((index) => (SQLITE_ONLY_TABLES.includes(index.tbl_name) ? [] : [index.name]));
    const pgIndexes = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'projmirror'
       WHERE NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    );
    expect(pgIndexes.rows.map((r) => r.name).sort()).toEqual(
      [...sqliteIndexes, 'tasks_fts', 'project_leases_by_daemon'].sort(),
    );
  });

  it('gives every reporting view the rows SQLite gives, over four days of syncs', async () => {
    const { db } = await reportMirror();
    const client = await freshIcuPostgres();
    await copyRows(db, client);
    await expectSameRows(db, client, VIEWS);
    for (const view of REPORT_VIEW_NAMES) {
      expect(sqliteRows(db, view).rows.length, view).toBeGreaterThan(0);
    }
    // Byte order, as SQLite sorts; the crafted project's average progress, 1.15 as a double,
    // rounds down as in SQLite.
    expect(
      await one(
        client,
        `SELECT avg_progress FROM v_project_progress WHERE project_id = 'p_crafted'`,
      ),
    ).toEqual({ avg_progress: 1.1 });
    const assigned = await one(
      client,
      `SELECT assignee_ids, assignee_names, assignees FROM v_tasks WHERE task_id = 't_c03'`,
    );
    expect(assigned).toEqual({
      assignee_ids: '["m_emile","m_gone","m_quote"]',
      assignee_names: '["Zoë \\"Z\\" \\\\ tab\\there\\u0001","m_gone","Émile Zola"]',
      assignees: 'Zoë "Z" \\ tab\there\u0001, m_gone, Émile Zola',
    });
  });

  it('gives the same rows over a generated mirror of several hundred tasks', async () => {
    const sim = await startTestSimulator({
      projects: 3,
      tasks: [400, 60, 0],
      readOnlyProjects: 1,
      membersPerProject: 4,
      dependenciesPerProject: 12,
      tokens: [TOKEN],
      limits: false,
    });
    const { db } = tempDatabase();
    const engine = await openEngine(
      { baseUrl: new URL(sim.baseUrl), tokens: singleToken(TOKEN) },
      { db, logger: pino({ level: 'silent' }) },
    );
    try {
      expect((await engine.mirror.syncAll()).ok).toBe(true);
      const [first, second, third] = sim.service.listTasks('p_1');
      sim.service.updateTask(first!.id, { status: 'Done', progress: 100 });
      sim.service.updateTask(second!.id, { status: 'InProgress', progress: 10 });
      sim.service.deleteTask(third!.id);
      sim.service.createTask('p_2', { name: 'Late addition', startDate: '2026-10-01' });
      expect((await engine.mirror.syncAll()).ok).toBe(true);
    } finally {
      await engine.close();
    }
    const client = await freshPostgres();
    await copyRows(db, client);
    expect(sqliteRows(db, 'v_tasks').rows.length).toBe(460);
    await expectSameRows(db, client, VIEWS);
    await client.query('SELECT refresh_wide_views()');
    await expectSameRows(db, client, WIDE, 'json');
  });

  it("takes today in the recorded zone, or in the reader's SET projmirror.timezone", async () => {
    const { db, file } = await reportMirror();
    const client = await freshPostgres();
    await copyRows(db, client);
    const utcDay = new Date().toISOString().slice(0, 10);
    expect(await one(client, 'SELECT * FROM v_today')).toEqual({
      day: utcDay,
      timezone: 'UTC',
      utc_offset_minutes: 0,
    });

    const zone = zoneOffTheUtcDay();
    await recordTimeZone(db, zone, Date.now());
    await client.query('DELETE FROM timezone_offsets');
    await copyRows(db, client, ['timezone_offsets']);
    const zoned = { day: zonedDay(zone, Date.now()), timezone: zone };
    expect(zoned.day).not.toBe(utcDay);
    expect(await one(client, 'SELECT day, timezone FROM v_today')).toEqual(zoned);
    await expectSameRows(db, client, VIEWS);

    // A reader's own zone beats the recorded one; SQLite's reader takes it with TEMP views.
    const reader = new Database(file);
    try {
      await applyTimeZoneToReader(reader, 'UTC', Date.now());
      await client.query(`SET projmirror.timezone = 'UTC'`);
      expect(await one(client, 'SELECT day, timezone FROM v_today')).toEqual({
        day: utcDay,
        timezone: 'UTC',
      });
      await expectSameRows(reader, client, VIEWS);
    } finally {
      reader.close();
    }

    // Without recorded offsets, PostgreSQL's time zone database gives the same offset.
    await client.query('DELETE FROM timezone_offsets');
    await client.query(`SET projmirror.timezone = '${zone}'`);
    await expectSameRows(db, client, VIEWS);
    const offset = await one<{ utc_offset_minutes: number }>(client, 'SELECT * FROM v_today');
    expect(offset.utc_offset_minutes).toBe(zone === 'Pacific/Kiritimati' ? 840 : -660);
    await client.query('RESET projmirror.timezone');
    expect(await one(client, 'SELECT day, timezone FROM v_today')).toEqual({
      day: utcDay,
      timezone: 'UTC',
    });
  });

  it("makes SQLite's wide views from SQLite's data_fields (the writer notes them on both engines)", async () => {
    const { db } = await reportMirror();
    const client = await freshPostgres();
    await copyRows(
      db,
      client,
      sqliteTables(db).filter((table) => table !== 'data_fields'),
    );
    // No trigger notes fields on PostgreSQL either (schema version 8): the writer does.
    expect((await postgresRows(client, 'data_fields')).rows).toEqual([]);

    // The views from SQLite's own data_fields (first_seen_at orders clashing names).
    await client.query('DELETE FROM data_fields');
    await copyRows(db, client, ['data_fields']);
    await client.query('SELECT refresh_wide_views()');
    await expectSameRows(db, client, WIDE, 'json');
    const columns = (await postgresRows(client, 'v_tasks_all')).columns;
    expect(columns).toEqual(expect.arrayContaining(['task_id_2', 'Name_2', 'when', 'mixed']));
    expect(columns).not.toContain('custom"quote');
  });

  it('recreates only the wide view whose fields changed, and none when none did', async () => {
    const { db } = await reportMirror();
    const client = await freshPostgres();
    await copyRows(db, client);
    const refresh = async () =>
      (await one<{ n: number }>(client, 'SELECT refresh_wide_views() AS n')).n;
    const oids = async () =>
      (
        await client.query<{ name: string; oid: number }>(
          `SELECT relname AS name, oid::bigint AS oid FROM pg_class
           WHERE relname LIKE 'v\\_%\\_all' ORDER BY relname`,
        )
      ).rows;
    expect(await refresh()).toBe(5); // the copy gave every kind of record its fields
    expect(await refresh()).toBe(0);
    const before = await oids();
    expect(before).toHaveLength(5);

    // Rows and their fields as the writer writes them (it notes what is new).
    await client.query(
      `UPDATE tasks SET data = data || '{"zzNew": "2026-11-30"}' WHERE id = 't_c01';
       INSERT INTO data_fields VALUES ('tasks', 'zzNew', 'date', now())`,
    );
    expect(await refresh()).toBe(1);
    const after = await oids();
    expect(after.filter((view, i) => view.oid !== before[i]!.oid).map((v) => v.name)).toEqual([
      'v_tasks_all',
    ]);
    expect(await one(client, `SELECT "zzNew" FROM v_tasks_all WHERE task_id = 't_c01'`)).toEqual({
      zzNew: '2026-11-30',
    });
    expect(await refresh()).toBe(0);

    // A new kind of value retypes the column: budget was a number, now also text.
    await client.query(
      `UPDATE projects SET data = data || '{"budget": "n/a"}' WHERE id = 'p_empty';
       INSERT INTO data_fields VALUES ('projects', 'budget', 'text', now())`,
    );
    expect(await refresh()).toBe(1);
    const budgets = await client.query(`SELECT budget FROM v_projects_all ORDER BY project_id`);
    expect(budgets.rows.map((r: { budget: unknown }) => r.budget)).toContain('n/a');
  });

  it('types every kind of value as SQLite classifies it, and reads a surprising one as NULL', async () => {
    const { db } = tempDatabase();
    const insert = `INSERT INTO projects (id, name, data, synced_at)
      VALUES ('p_x', 'X', $1, '2026-11-21T00:00:00.000Z')`;
    db.prepare(insert.replace('$1', '?')).run(EVERY_KIND_JSON);
    noteHeldFields(db);
    const client = await freshPostgres();
    await client.query(insert, [EVERY_KIND_JSON]);
    await copyRows(db, client, ['data_fields']);

    expect(await one(client, 'SELECT refresh_wide_views() AS n')).toEqual({ n: 1 });
    const row = await one<Record<string, unknown>>(client, 'SELECT * FROM v_projects_all');
    expect(Object.keys(row)).not.toContain('');
    expect(Object.keys(row)).not.toContain('has"quote');
    expect(row).toMatchObject({
      day: '2026-11-21',
      at: new Date('2026-11-21T09:30:00.000Z'),
      atSpace: new Date('2026-11-21T09:30:00.000Z'),
      almost: '2026-11-2',
      yes: true,
      count: -7,
      big: 2 ** 63, // clamped to 9223372036854775807, read as a double
      ratio: 1.5,
      whole: 1,
      list: '[1, "a"]',
      missing: null,
      badDay: null,
      badTime: null,
      oddTime: null,
    });
  });

  it('defaults an outbox row to a random UUID v4 key, pending, now; and names itself', async () => {
    const client = await freshPostgres();
    await client.query(
      `INSERT INTO outbox (op, project_id, target_id, body) VALUES
       ('task.update', 'p_1', 't_1', '{"name":"A"}'), ('task.delete', 'p_1', 't_2', '{}')`,
    );
    const { rows } = await client.query<Record<string, unknown>>(
      `SELECT id, idempotency_key, state, attempts, claimed_by, created_at, updated_at
       FROM outbox ORDER BY id`,
    );
    expect(rows.map((row) => row['id'])).toEqual([1, 2]);
    for (const row of rows) {
      expect(row['idempotency_key']).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(row).toMatchObject({ state: 'pending', attempts: 0, claimed_by: null });
      expect(Math.abs((row['created_at'] as Date).getTime() - Date.now())).toBeLessThan(60_000);
    }
    expect(rows[0]!['idempotency_key']).not.toBe(rows[1]!['idempotency_key']);
    await expect(client.query(`UPDATE outbox SET state = 'lost' WHERE id = 1`)).rejects.toThrow(
      /check constraint/,
    );
    const meta = await client.query('SELECT key, value FROM schema_meta ORDER BY key');
    expect(meta.rows).toEqual([
      { key: 'application', value: 'projmirror' },
      { key: 'version', value: String(SCHEMA_VERSION) },
    ]);
  });

  it("records an outbox item's base as schema.sql's trigger does, and lists conflicts alike", async () => {
    const { db } = await reportMirror();
    const client = await freshPostgres();
    await copyRows(db, client);
    const task = db
      .prepare<[], { id: string; project_id: string }>(
        'SELECT id, project_id FROM tasks ORDER BY id LIMIT 1',
      )
      .get()!;
    const resource = db
      .prepare<[], { id: string; project_id: string }>(
        'SELECT id, project_id FROM resources ORDER BY id LIMIT 1',
      )
      .get();
    const items: Array<[string, string, string | null, string]> = [
      ['task.update', task.project_id, task.id, '{"status":"Done"}'],
      ['task.update', task.project_id, task.id, '{"name":"N","progress":5,"extra":1}'],
      ['task.set_assignees', task.project_id, task.id, '{"assigneeIds":[]}'],
      ['task.update', task.project_id, 't_absent', '{"endDate":"2026-01-01"}'],
      ['dependency.set', task.project_id, null, '[]'],
      ['task.update', task.project_id, task.id, 'not json'],
      ['task.create', task.project_id, null, '{"name":"x"}'],
    ];
    if (resource) items.push(['resource.update', resource.project_id, resource.id, '{"name":"R"}']);
    const insert = 'INSERT INTO outbox (op, project_id, target_id, body, created_at) VALUES ';
    const at = '2026-11-21T09:30:00.000Z';
    db.prepare('DELETE FROM outbox').run();
    await client.query('DELETE FROM outbox');
    for (const item of items) db.prepare(`${insert} (?, ?, ?, ?, ?)`).run(...item, at);
    for (const item of items) await client.query(`${insert} ($1, $2, $3, $4, $5)`, [...item, at]);
    const parse = (text: unknown) => (text === null ? null : (JSON.parse(String(text)) as unknown));
    const sqliteBases = db.prepare('SELECT base FROM outbox ORDER BY id').pluck().all().map(parse);
    const pgBases = (await client.query('SELECT base FROM outbox ORDER BY id')).rows.map((r) =>
      parse(r['base']),
    );
    expect(sqliteBases.filter((base) => base !== null)).toHaveLength(items.length - 2);
    expect(pgBases).toEqual(sqliteBases);
    const conflict = JSON.stringify({
      fields: 'status',
      base: { status: 'NotStarted' },
      local: { status: 'Done' },
      remote: null,
    });
    const mark = `UPDATE outbox SET state = 'conflict', last_error = 'conflict: x', conflict = `;
    db.prepare(`${mark} ? WHERE op = 'task.update'`).run(conflict);
    await client.query(`${mark} $1 WHERE op = 'task.update'`, [conflict]);
    await expectSameRows(db, client, ['v_outbox_conflicts'], 'json');
    expect(sqliteRows(db, 'v_outbox_conflicts').rows.length).toBe(4);
  });

  it('finds the tasks SQLite full-text search finds, through the tasks_fts index', async () => {
    const { db } = await reportMirror();
    const client = await freshPostgres();
    await copyRows(db, client);
    const query = `SELECT id FROM tasks
      WHERE to_tsvector('simple', coalesce(name, '')) @@ plainto_tsquery('simple', 'wiring')`;
    const found = (await client.query<{ id: string }>(query)).rows.map((r) => r.id).sort();
    const expected = db
      .prepare<[], string>(
        `SELECT t.id FROM tasks_fts JOIN tasks t ON t.rowid = tasks_fts.rowid
         WHERE tasks_fts MATCH 'wiring' ORDER BY t.id`,
      )
      .pluck()
      .all();
    expect(expected).toHaveLength(20);
    expect(found).toEqual(expected);
    await client.query('SET enable_seqscan = off');
    const plan = await client.query(`EXPLAIN ${query}`);
    expect(JSON.stringify(plan.rows)).toContain('tasks_fts');
  });
});

describe("docs/schema.md's PostgreSQL section", () => {
  const doc = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('\n## PostgreSQL'));
  const queries = (text: string) =>
    [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().replace(/;$/, ''));

  it('documents exactly the columns of the tables only PostgreSQL has', async () => {
    const client = await freshPostgres();
    const documented = section
      .split(/\n(?=### )/)
      .map((part) => /^### `([a-z_]+)`\n([\s\S]*)/.exec(part))
      .filter((match) => match !== null);
    expect(documented.map((m) => m[1])).toEqual([
      'schema_meta',
      'daemons',
      'project_leases',
      'change_commits',
    ]);
    for (const [, table, body] of documented) {
      const columns = await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
         WHERE table_schema = 'projmirror' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      const rows = [...body!.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
      expect(rows, table).toEqual(columns.rows.map((c) => c.name));
    }
  });

  it("runs every query, and each analyst's question answers as SQLite's does", async () => {
    const { db } = await reportMirror();
    const client = await freshPostgres();
    await copyRows(db, client);
    await client.query('SELECT refresh_wide_views()');
    const sqlite = queries(doc.slice(0, doc.indexOf('\n## PostgreSQL')));
    let compared = 0;
    for (const sql of queries(section)) {
      await expect(client.query(sql), sql).resolves.toBeDefined();
      const title = /^-- (.+) \(PostgreSQL\)\n/.exec(sql)?.[1];
      if (title === undefined) continue;
      const twin = sqlite.find((query) => query.startsWith(`-- ${title}\n`))!;
      const expected = sortedLists(sqliteRows(db, `(${twin})`).rows);
      expect(expected.length, title).toBeGreaterThan(0);
      expect(sortedLists((await postgresRows(client, `(${sql}) AS q`)).rows), title).toEqual(
        expected,
      );
      compared += 1;
    }
    expect(compared).toBe(5);
  });
});
