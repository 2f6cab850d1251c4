/**
 * The change feed on a real PostgreSQL: the triggers write what SQLite's write, and `seq` follows
 * commit order when two connections commit concurrently, in the order that would lose a change
 * were numbers handed out at insert time (the first to insert commits last).
 */
import pg from 'pg';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ChangesRepository } from '../../src/store/changes.js';
import { openMirror } from '../../src/store/open.js';
import { runCli } from '../fixtures/cli.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

let server: PgServer;

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

/** A fresh mirror (the schema applied as a daemon applies it) and a client in its schema. */
async function mirror(): Promise<{ url: string; client: () => Promise<pg.Client> }> {
  const url = await server.database();
  (await openMirror({ db: url }, 'write')).close();
  return {
    url,
    client: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('SET search_path TO projmirror');
      onTestFinished(() => client.end());
      return client;
    },
  };
}

interface Row {
  seq: string;
  batch: string;
  entity: string;
  entity_id: string;
  op: string;
  data: unknown;
  fields: unknown;
}

async function feed(client: pg.Client): Promise<Row[]> {
  return (
    await client.query<Row>(
      'SELECT seq, batch, entity, entity_id, op, data, fields FROM changes ORDER BY seq',
    )
  ).rows;
}

const TASK = (id: string, name: string) =>
  `INSERT INTO tasks (id, project_id, name, data, synced_at)
   VALUES ('${id}', 'p_1', '${name}', '{"id":"${id}","name":"${name}"}', now())`;

