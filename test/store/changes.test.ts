/**
 * The change feed's triggers on SQLite (schema.sql), written through the store's connection as
 * every writer writes: one batch per transaction, nothing for a write of the same data, an
 * assignment cleared and added again in one transaction taken back, a project's delete standing
 * for its rows, a backfill's rows left out and one reload written when it completes.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteConnection } from '../../src/store/sqlite-connection.js';
import { tempDatabase } from '../fixtures/db.js';

interface Row {
  seq: number;
  batch: number;
  entity: string;
  entity_id: string;
  op: string;
  data: string | null;
  fields: string | null;
}

describe('the change feed on SQLite', () => {
  it('writes what changed, one batch per transaction of the store', async () => {
    const { db } = tempDatabase();
    const store = sqliteConnection(db);
    const run = (sql: string) => store.exec(sql);
    const feed = () => db.prepare('SELECT * FROM changes ORDER BY seq').all() as Row[];
    await store.transaction(async () => {
      await run(
        `INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'P', '{"id":"p_1"}', 'x')`,
      );
      await run(`INSERT INTO tasks (id, project_id, name, data, synced_at)
        VALUES ('t_1', 'p_1', 'one', '{"id":"t_1","name":"one"}', 'x')`);
      await run(`INSERT INTO task_assignees VALUES ('t_1', 'm_1'), ('t_1', 'm_2')`);
    });
    // The same data written again (the mirror moves synced_at): no row.
    await store.transaction(() => run(`UPDATE tasks SET synced_at = 'y'`));
    await store.transaction(async () => {
      await run(`UPDATE tasks SET name = 'uno', data = '{"id":"t_1","name":"uno"}'`);
      // A task's assignees rewritten: m_1 stays (nothing written), m_2 goes, m_3 comes.
      await run(`DELETE FROM task_assignees WHERE task_id = 't_1'`);
      await run(`INSERT INTO task_assignees VALUES ('t_1', 'm_1'), ('t_1', 'm_3')`);
    });
    // A savepoint rolled back takes its changes with it.
    await store.transaction(async () => {
      await store
        .transaction(async () => {
          await run(`DELETE FROM tasks WHERE id = 't_1'`);
          throw new Error('rolled back');
        })
        .catch(() => {});
      await run(`INSERT INTO members (project_id, id, name, data, synced_at)
        VALUES ('p_1', 'm_1', 'Ann', '{"id":"m_1"}', 'x')`);
    });
    const rows = feed();
    expect(rows.map((r) => [r.entity, r.entity_id, r.op])).toEqual([
      ['project', 'p_1', 'insert'],
      ['task', 't_1', 'insert'],
      ['assignment', 't_1:m_1', 'insert'],
      ['assignment', 't_1:m_2', 'insert'],
      ['task', 't_1', 'update'],
      ['assignment', 't_1:m_2', 'delete'],
      ['assignment', 't_1:m_3', 'insert'],
      ['member', 'm_1', 'insert'],
    ]);
    expect(rows.map((r) => r.batch)).toEqual([1, 1, 1, 1, 2, 2, 2, 3]);
    expect(rows[4]).toMatchObject({ data: '{"id":"t_1","name":"uno"}', fields: '["name"]' });
    expect(JSON.parse(rows[2]!.data!)).toEqual({ task_id: 't_1', member_id: 'm_1' });
    expect(db.prepare('SELECT open FROM change_batch').pluck().get()).toBeNull();

    // A project's delete stands for its rows: their cascades write none.
    await store.transaction(() => run(`DELETE FROM projects WHERE id = 'p_1'`));
    expect(
      feed()
        .slice(rows.length)
        .map((r) => [r.entity, r.entity_id, r.op]),
    ).toEqual([['project', 'p_1', 'delete']]);
  });

  it("never continues a batch another writer left open (a user's own UPDATE)", async () => {
    const { db, file } = tempDatabase();
    const store = sqliteConnection(db);
    await store.transaction(async () => {
      await store.exec(
        `INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'P', '{"id":"p_1"}', 'x')`,
      );
      await store.exec(`INSERT INTO tasks (id, project_id, name, data, synced_at)
        VALUES ('t_1', 'p_1', 'one', '{"id":"t_1","name":"one"}', 'x')`);
    });
    // Another connection, as sqlite3 or a BI tool: its UPDATE opens a batch nobody ends.
    const other = new Database(file);
    other.prepare(`UPDATE tasks SET name = 'mine', data = '{"id":"t_1","name":"mine"}'`).run();
    other.close();
    expect(db.prepare('SELECT open FROM change_batch').pluck().get()).not.toBeNull();
    await store.transaction(() =>
      store.exec(`UPDATE tasks SET name = 'uno', data = '{"id":"t_1","name":"uno"}'`),
    );
    const batches = db.prepare('SELECT batch FROM changes ORDER BY seq').pluck().all();
    // The store's inserts, the user's update, the store's update: three transactions, three batches.
    expect(batches).toEqual([1, 1, 2, 3]);
    expect(db.prepare('SELECT open FROM change_batch').pluck().get()).toBeNull();
  });

  it("leaves out a backfill's rows and writes one reload when it completes", async () => {
    const { db } = tempDatabase();
    const store = sqliteConnection(db);
    const run = (sql: string) => store.exec(sql);
    await store.transaction(async () => {
      await run(`INSERT INTO projects (id, name, data, synced_at) VALUES ('p_1', 'P', '{}', 'x')`);
      await run(`INSERT INTO sync_state (project_id, backfill) VALUES ('p_1', 'in_progress')`);
    });
    await store.transaction(async () => {
      for (let i = 0; i < 5; i++) {
        await run(
          `INSERT INTO tasks (id, project_id, data, synced_at) VALUES ('t_${i}', 'p_1', '{}', 'x')`,
        );
        await run(`INSERT INTO task_assignees VALUES ('t_${i}', 'm_1')`);
      }
    });
    await store.transaction(() => run(`UPDATE sync_state SET backfill = 'done'`));
    await store.transaction(() =>
      run(`INSERT INTO tasks (id, project_id, data, synced_at) VALUES ('t_9', 'p_1', '{}', 'x')`),
    );
    const rows = db.prepare('SELECT entity, entity_id, op FROM changes ORDER BY seq').raw().all();
    expect(rows).toEqual([
      ['project', 'p_1', 'insert'],
      ['project', 'p_1', 'reload'],
      ['task', 't_9', 'insert'],
    ]);
  });
});
