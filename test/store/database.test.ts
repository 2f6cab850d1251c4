import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError, UsageError } from '../../src/domain/index.js';
import {
  APPLICATION_ID,
  MIRROR_PAGE_SIZE,
  WAL_SIZE_LIMIT_BYTES,
  openDatabase,
  readSchema,
} from '../../src/store/database.js';
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

  it('makes a new mirror with 4 KiB pages, and keeps the pages of one made before', () => {
    const { db } = tempDatabase();
    expect(MIRROR_PAGE_SIZE).toBe(4_096);
    expect(db.pragma('page_size', { simple: true })).toBe(MIRROR_PAGE_SIZE);
    // The write-ahead log is cut back to its bound whenever SQLite starts it over.
    expect(db.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT_BYTES);
    const older = join(tempDir(), 'older.sqlite');
    const before = new Database(older);
    before.pragma('page_size = 16384');
    before.pragma('journal_mode = WAL');
    before.exec(readSchema());
    before.pragma(`user_version = ${SCHEMA_VERSION}`);
    before.prepare(`INSERT INTO outbox (op, project_id) VALUES ('task.delete', 'p1')`).run();
    before.close();
    const reopened = openDatabase(older);
    expect(reopened.pragma('page_size', { simple: true })).toBe(16_384);
    expect(reopened.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(1);
    reopened.close();
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

/** Another application's database: a table and a row, `user_version` 0, journal not WAL. */
function foreignDatabase(dir: string, applicationId = 0): string {
  const file = join(dir, 'other-app.db');
  const other = new Database(file);
  other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
  other.prepare('INSERT INTO notes (body) VALUES (?)').run('keep me');
  if (applicationId !== 0) other.pragma(`application_id = ${applicationId}`);
  other.close();
  return file;
}

describe('what openDatabase takes as a mirror', () => {
  it('marks the mirrors it creates with its application_id', () => {
    const { db } = tempDatabase();
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
  });

  it('refuses another application database, read-write or read-only, byte for byte unchanged', () => {
    for (const [applicationId, problem] of [
      [0, /is not a projmirror mirror \(1 schema objects, user_version 0, no projmirror mark\)/],
      [0x1234, /belongs to another application \(application_id 0x1234\)/],
    ] as const) {
      const file = foreignDatabase(tempDir(), applicationId);
      const bytes = readFileSync(file);
      for (const readonly of [false, true]) {
        expect(() => openDatabase(file, { readonly })).toThrow(UsageError);
        expect(() => openDatabase(file, { readonly })).toThrow(problem);
      }
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(readdirSync(join(file, '..'))).toEqual(['other-app.db']);
    }
  });

  it('refuses a directory and a text file as usage errors, creating nothing', () => {
    const dir = tempDir();
    const sub = join(dir, 'a-dir');
    mkdirSync(sub);
    expect(() => openDatabase(sub)).toThrow(new UsageError(`database ${sub} is a directory`));
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'dear diary\n');
    expect(() => openDatabase(text)).toThrow(
      new UsageError(`database ${text} is not an SQLite database; refusing to change it`),
    );
    expect(readFileSync(text, 'utf8')).toBe('dear diary\n');
    expect(readdirSync(dir).sort()).toEqual(['a-dir', 'notes.txt']);
  });

  it('takes an empty file, and marks a mirror made before the mark', () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.sqlite');
    writeFileSync(empty, '');
    const fresh = openDatabase(empty);
    expect(fresh.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    fresh.close();
    const legacy = join(dir, 'legacy.sqlite');
    const old = new Database(legacy);
    old.exec(readSchema());
    old.pragma(`user_version = ${SCHEMA_VERSION}`);
    old.prepare(`INSERT INTO outbox (op, project_id) VALUES ('task.delete', 'p1')`).run();
    old.close();
    const reopened = openDatabase(legacy);
    expect(reopened.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    expect(reopened.prepare('SELECT count(*) FROM outbox').pluck().get()).toBe(1);
    reopened.close();
    expect(existsSync(legacy)).toBe(true);
  });
});
