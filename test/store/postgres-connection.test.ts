/**
 * The PostgreSQL session behind the store (`PgConnection`) against a real server: the `Db`
 * statement and transaction surface, values handed back as the SQLite mirror has them, nested
 * transactions as savepoints, a connection lost inside a transaction failing it instead of going
 * on outside it, and a statement after a lost connection reconnecting on its own.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inSnapshot, inTransaction } from '../../src/store/handle.js';
import { ITERATE_BATCH_ROWS, PgConnection } from '../../src/store/postgres/pg-connection.js';
import { parsePgTarget, sessionStatements } from '../../src/store/postgres/target.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';

let server: PgServer;
let url: string;
let admin: pg.Client;
const opened: PgConnection[] = [];

beforeAll(async () => {
  server = await startPostgres();
  url = await server.database();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('CREATE SCHEMA projmirror');
});

afterAll(async () => {
  await admin.end();
});

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

async function open(): Promise<PgConnection> {
  const target = parsePgTarget(url);
  const db = new PgConnection(target.config, sessionStatements(target.schema));
  opened.push(db);
  await db.connect();
  return db;
}

/** The server process of `db`'s session. */
async function backendPid(db: PgConnection): Promise<number> {
  return (await db.prepare<[], number>('SELECT pg_backend_pid()').pluck().get())!;
}

/**
 * Ends the session of backend `pid` from the admin client, as a failover or an administrator
 * would, and waits until it is gone and its connection has had the time to hear of it.
 */
