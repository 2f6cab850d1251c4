/**
 * A PostgreSQL mirror made by an earlier projmirror (schema version 4, its schema.pg.sql kept as
 * a fixture; and version 6, the current schema without v_tasks_pending) is brought to the current
 * schema when a daemon opens it: the same outbox columns, functions, trigger and views as a fresh
 * mirror, its rows kept, a plain SQL insert into the outbox records its base as on a fresh
 * mirror, and v_tasks_pending applies it.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { openMirror } from '../../src/store/open.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

let server: PgServer;

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

/** Runs `fn` with a client of `url` whose search path is the mirror's schema. */
async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET search_path TO projmirror');
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The schema version a PostgreSQL mirror records (`schema_meta`). */
async function schemaVersion(url: string): Promise<string | undefined> {
  return await withClient(
    url,
    async (client) =>
      (await client.query<{ value: string }>("SELECT value FROM schema_meta WHERE key = 'version'"))
        .rows[0]?.value,
  );
}

/** What the upgrade must make equal: the outbox's columns, and the schema's functions, triggers and views. */
async function shape(url: string): Promise<Record<string, string[]>> {
  return withClient(url, async (client) => {
    const list = async (sql: string) =>
      (await client.query<{ name: string }>(sql)).rows.map((row) => row.name).sort();
    return {
      columns: await list(
        `SELECT column_name || ' ' || data_type AS name FROM information_schema.columns
         WHERE table_schema = 'projmirror' AND table_name = 'outbox'`,
      ),
      functions: await list(
        `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = 'projmirror'`,
      ),
      triggers: await list(
        `SELECT tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'projmirror' AND NOT t.tgisinternal`,
      ),
      // Each view with its definition as the server prints it: an upgrade's view must be the
      // fresh schema's, not only have its name.
      views: await list(
        `SELECT c.relname || ' ' || md5(pg_get_viewdef(c.oid)) AS name FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'projmirror' AND c.relkind = 'v'`,
      ),
      indexes: await list(
        `SELECT indexdef AS name FROM pg_indexes WHERE schemaname = 'projmirror'`,
      ),
      checks: await list(
        `SELECT pg_get_constraintdef(oid) AS name FROM pg_constraint
         WHERE conrelid = 'projmirror.outbox'::regclass AND contype = 'c'`,
      ),
    };
  });
}

/** Queues a status change of `t_1` with plain SQL; the base recorded for it. */
async function queuedBase(url: string): Promise<unknown> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ base: string | null }>(
      `INSERT INTO outbox (op, project_id, target_id, body)
       VALUES ('task.update', 'p_1', 't_1', '{"status":"Done"}') RETURNING base`,
    );
    return JSON.parse(rows[0]!.base ?? 'null');
  });
}

describe('a PostgreSQL mirror of schema version 4', () => {
  it('is brought to the current schema when opened, like a fresh one, its rows kept', async () => {
    const old = await server.database();
    await withClient(old, async (client) => {
      await client.query('CREATE SCHEMA projmirror');
      await client.query('SET search_path TO projmirror');
      await client.query(
        readFileSync(new URL('../fixtures/schema-pg-v4.sql', import.meta.url), 'utf8'),
      );
      await client.query(
        `INSERT INTO projects (id, name, data, synced_at)
         VALUES ('p_1', 'Alpha', '{"id":"p_1","name":"Alpha"}', now())`,
      );
      await client.query(
        `INSERT INTO tasks (id, project_id, name, status, progress, data, synced_at)
         VALUES ('t_1', 'p_1', 'Pour', 'InProgress', 40,
           '{"id":"t_1","name":"Pour","status":"InProgress","progress":40}', now())`,
      );
      await client.query(
        `INSERT INTO outbox (op, project_id, target_id, body) VALUES ('task.update', 'p_1', 't_1', '{}')`,
      );
    });
    const fresh = await server.database();
    for (const url of [old, fresh]) (await openMirror({ db: url }, 'write')).close();
    // Opening again changes nothing more.
    (await openMirror({ db: old }, 'write')).close();

    expect(await shape(old)).toEqual(await shape(fresh));
    const version = await schemaVersion(old);
    expect(version).toBe(String(SCHEMA_VERSION));
    expect(
      await withClient(
        old,
        async (client) => (await client.query('SELECT op, base FROM outbox')).rows,
      ),
    ).toEqual([{ op: 'task.update', base: null }]);
    expect(await queuedBase(old)).toEqual({
      record: 'present',
      values: { status: 'InProgress', progress: 40 },
    });
    // Version 7's view: the queued status change applied, with the progress it derives.
    expect(await pendingTask(old)).toEqual({
      status: 'Done',
      progress: 100,
      pending_fields: '["status","progress"]',
      pending_items: '2',
    });
  }, 120_000);
});

