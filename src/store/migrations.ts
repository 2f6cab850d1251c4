/**
 * Schema versions. Version 1 is the first `schema.sql`; each later entry is the step that moves a
 * mirror from the version before it, applied in order inside one transaction, with foreign keys
 * off. A step changes tables only: views, triggers, indexes and the full-text index are then made
 * again from the current `schema.sql` (`derived-objects.ts`). A fresh mirror is `schema.sql` as a
 * whole, which always describes the latest version.
 */
import type { SqliteDb } from './database.js';
import { conflictStep } from './conflict-step.js';
import { typedColumnsStep } from './typed-columns-step.js';

/** One step between versions: SQL, or a function where SQL alone cannot say it. */
export type Migration = string | ((db: SqliteDb) => void);

export const MIGRATIONS: readonly Migration[] = [
  // 1 -> 2: declared types BI tools map, tasks.updated_at in UTC, the analysts' tables (issue 13).
  typedColumnsStep,
  // 2 -> 3: the token each outbox item is sent with (several tokens, issue 14).
  'ALTER TABLE outbox ADD COLUMN token_label TEXT',
  // 3 -> 4: no table changes; the views, made again after the steps, are in SQL that DuckDB binds
  // too (issue 22), and a mirror made before must get them.
  '',
  // 4 -> 5: the base of each outbox item, its conflict, and the states conflict and discarded
  // (issue 21).
  conflictStep,
  // 5 -> 6: no table changes; the per-row triggers that noted data fields are gone (the writer
  // notes them, in bulk), and full-text search skips the rows of a backfill until it completes
  // (issue 20): the derived objects, made again after the steps, say so.
  '',
  // 6 -> 7: no table changes; the view v_tasks_pending (the tasks with the outbox's pending
  // updates applied, issue 21), made with the derived objects after the steps.
  '',
  // 7 -> 8: no table changes; v_tasks and v_overdue_tasks give '[]' for a task nobody is
  // assigned to in DuckDB too, not NULL (issue 22), made with the derived objects after the steps.
  // (PostgreSQL drops its per-row field triggers: schema.pg.upgrades.sql.)
  '',
  // 8 -> 9: the change feed (issue 37): the table `changes` and the batch counter its triggers
  // (made with the derived objects after the steps) number transactions with. IF NOT EXISTS: a
  // test's mirror of an earlier version is made from the current schema.sql.
  `CREATE TABLE IF NOT EXISTS changes (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    committed_at TIMESTAMP NOT NULL,
    batch        INTEGER NOT NULL,
    entity       TEXT NOT NULL,
    project_id   TEXT NOT NULL,
    entity_id    TEXT NOT NULL,
    op           TEXT NOT NULL,
    data         TEXT,
    fields       TEXT
  );
  CREATE TABLE IF NOT EXISTS change_batch (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    last INTEGER NOT NULL DEFAULT 0,
    open INTEGER
  );
  INSERT OR IGNORE INTO change_batch (id) VALUES (1);`,
  // 9 -> 10: each polled item's change-rate evidence, kept across restarts (issue 35).
  `CREATE TABLE IF NOT EXISTS change_rates (
    item       TEXT PRIMARY KEY,
    state      TEXT NOT NULL,
    looked_at  TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
  ) WITHOUT ROWID`,
  // 10 -> 11: the full-text index keeps no token count a name (`columnsize = 0`, issue 36): it
  // goes, and is made again (and rebuilt) with the derived objects after the steps.
  'DROP TABLE IF EXISTS tasks_fts',
  // 11 -> 12: kept pages that hold a backfill's tasks by reference (issue 36), and the texts such
  // a page needs once its tasks change; the triggers that save them come with the derived
  // objects after the steps.
  `CREATE TABLE IF NOT EXISTS task_page_refs (
    project_id TEXT NOT NULL,
    page_size  INTEGER NOT NULL,
    page       INTEGER NOT NULL,
    PRIMARY KEY (project_id, page_size, page)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS task_page_originals (
    project_id TEXT NOT NULL,
    task_id    TEXT NOT NULL,
    data       TEXT NOT NULL,
    PRIMARY KEY (project_id, task_id)
  ) WITHOUT ROWID;`,
];

/** The version a mirror is at once migrated: 1 plus one per step. */
export const SCHEMA_VERSION = 1 + MIGRATIONS.length;
