/**
 * Migration 4 -> 5: the outbox learns the base of each edit (`base`), the conflict an item waits
 * in (`conflict`), and the states `conflict` and `discarded`. SQLite cannot change a CHECK in
 * place, so the table is rebuilt with its rows; its index and the trigger recording the base are
 * then made again from `schema.sql`. Items queued before have no base: they are sent unchecked.
 * The DDL is frozen here as of version 5.
 */
import type { SqliteDb } from './database.js';
import { dropViewsAndTriggers } from './derived-objects.js';

const OUTBOX_V5 = `
CREATE TABLE outbox_v5 (
  id              INTEGER PRIMARY KEY,
  op              TEXT NOT NULL,
  project_id      TEXT NOT NULL,
  target_id       TEXT,
  body            TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT NOT NULL UNIQUE DEFAULT (
    lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
    substr(lower(hex(randomblob(2))), 2) || '-' ||
    substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' ||
    lower(hex(randomblob(6)))
  ),
  state           TEXT NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'sending', 'done', 'failed', 'conflict', 'discarded')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  result          TEXT,
  request_body    TEXT,
  next_attempt_at TIMESTAMP,
  created_at      TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at      TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  token_label     TEXT,
  base            TEXT,
  conflict        TEXT
)`;

const COLUMNS = `id, op, project_id, target_id, body, idempotency_key, state, attempts, last_error,
  result, request_body, next_attempt_at, created_at, updated_at, token_label`;

/** Applies migration 4 -> 5 (see the module comment). */
export function conflictStep(db: SqliteDb): void {
  dropViewsAndTriggers(db);
  db.exec(OUTBOX_V5);
  db.exec(`INSERT INTO outbox_v5 (${COLUMNS}) SELECT ${COLUMNS} FROM outbox`);
  db.exec('DROP TABLE outbox');
  db.exec('ALTER TABLE outbox_v5 RENAME TO outbox');
}
