import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDb } from '../../src/store/database.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { tempDatabase } from '../fixtures/db.js';

/** The SQL of every view, by name. */
function viewSql(db: SqliteDb) {
  return db
    .prepare<[], { name: string; sql: string }>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name`,
    )
    .all();
}

describe('migration 3 -> 4', () => {
  it("replaces a version 3 mirror's SQLite-only views with the portable ones, rows kept", () => {
    const { db, file } = tempDatabase();
    const fresh = viewSql(db);
    db.exec(`INSERT INTO projects (id, name, data, synced_at)
             VALUES ('p_1', 'One', '{}', '2026-11-21T00:00:00.000Z')`);
    // Version 3's v_today, as DuckDB could not bind it (LEFT JOIN without ON, date('now', ...)).
    db.exec(`DROP VIEW v_today;
      CREATE VIEW v_today AS
      SELECT (SELECT date('now', coalesce(o.offset_minutes, 0) || ' minutes')
              UNION ALL SELECT date FROM column_types) AS day,
             (SELECT coalesce(o.zone, 'UTC') UNION ALL SELECT text FROM column_types) AS timezone,
             (SELECT coalesce(o.offset_minutes, 0) UNION ALL SELECT integer FROM column_types)
               AS utc_offset_minutes
      FROM (SELECT 1) AS one
      LEFT JOIN (SELECT zone, offset_minutes FROM timezone_offsets LIMIT 1) AS o;`);
    db.pragma('user_version = 3');
    db.close();

    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(viewSql(migrated)).toEqual(fresh);
      expect(migrated.prepare('SELECT name FROM projects').pluck().all()).toEqual(['One']);
      expect(migrated.prepare('SELECT day FROM v_today').pluck().get()).toBe(
        new Date().toISOString().slice(0, 10),
      );
    } finally {
      migrated.close();
    }
  });
});
