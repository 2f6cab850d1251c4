import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { syncWithCli } from '../fixtures/synced.js';
import { runCli } from '../fixtures/cli.js';

/** A mirror at schema version 1 (the first schema.sql, frozen in the fixture) with some rows. */
function versionOneMirror(): string {
  const file = join(tempDir(), 'old.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(readFileSync(new URL('../fixtures/schema-v1.sql', import.meta.url), 'utf8'));
  db.pragma('user_version = 1');
  const at = '2026-03-01T10:00:00.000Z';
  db.prepare(`INSERT INTO projects VALUES ('p1', 'Alpha', 1, NULL, ?, ?)`).run(
    JSON.stringify({ id: 'p1', name: 'Alpha', active: true, readOnlyReason: null, budget: 1200 }),
    at,
  );
  const task = db.prepare(`INSERT INTO tasks VALUES (?, 'p1', ?, ?, ?, ?, ?, ?, ?, ?)`);
  const tasks: Array<[string, string, string, string, string, number, string]> = [
    ['t1', 'Pour concrete', '2026-02-01', '2026-02-10', 'Done', 100, '2026-02-10T12:00:00+02:00'],
    ['t2', 'Frame walls', '2026-02-11', '2026-03-20', 'InProgress', 40, '2026-02-11T08:00:00Z'],
    ['t3', 'Install wiring', '2026-03-21', '2026-04-02', 'NotStarted', 0, 'not a time'],
  ];
  for (const [id, name, start, end, status, progress, updatedAt] of tasks) {
    const data = { id, name, startDate: start, endDate: end, status, progress, updatedAt };
    task.run(id, name, start, end, status, progress, updatedAt, JSON.stringify(data), at);
  }
  db.prepare(`DELETE FROM tasks WHERE id = 't2'`).run();
  const t2 = tasks[1]!;
  task.run(t2[0], t2[1], t2[2], t2[3], t2[4], t2[5], t2[6], JSON.stringify({ id: 't2' }), at);
  db.exec(`INSERT INTO task_assignees VALUES ('t2', 'm1'), ('t3', 'm9');
    INSERT INTO members VALUES ('p1', 'm1', 'Ann', 'person', '{"id":"m1","name":"Ann"}', '${at}');
    INSERT INTO dependencies VALUES ('p1', 'd1', 't2', 't3', 'FS',
      '{"id":"d1","predecessorId":"t2","successorId":"t3","type":"FS"}', '${at}');
    INSERT INTO task_history (task_id, project_id, observed_at, field, old_value, new_value)
      VALUES ('t2', 'p1', '${at}', 'status', 'NotStarted', 'InProgress');
    INSERT INTO outbox (op, project_id, body) VALUES ('task.delete', 'p1', '{}');
    INSERT INTO sync_state (project_id, backfill, last_pass_at) VALUES ('p1', 'done', '${at}');
    INSERT INTO daemon_state VALUES ('plan', '{}', '${at}');`);
  db.close();
  return file;
}

describe('migration 1 -> 2', () => {
  it('converts a version 1 mirror in place: types, rows, rowids, times, new objects', () => {
    const file = versionOneMirror();
    const before = new Database(file, { readonly: true });
    const rowids = before.prepare('SELECT id, rowid FROM tasks ORDER BY id').all();
    const outboxKey = before.prepare('SELECT idempotency_key FROM outbox').pluck().get();
    before.close();

    const db = openDatabase(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const type = (table: string, column: string) =>
        (db.pragma(`table_info(${table})`) as Array<{ name: string; type: string }>).find(
          (c) => c.name === column,
        )?.type;
      expect(type('tasks', 'start_date')).toBe('DATE');
      expect(type('tasks', 'updated_at')).toBe('TIMESTAMP');
      expect(type('projects', 'active')).toBe('BOOLEAN');
      expect(type('outbox', 'created_at')).toBe('TIMESTAMP');
      expect(type('sync_state', 'last_pass_at')).toBe('TIMESTAMP');
      expect(type('daemon_state', 'updated_at')).toBe('TIMESTAMP');
      // Constraints and defaults came along with the columns.
      expect(() => db.prepare(`UPDATE projects SET active = 7`).run()).toThrow(/CHECK/);
      db.prepare(`INSERT INTO outbox (op, project_id) VALUES ('task.delete', 'p1')`).run();

      expect(db.prepare('SELECT id, rowid FROM tasks ORDER BY id').all()).toEqual(rowids);
      expect(db.prepare('SELECT idempotency_key FROM outbox WHERE id = 1').pluck().get()).toBe(
        outboxKey,
      );
      expect(db.prepare('SELECT id, updated_at FROM tasks ORDER BY id').all()).toEqual([
        { id: 't1', updated_at: '2026-02-10T10:00:00.000Z' },
        { id: 't2', updated_at: '2026-02-11T08:00:00.000Z' },
        { id: 't3', updated_at: null },
      ]);
      expect(db.prepare('SELECT count(*) FROM task_history').pluck().get()).toBe(1);

      // The derived objects: indexes, views, full-text index, wide views.
      const names = db.prepare(`SELECT name FROM sqlite_master`).pluck().all();
      expect(names).toEqual(
        expect.arrayContaining([
          'tasks_open_by_end_date',
          'dependencies_by_successor',
          'v_dependencies',
          'v_member_week_load',
          'tasks_fts_after_insert',
          'tasks_fts_backfill_done',
        ]),
      );
      expect(names.filter((name) => String(name).includes('_fields_'))).toEqual([]);
      const search = db.prepare(
        `SELECT t.id FROM tasks_fts JOIN tasks t ON t.rowid = tasks_fts.rowid
         WHERE tasks_fts MATCH ? ORDER BY t.id`,
      );
      expect(search.pluck().all('wiring')).toEqual(['t3']);
      expect(db.prepare(`SELECT budget FROM v_projects_all`).pluck().get()).toBe(1200);
      expect(
        db
          .prepare(`SELECT is_blocking FROM v_dependencies WHERE dependency_id = 'd1'`)
          .pluck()
          .get(),
      ).toBe(1);

      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
      // Deleting the project still cascades (through the rebuilt tables) and keeps FTS in step.
      db.prepare(`DELETE FROM projects WHERE id = 'p1'`).run();
      expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM task_assignees').pluck().get()).toBe(0);
      expect(search.pluck().all('wiring')).toEqual([]);
      db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
    } finally {
      db.close();
    }
  });

  it('leaves a version 1 mirror untouched when a step fails', () => {
    const file = versionOneMirror();
    const db = new Database(file);
    // A table in the way of the rebuild: the step fails half-way and must roll back whole.
    db.exec(`CREATE TABLE tasks__retyped (x)`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/tasks__retyped/);
    const after = new Database(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(1);
    expect(after.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(3);
    after.close();
  });
});

/**
 * A mirror at schema version 5: the current schema with the objects version 5 had instead
 * (per-row triggers noting data fields, and full-text triggers indexing every row), holding a
 * project done and one whose backfill is in hand, both indexed as version 5 indexed them.
 */
function versionFiveMirror(): string {
  const file = join(tempDir(), 'v5.sqlite');
  openDatabase(file).close();
  const db = new Database(file);
  db.exec(`DROP TRIGGER tasks_fts_after_insert; DROP TRIGGER tasks_fts_backfill_begun;
    CREATE TRIGGER tasks_fts_after_insert AFTER INSERT ON tasks BEGIN
      INSERT INTO tasks_fts (rowid, name) VALUES (new.rowid, new.name);
    END;
    CREATE TRIGGER tasks_fields_after_insert AFTER INSERT ON tasks BEGIN
      INSERT INTO data_fields SELECT 'tasks', j.key, 'text', new.synced_at FROM json_each(new.data) j
      WHERE NOT EXISTS (SELECT 1 FROM data_fields f WHERE f.record_kind = 'tasks'
        AND f.field = j.key AND f.value_type = 'text');
    END;`);
  const at = '2026-11-01T10:00:00.000Z';
  const task = db.prepare(`INSERT INTO tasks (id, project_id, name, data, synced_at)
    VALUES (?, ?, ?, ?, ?)`);
  for (const [projectId, backfill] of [
    ['p1', 'done'],
    ['p2', 'in_progress'],
  ] as const) {
    db.prepare(`INSERT INTO projects (id, name, data, synced_at) VALUES (?, ?, '{}', ?)`).run(
      projectId,
      projectId,
      at,
    );
    db.prepare(`INSERT INTO sync_state (project_id, backfill) VALUES (?, ?)`).run(
      projectId,
      backfill,
    );
    const name = `Install wiring ${projectId}`;
    task.run(
      `${projectId}-t1`,
      projectId,
      name,
      JSON.stringify({ id: `${projectId}-t1`, name }),
      at,
    );
  }
  db.pragma('user_version = 5');
  db.close();
  return file;
}

describe('migration 5 -> 6', () => {
  it('drops the per-row field triggers and leaves an unfinished backfill out of full-text search', () => {
    const file = versionFiveMirror();
    const db = openDatabase(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const triggers = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%fields%'`)
        .pluck()
        .all();
      expect(triggers).toEqual([]);
      const fields = db
        .prepare(`SELECT field FROM data_fields WHERE record_kind = 'tasks' ORDER BY field`)
        .pluck()
        .all();
      expect(fields).toEqual(['id', 'name']);
      const search = db.prepare(
        `SELECT t.id FROM tasks_fts JOIN tasks t ON t.rowid = tasks_fts.rowid
         WHERE tasks_fts MATCH 'wiring' ORDER BY t.id`,
      );
      expect(search.pluck().all()).toEqual(['p1-t1']);
      db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
      // The backfill completes: its tasks are found from then on.
      db.prepare(`UPDATE sync_state SET backfill = 'done' WHERE project_id = 'p2'`).run();
      expect(search.pluck().all()).toEqual(['p1-t1', 'p2-t1']);
      db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
    } finally {
      db.close();
    }
  });
});

describe('migration 6 -> 7', () => {
  it('adds v_tasks_pending, which applies the items already queued', () => {
    const file = join(tempDir(), 'v6.sqlite');
    openDatabase(file).close();
    const db = new Database(file);
    db.exec(`DROP VIEW v_tasks_pending;
      INSERT INTO projects (id, name, data, synced_at)
        VALUES ('p1', 'P', '{}', '2026-11-01T10:00:00.000Z');
      INSERT INTO tasks (id, project_id, name, status, progress, data, synced_at)
        VALUES ('t1', 'p1', 'Pour', 'InProgress', 40, '{}', '2026-11-01T10:00:00.000Z');
      INSERT INTO outbox (op, project_id, target_id, body)
        VALUES ('task.update', 'p1', 't1', '{"status":"Done","name":"Poured"}');`);
    db.pragma('user_version = 6');
    db.close();
    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(
        migrated
          .prepare(
            'SELECT task_name, status, progress, pending_fields, pending_items FROM v_tasks_pending',
          )
          .all(),
      ).toEqual([
        {
          task_name: 'Poured',
          status: 'Done',
          progress: 100,
          pending_fields: '["task_name","status","progress"]',
          pending_items: 1,
        },
      ]);
    } finally {
      migrated.close();
    }
  });
});

describe('migration 9 -> 10', () => {
  it('adds change_rates, where the daemon keeps its change-rate estimates', () => {
    const file = join(tempDir(), 'v9.sqlite');
    openDatabase(file).close();
    const db = new Database(file);
    db.exec('DROP TABLE change_rates');
    db.pragma('user_version = 9');
    db.close();
    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      migrated
        .prepare(
          `INSERT INTO change_rates (item, state, looked_at, updated_at)
           VALUES ('p1', '{}', '2026-11-01T10:00:00.000Z', '2026-11-01T10:00:00.000Z')`,
        )
        .run();
      expect(migrated.prepare('SELECT item, looked_at FROM change_rates').all()).toEqual([
        { item: 'p1', looked_at: '2026-11-01T10:00:00.000Z' },
      ]);
    } finally {
      migrated.close();
    }
  });
});

/** Makes a mirror's full-text index as version 10 had it (with its token counts), at version 10. */
function toVersion10Index(db: Database.Database): void {
  db.exec(`DROP TABLE tasks_fts;
    CREATE VIRTUAL TABLE tasks_fts USING fts5(name, content = 'tasks', content_rowid = 'rowid',
      tokenize = 'unicode61 remove_diacritics 2');
    INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild');`);
  db.pragma('user_version = 10');
}

describe('migration 10 -> 11', () => {
  it('makes the full-text index again without token counts, every finished backfill in it', () => {
    const file = versionFiveMirror();
    const old = new Database(file);
    // Version 10's index: with its table of token counts, over both projects' rows as v5 had it.
    toVersion10Index(old);
    old.close();
    const db = openDatabase(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const tables = db
        .prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'tasks_fts_%' AND type = 'table'`)
        .pluck()
        .all();
      expect(tables.sort()).toEqual(['tasks_fts_config', 'tasks_fts_data', 'tasks_fts_idx']);
      const search = db.prepare(
        `SELECT t.id FROM tasks_fts JOIN tasks t ON t.rowid = tasks_fts.rowid
         WHERE tasks_fts MATCH 'wiring' ORDER BY rank, t.id`,
      );
      // The unfinished backfill's task stays out until it completes, as before.
      expect(search.pluck().all()).toEqual(['p1-t1']);
      db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
      db.prepare(`UPDATE sync_state SET backfill = 'done' WHERE project_id = 'p2'`).run();
      expect(search.pluck().all()).toEqual(['p1-t1', 'p2-t1']);
      const ranked = db.prepare(
        `SELECT bm25(tasks_fts) FROM tasks_fts WHERE tasks_fts MATCH 'wiring'`,
      );
      expect(
        ranked
          .pluck()
          .all()
          .every((score) => typeof score === 'number' && score < 0),
      ).toBe(true);
      db.prepare(`INSERT INTO tasks_fts (tasks_fts) VALUES ('integrity-check')`).run();
    } finally {
      db.close();
    }
  });
});

describe('migration 10 -> 11, as a user meets it', () => {
  it('projmirror sync makes the index of a version 10 mirror again, and finds its tasks', async () => {
    const token = 'glt_test_migration_fts_0123456789';
    const sim = await startTestSimulator({ projects: 1, tasks: 5, tokens: [token] });
    const { dir, db: file, sync: first } = await syncWithCli(sim, token);
    expect(first.code).toBe(0);
    // Made version 10 again: its index keeps the token counts (tasks_fts_docsize).
    const old = new Database(file);
    toVersion10Index(old);
    const name = old.prepare('SELECT name FROM tasks ORDER BY id LIMIT 1').pluck().get() as string;
    old.close();
    const remote = ['--base-url', sim.baseUrl, '--token-file', join(dir, 'token')];
    const again = await runCli(['sync', ...remote, '--db', file]);
    expect(again.code).toBe(0);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const docsize = db.prepare(`SELECT name FROM sqlite_master WHERE name = 'tasks_fts_docsize'`);
      expect(docsize.all()).toEqual([]);
      const word = /[A-Za-z]{3,}/.exec(name)![0];
      const found = db
        .prepare(
          `SELECT t.name FROM tasks_fts JOIN tasks t ON t.rowid = tasks_fts.rowid
           WHERE tasks_fts MATCH ? ORDER BY rank`,
        )
        .pluck()
        .all(word);
      expect(found).toContain(name);
    } finally {
      db.close();
    }
  });
});

describe('migration 11 -> 12', () => {
  it('adds the tables of pages kept by reference, and the triggers that save their texts', () => {
    const file = join(tempDir(), 'v11.sqlite');
    openDatabase(file).close();
    const old = new Database(file);
    old.exec(`DROP TRIGGER tasks_page_original_on_update; DROP TRIGGER tasks_page_original_on_delete;
      DROP TABLE task_page_originals; DROP TABLE task_page_refs;`);
    old.pragma('user_version = 11');
    old.close();
    const db = openDatabase(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const at = '2026-11-28T10:00:00.000Z';
      db.exec(`INSERT INTO projects (id, name, data, synced_at) VALUES ('p1', 'p1', '{}', '${at}');
        INSERT INTO tasks (id, project_id, name, data, synced_at)
          VALUES ('t1', 'p1', 'a', '{"id":"t1"}', '${at}');
        INSERT INTO task_page_refs VALUES ('p1', 500, 1);
        UPDATE tasks SET data = '{"id":"t1","name":"b"}' WHERE id = 't1';`);
      expect(db.prepare('SELECT task_id, data FROM task_page_originals').all()).toEqual([
        { task_id: 't1', data: '{"id":"t1"}' },
      ]);
    } finally {
      db.close();
    }
  });
});
