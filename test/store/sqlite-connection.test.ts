/**
 * SQLite's asynchronous connection (issue 23): transactions nest as savepoints, a failure rolls
 * back only its own part, and a COMMIT the database refuses rolls back and leaves the
 * connection usable. (PostgreSQL's, over the same `NestedTransactions`, is tested on a real
 * server in postgres-connection.test.ts.)
 */
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { SqliteConnection } from '../../src/store/sqlite-connection.js';

function connection(): SqliteConnection {
  const db = new SqliteConnection(new Database(':memory:'));
  db.sqlite.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
    CREATE TABLE child (id TEXT PRIMARY KEY,
      parent TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
    PRAGMA foreign_keys = ON`);
  return db;
}

const ids = (db: SqliteConnection, table: string) =>
  db.sqlite.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all();

it('nests a transaction as a savepoint: a failure inside rolls back only its part', async () => {
  const db = connection();
  const insert = db.prepare('INSERT INTO parent (id) VALUES (?)');
  await db.transaction(async () => {
    await insert.run('a');
    await expect(
      db.transaction(async () => {
        await insert.run('b');
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    await db.transaction(() => insert.run('c'));
  }, 'immediate');
  expect(ids(db, 'parent')).toEqual(['a', 'c']);
  expect(db.sqlite.inTransaction).toBe(false);
});

it('rolls back the whole transaction when its work fails', async () => {
  const db = connection();
  const insert = db.prepare('INSERT INTO parent (id) VALUES (?)');
  await expect(
    db.transaction(async () => {
      await db.transaction(() => insert.run('a'));
      throw new Error('outer');
    }),
  ).rejects.toThrow('outer');
  expect(ids(db, 'parent')).toEqual([]);
  expect(db.sqlite.inTransaction).toBe(false);
});

it('rolls back a transaction whose COMMIT is refused, and goes on', async () => {
  const db = connection();
  await expect(
    db.transaction(() => db.prepare("INSERT INTO child VALUES ('x', 'nobody')").run()),
  ).rejects.toThrow(/FOREIGN KEY/);
  expect(db.sqlite.inTransaction).toBe(false);
  expect(ids(db, 'child')).toEqual([]);
  await db.transaction(() => db.prepare("INSERT INTO parent VALUES ('p')").run());
  expect(ids(db, 'parent')).toEqual(['p']);
});