/** The row of `t_1` in v_tasks_pending. */
async function pendingTask(url: string): Promise<unknown> {
  return withClient(
    url,
    async (client) =>
      (
        await client.query(
          `SELECT status, progress, pending_fields, pending_items FROM v_tasks_pending
           WHERE task_id = 't_1'`,
        )
      ).rows[0],
  );
}

describe('a PostgreSQL mirror of schema version 6', () => {
  it('gets v_tasks_pending when opened', async () => {
    const url = await server.database();
    (await openMirror({ db: url }, 'write')).close();
    await withClient(url, async (client) => {
      await client.query('DROP VIEW v_tasks_pending');
      await client.query("UPDATE schema_meta SET value = '6' WHERE key = 'version'");
      await client.query(
        `INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'Alpha', '{}', now())`,
      );
      await client.query(
        `INSERT INTO tasks (id, project_id, name, status, progress, data, synced_at)
         VALUES ('t_1', 'p_1', 'Pour', 'InProgress', 40, '{"status":"InProgress","progress":40}', now())`,
      );
    });
    const fresh = await server.database();
    (await openMirror({ db: fresh }, 'write')).close();
    (await openMirror({ db: url }, 'write')).close();
    expect(await shape(url)).toEqual(await shape(fresh));
    await queuedBase(url);
    await withClient(url, (client) =>
      client.query(`INSERT INTO outbox (op, project_id, target_id, body)
        VALUES ('task.update', 'p_1', 't_1', '{"progress":100}')`),
    );
    expect(await pendingTask(url)).toEqual({
      status: 'Done',
      progress: 100,
      pending_fields: '["status","progress"]',
      pending_items: '2',
    });
  }, 120_000);
});

describe('two daemons opening a PostgreSQL mirror of schema version 6 at once', () => {
  it('both open it, and it is upgraded once, to the fresh schema', async () => {
    const url = await server.database();
    (await openMirror({ db: url }, 'write')).close();
    await withClient(url, async (client) => {
      await client.query('DROP VIEW v_tasks_pending');
      await client.query("UPDATE schema_meta SET value = '6' WHERE key = 'version'");
    });
    // Two connections at once: the advisory lock makes the second wait, then find it current
    // (without it, both would create v_tasks_pending and one would fail).
    const opened = await Promise.all([
      openMirror({ db: url }, 'write'),
      openMirror({ db: url }, 'write'),
    ]);
    for (const mirror of opened) mirror.close();
    const fresh = await server.database();
    (await openMirror({ db: fresh }, 'write')).close();
    expect(await shape(url)).toEqual(await shape(fresh));
  }, 120_000);
});

describe('a PostgreSQL mirror of a newer schema version', () => {
  it('is refused, and left as it was', async () => {
    const url = await server.database();
    (await openMirror({ db: url }, 'write')).close();
    const newer = String(SCHEMA_VERSION + 1);
    await withClient(url, async (client) => {
      await client.query('DROP VIEW v_tasks_pending');
      await client.query("UPDATE schema_meta SET value = $1 WHERE key = 'version'", [newer]);
    });
    const before = await shape(url);
    for (const mode of ['write', 'read'] as const) {
      await expect(openMirror({ db: url }, mode)).rejects.toThrow(
        `at schema version ${newer}, newer than this projmirror (${SCHEMA_VERSION})`,
      );
    }
    expect(await shape(url)).toEqual(before);
    const version = await schemaVersion(url);
    expect(version).toBe(newer);
  }, 120_000);
});
