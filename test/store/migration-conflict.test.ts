import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { tempDatabase } from '../fixtures/db.js';

/** The outbox of schema version 4, as it was. */
const OUTBOX_V4 = `CREATE TABLE outbox (
  id INTEGER PRIMARY KEY, op TEXT NOT NULL, project_id TEXT NOT NULL, target_id TEXT,
  body TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT NOT NULL UNIQUE DEFAULT (lower(hex(randomblob(16)))),
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, result TEXT, request_body TEXT,
  next_attempt_at TIMESTAMP,
  created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  token_label TEXT)`;

describe('migration 4 -> 5', () => {
  it('keeps every item, adds base and conflict, the new states, and the trigger recording the base', () => {
    const { db, file } = tempDatabase();
    const fresh = (db.pragma('table_info(outbox)') as { name: string }[]).map((c) => c.name);
    db.exec('DROP TABLE outbox');
    db.exec(OUTBOX_V4);
    db.exec(`INSERT INTO projects VALUES ('p_1', 'P', 1, NULL, '{}', '2026-01-01T00:00:00.000Z')`);
    db.exec(`INSERT INTO tasks (id, project_id, status, progress, data, synced_at)
      VALUES ('t_1', 'p_1', 'InProgress', 40, '{"id":"t_1","status":"InProgress","progress":40}',
      '2026-01-01T00:00:00.000Z')`);
    db.exec(`INSERT INTO outbox (op, project_id, target_id, body, state, token_label)
      VALUES ('task.update', 'p_1', 't_1', '{"status":"Done"}', 'failed', 'main')`);
    db.pragma('user_version = 4');
    db.close();

    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const columns = (migrated.pragma('table_info(outbox)') as { name: string }[]).map(
        (c) => c.name,
      );
      expect(columns).toEqual(fresh);
      expect(migrated.prepare('SELECT id, state, token_label, base FROM outbox').all()).toEqual([
        { id: 1, state: 'failed', token_label: 'main', base: null },
      ]);
      migrated.exec(`UPDATE outbox SET state = 'conflict' WHERE id = 1`);
      migrated.exec(`INSERT INTO outbox (op, project_id, target_id, body)
        VALUES ('task.update', 'p_1', 't_1', '{"progress":100}')`);
      expect(migrated.prepare('SELECT base FROM outbox WHERE id = 2').pluck().get()).toBe(
        '{"record":"present","values":{"status":"InProgress","progress":40}}',
      );
      expect(migrated.prepare('SELECT id FROM v_outbox_conflicts').pluck().all()).toEqual([]);
    } finally {
      migrated.close();
    }
    const reader = new Database(file, { readonly: true });
    expect(reader.pragma('integrity_check', { simple: true })).toBe('ok');
    reader.close();
  });
});
