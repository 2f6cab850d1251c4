/**
 * The synchronous bridge to PostgreSQL against a real server: better-sqlite3's statement and
 * transaction surface, values handed back as the SQLite mirror has them, and a connection lost
 * inside a transaction failing it instead of going on outside it.
 */
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SyncBridge } from '../../src/store/postgres/bridge.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { parsePgTarget, sessionStatements } from '../../src/store/postgres/target.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

let server: PgServer;
let url: string;
const opened: PgDatabase[] = [];

beforeAll(async () => {
  server = await startPostgres();
  url = await server.database();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('CREATE SCHEMA projmirror');
  await admin.end();
});

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function open(): PgDatabase {
  const target = parsePgTarget(url);
  const db = new PgDatabase(
    new SyncBridge(target.config, sessionStatements(target.schema)),
    target.schema,
  );
  opened.push(db);
  return db;
}

describe('the PostgreSQL bridge', () => {
  it('runs statements synchronously with positional and named parameters', () => {
    const db = open();
    db.exec(
      'CREATE TABLE t (id text PRIMARY KEY, n bigint, d date, at timestamptz, ok boolean, data jsonb)',
    );
    const insert = db.prepare(
      'INSERT INTO t VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    expect(
      insert.run('a', 2 ** 40, '2026-11-22', '2026-11-22T10:00:00.123Z', 1, '{"b":1,"a":[2]}')
        .changes,
    ).toBe(1);
    expect(insert.run(['a', 1, null, null, 0, '{}']).changes).toBe(0);
    const row = db
      .prepare('SELECT id, n, d AS startDate, at, ok, data FROM t WHERE id = @id')
      .get({ id: 'a' });
    expect(row).toEqual({
      id: 'a',
      n: 2 ** 40,
      startDate: '2026-11-22',
      at: '2026-11-22T10:00:00.123Z',
      ok: 1,
      data: '{"a": [2], "b": 1}',
    });
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    expect(db.prepare('SELECT id, n FROM t').raw().all()).toEqual([['a', 2 ** 40]]);
    expect(db.prepare('SELECT id, n AS taskCount FROM t WHERE id = ?').columns()).toEqual([
      { name: 'id' },
      { name: 'taskCount' },
    ]);
    expect([...db.prepare('SELECT id FROM t').pluck().iterate()]).toEqual(['a']);
    // The session as the README describes it: our schema, UTC, bounded waits.
    const setting = (name: string) =>
      db.prepare('SELECT current_setting(?)').pluck().get(name) as string;
    expect(setting('search_path')).toBe('projmirror');
    expect(setting('TimeZone')).toBe('UTC');
    expect(setting('lock_timeout')).toBe('10s');
    expect(setting('idle_in_transaction_session_timeout')).toBe('1min');
  });

  it('commits a transaction whole, rolls it back whole, and nests as savepoints', () => {
    const db = open();
    db.exec('CREATE TABLE u (id integer PRIMARY KEY)');
    const add = db.prepare('INSERT INTO u VALUES (?)');
    db.transaction(() => {
      add.run(1);
      expect(() =>
        db.transaction(() => {
          add.run(2);
          throw new Error('inner');
        })(),
      ).toThrow('inner');
      add.run(3);
    }).immediate();
    expect(() =>
      db.transaction(() => {
        add.run(4);
        add.run(1);
      })(),
    ).toThrow(/duplicate key/);
    expect(db.prepare('SELECT id FROM u ORDER BY id').pluck().all()).toEqual([1, 3]);
  });

  it('stores text with NUL characters, which PostgreSQL text cannot hold, as U+FFFD', () => {
    const db = open();
    db.exec('CREATE TABLE v (s text, data jsonb)');
    db.prepare('INSERT INTO v VALUES (?, ?)').run('a\0b', '{"s":"x\\u0000y"}');
    expect(db.prepare('SELECT s, data FROM v').raw().get()).toEqual([
      'a\uFFFDb',
      '{"s": "x\uFFFDy"}',
    ]);
    // Half a surrogate pair, which JSON.stringify escapes and jsonb refuses; a whole pair stays.
    const text = JSON.stringify({ lone: 'a\ud800b', low: '\udc00', pair: '\u{1F600}' });
    db.prepare('INSERT INTO v VALUES (?, ?)').run('s', text);
    const stored = db.prepare(`SELECT data FROM v WHERE s = 's'`).pluck().get() as string;
    expect(JSON.parse(stored)).toEqual({ lone: 'a\uFFFDb', low: '\uFFFD', pair: '\u{1F600}' });
  });

  it('fails a transaction whose connection was lost, then reconnects for the next statement', () => {
    const db = open();
    db.exec('CREATE TABLE w (id integer)');
    const first = db.prepare('SELECT pg_backend_pid()').pluck().get();
    const lost = db.transaction(() => {
      db.prepare('INSERT INTO w VALUES (1)').run();
      // The server ends this very session, as a failover or an administrator would.
      expect(() => db.prepare('SELECT pg_terminate_backend(pg_backend_pid())').get()).toThrow();
      db.prepare('INSERT INTO w VALUES (2)').run();
    });
    expect(() => lost.immediate()).toThrow(/lost during a transaction|terminated/);
    expect(db.prepare('SELECT count(*) FROM w').pluck().get()).toBe(0);
    expect(db.prepare('SELECT pg_backend_pid()').pluck().get()).not.toBe(first);
  });
});
