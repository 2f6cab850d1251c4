import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/domain/index.js';
import { openDatabase } from '../../src/store/database.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { tempDatabase, tempDir } from '../fixtures/db.js';

describe('openDatabase', () => {
  it('creates the schema in WAL mode with foreign keys and a busy timeout', () => {
    const { db } = tempDatabase();
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
      .pluck()
      .all();
    expect(tables).toEqual(
      expect.arrayContaining(['projects', 'tasks', 'task_assignees', 'members', 'resources']),
    );
    expect(tables).toEqual(expect.arrayContaining(['dependencies', 'task_history', 'outbox']));
  });

  it('reopens an existing mirror without reapplying the schema', () => {
    const { db, file } = tempDatabase();
    db.prepare(`INSERT INTO outbox (op, project_id) VALUES ('task.delete', 'p1')`).run();
    db.close();
    const again = openDatabase(file);
    expect(again.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(1);
    again.close();
  });

  it('gives a plain INSERT into outbox a unique UUID idempotency key', () => {
    const { db } = tempDatabase();
    const insert = db.prepare(`INSERT INTO outbox (op, project_id) VALUES ('task.create', 'p1')`);
    insert.run();
    insert.run();
    const keys = db.prepare('SELECT idempotency_key FROM outbox').pluck().all() as string[];
    expect(new Set(keys).size).toBe(2);
    for (const key of keys) {
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('refuses a mirror from a newer projmirror', () => {
    const { db, file } = tempDatabase();
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openDatabase(file)).toThrow(/newer than this projmirror/);
  });

  it('names the file when it cannot be opened', () => {
    const dir = tempDir();
    expect(() => openDatabase(join(dir, 'missing-dir', 'x.sqlite'))).toThrow(StoreError);
    const notDb = join(dir, 'not-a-db.sqlite');
    writeFileSync(notDb, 'this is not sqlite, just some text that is long enough'.repeat(20));
    chmodSync(notDb, 0o600);
    expect(() => openDatabase(notDb)).toThrow(/not-a-db\.sqlite/);
  });
});