async function terminate(pid: number): Promise<void> {
  const { rows } = await admin.query<{ ended: boolean }>(
    'SELECT pg_terminate_backend($1) AS ended',
    [pid],
  );
  expect(rows[0]?.ended).toBe(true);
  for (;;) {
    const left = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (left.rowCount === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('the PostgreSQL connection', () => {
  it('runs statements with positional and named parameters, values as SQLite has them', async () => {
    const db = await open();
    expect(db.dialect).toBe('postgres');
    expect(db.open).toBe(true);
    await db.exec(
      'CREATE TABLE t (id text PRIMARY KEY, n bigint, r numeric, d date, at timestamptz, ok boolean, data jsonb)',
    );
    const insert = db.prepare(
      'INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    expect(
      (
        await insert.run(
          'a',
          2 ** 40,
          '12.5',
          '2026-11-22',
          '2026-11-22T10:00:00.123Z',
          1,
          '{"b":1,"a":[2]}',
        )
      ).changes,
    ).toBe(1);
    expect((await insert.run(['a', 1, null, null, null, 0, '{}'])).changes).toBe(0);
    const row = await db
      .prepare('SELECT id, n, r, d AS startDate, at, ok, data FROM t WHERE id = @id')
      .get({ id: 'a' });
    expect(row).toEqual({
      id: 'a',
      n: 2 ** 40,
      r: 12.5,
      startDate: '2026-11-22',
      at: '2026-11-22T10:00:00.123Z',
      ok: 1,
      data: '{"a": [2], "b": 1}',
    });
    // A time without zone is read as UTC, and false as 0.
    expect(
      await db
        .prepare(`SELECT '2026-11-22 10:00:00'::timestamp AS at, false AS no, 3::numeric AS three`)
        .get(),
    ).toEqual({ at: '2026-11-22T10:00:00.000Z', no: 0, three: 3 });
    expect(await db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    expect(await db.prepare('SELECT id, n FROM t').raw().all()).toEqual([['a', 2 ** 40]]);
    expect(await db.prepare('SELECT id, n FROM t').raw().raw(false).all()).toEqual([
      { id: 'a', n: 2 ** 40 },
    ]);
    expect(await db.prepare('SELECT id, n AS taskCount FROM t WHERE id = ?').columns()).toEqual([
      { name: 'id', type: null },
      { name: 'taskCount', type: null },
    ]);
    const ids: unknown[] = [];
    for await (const id of db.prepare('SELECT id FROM t').pluck().iterate()) ids.push(id);
    expect(ids).toEqual(['a']);
    expect(await db.prepare('SELECT id FROM t WHERE id = ?').get('none')).toBeUndefined();
    // The session as the README describes it: our schema, UTC, bounded waits.
    const setting = (name: string) =>
      db.prepare<[string], string>('SELECT current_setting(?)').pluck().get(name);
    expect(await setting('search_path')).toBe('projmirror');
    expect(await setting('TimeZone')).toBe('UTC');
    expect(await setting('lock_timeout')).toBe('10s');
    expect(await setting('idle_in_transaction_session_timeout')).toBe('1min');
  });

  it('commits a transaction whole, rolls it back whole, and nests as savepoints', async () => {
    const db = await open();
    await db.exec('CREATE TABLE u (id integer PRIMARY KEY)');
    const add = db.prepare('INSERT INTO u VALUES (?)');
    const ids = () => db.prepare('SELECT id FROM u ORDER BY id').pluck().all();
    await db.transaction(async () => {
      await add.run(1);
      await expect(
        db.transaction(async () => {
          await add.run(2);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      // A statement failing inside the savepoint rolls back only the savepoint too.
      await expect(
        db.transaction(async () => {
          await add.run(5);
          await add.run(1);
        }),
      ).rejects.toThrow(/duplicate key/);
      await add.run(3);
    }, 'immediate');
    expect(await ids()).toEqual([1, 3]);
    await expect(
      db.transaction(async () => {
        await add.run(4);
        await add.run(1);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await ids()).toEqual([1, 3]);
    // The value the work resolves with is the transaction's.
    expect(await db.transaction(async () => (await add.run(6)).changes)).toBe(1);
    expect(await ids()).toEqual([1, 3, 6]);
  });

  it('iterates inside a transaction through a cursor, a batch at a time, closed at the end or a stop', async () => {
    const db = await open();
    const total = 2 * ITERATE_BATCH_ROWS + 500;
    await db.exec(`CREATE TABLE numbers AS SELECT n FROM generate_series(1, ${total}) AS n`);
    const cursorsOpen = () => db.prepare('SELECT count(*) FROM pg_cursors').pluck().get();
    const numbers = db.prepare<[number], { n: number }>(
      'SELECT n FROM numbers WHERE n > ? ORDER BY n',
    );
    await db.transaction(async () => {
      const rows = numbers.iterate(0);
      expect((await rows.next()).value).toEqual({ n: 1 });
      // The rest waits on the server, in the cursor, not in this process.
      expect(await cursorsOpen()).toBe(1);
      let count = 1;
      let last = 1;
      for await (const row of rows) {
        count += 1;
        expect(row.n).toBe(last + 1);
        last = row.n;
      }
      expect(count).toBe(total);
      expect(await cursorsOpen()).toBe(0);
      // Planned for every row, which an iteration reads, not for the first tenth.
      expect(await db.prepare('SHOW cursor_tuple_fraction').pluck().get()).toBe('1');
      // A caller that stops early closes it too.
      for await (const row of numbers.iterate(10)) {
        expect(row).toEqual({ n: 11 });
        break;
      }
      expect(await cursorsOpen()).toBe(0);
      const plucked: unknown[] = [];
      for await (const n of db.prepare('SELECT n FROM numbers ORDER BY n').pluck().iterate()) {
        plucked.push(n);
      }
      expect(plucked).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    });
    // Outside a transaction no cursor could outlive the statement: the rows come in one answer.
    const outside: unknown[] = [];
    for await (const row of numbers.iterate(total - 2)) outside.push(row);
    expect(outside).toEqual([{ n: total - 1 }, { n: total }]);
    await db.exec('DROP TABLE numbers');
  });

  it("reads a snapshot that may wait on its caller, the session's idle timeout lifted for it alone", async () => {
    // An export to a pipe whose reader pauses (`| less`) must not have its session ended.
    const db = await open();
    const idle = () => db.prepare('SHOW idle_in_transaction_session_timeout').pluck().get();
    expect(await idle()).toBe('1min');
    expect(await inSnapshot(db, idle)).toBe('0');
    expect(await idle()).toBe('1min');
    expect(await inTransaction(db, idle)).toBe('1min');
  });

  it('stores text with NUL characters, which PostgreSQL text cannot hold, as U+FFFD', async () => {
    const db = await open();
    await db.exec('CREATE TABLE v (s text, data jsonb)');
    await db.prepare('INSERT INTO v VALUES (?, ?)').run('a\0b', '{"s":"x\\u0000y"}');
    expect(await db.prepare('SELECT s, data FROM v').raw().get()).toEqual([
      'a\uFFFDb',
      '{"s": "x\uFFFDy"}',
    ]);
    // Half a surrogate pair, which JSON.stringify escapes and jsonb refuses; a whole pair stays.
    const text = JSON.stringify({ lone: 'a\ud800b', low: '\udc00', pair: '\u{1F600}' });
    await db.prepare('INSERT INTO v VALUES (?, ?)').run('s', text);
    const stored = (await db
      .prepare<[], string>(`SELECT data FROM v WHERE s = 's'`)
      .pluck()
      .get())!;
    expect(JSON.parse(stored)).toEqual({ lone: 'a\uFFFDb', low: '\uFFFD', pair: '\u{1F600}' });
  });

  it('fails a transaction whose connection was lost, then reconnects for the next statement', async () => {
    const db = await open();
    await db.exec('CREATE TABLE w (id integer)');
    const first = await backendPid(db);
    const lost = db.transaction(async () => {
      await db.prepare('INSERT INTO w VALUES (1)').run();
      // The server ends this very session, as a failover or an administrator would.
      await expect(
        db.prepare('SELECT pg_terminate_backend(pg_backend_pid())').get(),
      ).rejects.toThrow();
      await db.prepare('INSERT INTO w VALUES (2)').run();
    }, 'immediate');
    await expect(lost).rejects.toThrow(
      'the connection to PostgreSQL was lost during a transaction',
    );
    expect(await db.prepare('SELECT count(*) FROM w').pluck().get()).toBe(0);
    expect(await backendPid(db)).not.toBe(first);
  });

  it('does not go on outside a transaction whose session an administrator ended', async () => {
    const db = await open();
    await db.exec('CREATE TABLE x (id integer)');
    const first = await backendPid(db);
    const lost = db.transaction(async () => {
      await db.prepare('INSERT INTO x VALUES (1)').run();
      await terminate(await backendPid(db));
      // Not run on a new connection, outside the transaction that held the first insert.
      await db.prepare('INSERT INTO x VALUES (2)').run();
    }, 'immediate');
    await expect(lost).rejects.toThrow(
      'the connection to PostgreSQL was lost during a transaction',
    );
    // The next statement, outside any transaction, opens a new session on its own.
    expect(await db.prepare('SELECT count(*) FROM x').pluck().get()).toBe(0);
    const second = await backendPid(db);
    expect(second).not.toBe(first);
    // And a transaction on it commits.
    await db.transaction(async () => {
      await db.prepare('INSERT INTO x VALUES (3)').run();
    });
    expect(await db.prepare('SELECT id FROM x').pluck().all()).toEqual([3]);

    // A session ended while idle: the next statement reconnects too, its settings in place.
    await terminate(second);
    expect(await db.prepare('SELECT count(*) FROM x').pluck().get()).toBe(1);
    expect(await backendPid(db)).not.toBe(second);
    expect(await db.prepare('SELECT current_setting(?)').pluck().get('search_path')).toBe(
      'projmirror',
    );
    expect(db.open).toBe(true);
  });

  it('refuses statements once closed', async () => {
    const db = await open();
    db.close();
    expect(db.open).toBe(false);
    await expect(db.prepare('SELECT 1').get()).rejects.toThrow(/closed/);
  });
});