describe('the change feed on PostgreSQL', () => {
  it('writes inserts, updates with their fields, deletes; nothing for a write of the same data; a reload for a backfill', async () => {
    const { client } = await mirror();
    const db = await client();
    await db.query(
      `INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'P', '{"id":"p_1"}', now())`,
    );
    await db.query(TASK('t_1', 'one'));
    await db.query(
      `UPDATE tasks SET synced_at = now() + interval '1 hour', data = '{"name":"one", "id":"t_1"}'`,
    );
    await db.query(
      `UPDATE tasks SET name = 'uno', data = '{"id":"t_1","name":"uno"}' WHERE id = 't_1'`,
    );
    await db.query(`INSERT INTO task_assignees VALUES ('t_1', 'm_1'), ('t_1', 'm_2')`);
    // Assignees rewritten by clearing and adding, in one transaction: only m_2 left, m_3 came.
    await db.query('BEGIN');
    await db.query(`DELETE FROM task_assignees WHERE task_id = 't_1'`);
    await db.query(`INSERT INTO task_assignees VALUES ('t_1', 'm_1'), ('t_1', 'm_3')`);
    await db.query('COMMIT');
    await db.query(`DELETE FROM tasks WHERE id = 't_1'`);
    // A backfill: its rows are left out, one reload when it completes.
    await db.query(`INSERT INTO sync_state (project_id, backfill) VALUES ('p_1', 'in_progress')`);
    await db.query(TASK('t_2', 'two'));
    await db.query(`UPDATE sync_state SET backfill = 'done'`);
    const rows = await feed(db);
    expect(rows.map((r) => [r.entity, r.entity_id, r.op])).toEqual([
      ['project', 'p_1', 'insert'],
      ['task', 't_1', 'insert'],
      ['task', 't_1', 'update'],
      ['assignment', 't_1:m_1', 'insert'],
      ['assignment', 't_1:m_2', 'insert'],
      ['assignment', 't_1:m_2', 'delete'],
      ['assignment', 't_1:m_3', 'insert'],
      ['task', 't_1', 'delete'],
      ['project', 'p_1', 'reload'],
    ]);
    expect(rows[2]).toMatchObject({ data: { id: 't_1', name: 'uno' }, fields: ['name'] });
    expect(rows[3]!.data).toEqual({ task_id: 't_1', member_id: 'm_1' });
    // One batch per transaction, the rows of one transaction numbered together.
    expect(rows[5]!.batch).toBe(rows[6]!.batch);
    expect(rows[4]!.batch).not.toBe(rows[5]!.batch);
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    const pending = await db.query('SELECT count(*)::int AS n FROM change_commits');
    expect(pending.rows[0]).toEqual({ n: 0 });
    // A project's delete stands for its rows: their cascade writes nothing.
    await db.query(`DELETE FROM projects WHERE id = 'p_1'`);
    const last = (await feed(db)).slice(rows.length);
    expect(last.map((r) => [r.entity, r.entity_id, r.op])).toEqual([['project', 'p_1', 'delete']]);
  });

  it('numbers rows in commit order: the transaction that inserted first but commits last comes after', async () => {
    const { url, client } = await mirror();
    const a = await client();
    const b = await client();
    const reader = await client();
    await a.query(
      `INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'P', '{"id":"p_1"}', now())`,
    );
    const base = (await feed(reader)).length;
    await a.query('BEGIN');
    await a.query(TASK('t_a', 'from A'));
    await b.query('BEGIN');
    await b.query(TASK('t_b', 'from B'));
    await b.query('COMMIT');
    // A reader now sees B's row, and moves its cursor past it.
    const seen = await feed(reader);
    expect(seen.slice(base).map((r) => r.entity_id)).toEqual(['t_b']);
    const cursor = Number(seen.at(-1)!.seq);
    await a.query('COMMIT');
    const after = await reader.query<Row>('SELECT entity_id FROM changes WHERE seq > $1', [cursor]);
    expect(after.rows.map((r) => r.entity_id)).toEqual(['t_a']);

    // Many commits racing: every seq a reader sees is above all it saw before, none is lost.
    const writers = await Promise.all([client(), client(), client(), client()]);
    const observed: number[] = [];
    let last = Number((await feed(reader)).at(-1)!.seq);
    let reading = true;
    const poll = (async () => {
      while (reading) {
        const rows = await reader.query<{ seq: string }>(
          'SELECT seq FROM changes WHERE seq > $1 ORDER BY seq',
          [last],
        );
        for (const row of rows.rows) observed.push(Number(row.seq));
        if (rows.rows.length > 0) last = Number(rows.rows.at(-1)!.seq);
      }
    })();
    await Promise.all(
      writers.map(async (writer, w) => {
        for (let i = 0; i < 25; i++) {
          await writer.query('BEGIN');
          await writer.query(TASK(`t_${w}_${i}`, 'x'));
          await writer.query(`UPDATE tasks SET data = '{"v":${i}}' WHERE id = 't_${w}_${i}'`);
          await writer.query('COMMIT');
        }
      }),
    );
    reading = false;
    await poll;
    const tail = await reader.query<{ seq: string }>(
      'SELECT seq FROM changes WHERE seq > $1 ORDER BY seq',
      [last],
    );
    observed.push(...tail.rows.map((row) => Number(row.seq)));
    const all = (await feed(reader)).map((r) => Number(r.seq));
    expect(observed).toEqual(all.filter((seq) => seq > all.length - observed.length));
    expect(observed).toHaveLength(200);

    // The repository reads the same rows, data and fields as JSON text.
    const handle = await openMirror({ db: url }, 'read');
    try {
      const rows = await new ChangesRepository(handle).after(0, 3);
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(JSON.parse(rows[1]!.data!)).toEqual({ id: 't_b', name: 'from B' });
      expect(rows[1]!.committedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      handle.close();
    }
  });

  it('projmirror changes reads it as NDJSON, and exits 4 below what retention pruned', async () => {
    const { url, client } = await mirror();
    const db = await client();
    await db.query(
      `INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'P', '{"id":"p_1"}', now())`,
    );
    for (const id of ['t_1', 't_2', 't_3']) await db.query(TASK(id, id));
    const all = await runCli(['changes', '--db', url]);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Row);
    expect(lines.map((l) => [l.seq, l.entity_id, l.op])).toEqual([
      [1, 'p_1', 'insert'],
      [2, 't_1', 'insert'],
      [3, 't_2', 'insert'],
      [4, 't_3', 'insert'],
    ]);
    expect(lines[1]!.data).toEqual({ id: 't_1', name: 't_1' });

    await db.query(`UPDATE changes SET committed_at = now() - interval '40 days' WHERE seq <= 2`);
    const handle = await openMirror({ db: url }, 'write');
    try {
      expect(await new ChangesRepository(handle).prune(Date.now(), 30)).toBe(2);
    } finally {
      handle.close();
    }
    const expired = await runCli(['changes', '--db', url, '--since', '1']);
    expect(expired.code).toBe(4);
    expect(expired.stderr.trim().split('\n')).toEqual([
      'projmirror: --since 1 is older than the changes retention kept (the oldest change kept is seq 3): re-read the tables, then continue with --since 2',
    ]);
    const rest = await runCli(['changes', '--db', url, '--since', '2', '--limit', '1']);
    expect(
      rest.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Row).seq),
    ).toEqual([3]);
  });
});
