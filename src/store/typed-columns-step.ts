/**
 * Migration 1 -> 2: every column gets the declared type BI tools map (dates DATE, times
 * TIMESTAMP, flags BOOLEAN; the stored values stay the same text and 0/1), `tasks.updated_at` is
 * normalized to ISO-8601 UTC with milliseconds, and the tables of the time zone, the type carrier
 * and the field registry are created. The DDL of the new tables is frozen here as of version 2.
 */
import type { SqliteDb } from './database.js';
import { dropViewsAndTriggers } from './derived-objects.js';
import { retypeColumns, type Retype } from './retype.js';

const TIMESTAMP = 'TIMESTAMP';

/** Each table's columns and their new declared types. */
const RETYPES: readonly Retype[] = [
  { table: 'projects', columns: { active: 'BOOLEAN', synced_at: TIMESTAMP } },
  {
    table: 'tasks',
    columns: { start_date: 'DATE', end_date: 'DATE', updated_at: TIMESTAMP, synced_at: TIMESTAMP },
  },
  { table: 'members', columns: { synced_at: TIMESTAMP } },
  { table: 'resources', columns: { synced_at: TIMESTAMP } },
  { table: 'dependencies', columns: { synced_at: TIMESTAMP } },
  { table: 'task_history', columns: { observed_at: TIMESTAMP } },
  {
    table: 'outbox',
    columns: { next_attempt_at: TIMESTAMP, created_at: TIMESTAMP, updated_at: TIMESTAMP },
  },
  {
    table: 'sync_state',
    columns: { last_pass_at: TIMESTAMP, last_change_at: TIMESTAMP, last_error_at: TIMESTAMP },
  },
  { table: 'task_pages', columns: { read_at: TIMESTAMP } },
  { table: 'daemon_state', columns: { updated_at: TIMESTAMP } },
];

const NEW_TABLES = `
CREATE TABLE timezone_offsets (
  starts_at      TIMESTAMP PRIMARY KEY,
  zone           TEXT NOT NULL,
  offset_minutes INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE column_types (
  text      TEXT,
  integer   INTEGER,
  real      REAL,
  boolean   BOOLEAN,
  date      DATE,
  timestamp TIMESTAMP
);
CREATE TABLE data_fields (
  record_kind   TEXT NOT NULL,
  field         TEXT NOT NULL,
  value_type    TEXT NOT NULL,
  first_seen_at TIMESTAMP NOT NULL,
  PRIMARY KEY (record_kind, field, value_type)
) WITHOUT ROWID;
`;

/** Applies migration 1 -> 2 (see the module comment). */
export function typedColumnsStep(db: SqliteDb): void {
  dropViewsAndTriggers(db);
  for (const retype of RETYPES) retypeColumns(db, retype);
  // The form isoTime() writes; an updatedAt that SQLite cannot read as a time becomes NULL, as
  // the writer stores it (the service's value stays in `data`).
  db.exec(`UPDATE tasks SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', updated_at)
           WHERE updated_at IS NOT strftime('%Y-%m-%dT%H:%M:%fZ', updated_at)`);
  db.exec(NEW_TABLES);
}
