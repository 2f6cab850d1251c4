import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { tempDatabase } from '../fixtures/db.js';

describe('migration 2 -> 3', () => {
  it("adds outbox.token_label, NULL for the items queued before, as a fresh mirror's", () => {
    const { db, file } = tempDatabase();
    const fresh = (db.pragma('table_info(outbox)') as { name: string }[]).map((c) => c.name);
    db.exec(`INSERT INTO outbox (op, project_id) VALUES ('task.delete', 'p_1')`);
    db.exec('ALTER TABLE outbox DROP COLUMN token_label');
    db.pragma('user_version = 2');
    db.close();

    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const columns = (migrated.pragma('table_info(outbox)') as { name: string }[]).map(
        (c) => c.name,
      );
      expect(columns).toEqual(fresh);
      expect(migrated.prepare('SELECT op, token_label FROM outbox').all()).toEqual([
        { op: 'task.delete', token_label: null },
      ]);
    } finally {
      migrated.close();
    }
    const reader = new Database(file, { readonly: true });
    expect(reader.pragma('integrity_check', { simple: true })).toBe('ok');
    reader.close();
  });
});
