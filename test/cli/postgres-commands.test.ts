/**
 * The one-shot commands against a PostgreSQL mirror on a real server, as a user runs them:
 * `sync`, `enqueue`, `outbox list`, `push` (each item once, the answer mirrored), `export` and
 * `report --html`; and the mistakes a user makes with `--db` exit 2 naming the bad part.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_postgres_commands';
let server: PgServer;

beforeAll(async () => {
  server = await startPostgres();
});

describe('the commands on a PostgreSQL mirror', () => {
  it('sync, enqueue, outbox, push, export and report work as on SQLite', async () => {
    const url = await server.database();
    const sim = await startTestSimulator({ projects: 2, tasks: 12, tokens: [TOKEN] });
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
    const remote = ['--db', url, '--base-url', sim.baseUrl, '--token-file', tokenFile];

    expect((await runCli(['sync', ...remote], { cwd: dir })).code).toBe(0);
    const task = sim.service.listTasks('p_1')[0]!;
    const enqueued = await runCli(
      [
        'enqueue',
        'task.update',
        '--db',
        url,
        '--project',
        'p_1',
        '--target',
        task.id,
        '--body',
        '{"progress": 77}',
      ],
      { cwd: dir },
    );
    expect(enqueued.code).toBe(0);
    const listed = await runCli(['outbox', 'list', '--db', url, '--json'], { cwd: dir });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ op: 'task.update', state: 'pending' }]);

    // The mirror's space on PostgreSQL: the database's size, no pages or log of SQLite's.
    const status = await runCli(['status', '--json', '--db', url], { cwd: dir });
    expect(JSON.parse(status.stdout)).toMatchObject({
      space: { engine: 'postgresql', bytes: expect.any(Number), freePages: null, walBytes: null },
    });
    const statusText = await runCli(['status', '--db', url], { cwd: dir });
    expect(statusText.stdout).toMatch(/\nmirror: \d+\.\d MiB \(pg_database_size\)/);

    const pushed = await runCli(['push', ...remote], { cwd: dir });
    expect(pushed.code).toBe(0);
    // Two: a one-shot push reads the target again before it sends (the conflict check).
    expect(pushed.stdout).toMatch(/^push: 1 done, 0 failed, 0 left pending; 2 requests/m);
    expect(sim.service.getTask(task.id)?.progress).toBe(77);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ progress: number; state: string }>(
        `SELECT t.progress, o.state FROM projmirror.tasks t, projmirror.outbox o WHERE t.id = $1`,
        [task.id],
      );
      expect(rows).toEqual([{ progress: 77, state: 'done' }]);
      // The item records who sent it: the push process, as its daemons row named it.
      const claimed = await client.query<{ claimed_by: string }>(
        'SELECT claimed_by FROM projmirror.outbox',
      );
      expect(claimed.rows[0]!.claimed_by).toMatch(/^.+:\d+:[0-9a-f]{6}$/);
    } finally {
      await client.end();
    }

    // An item of a project another live daemon holds is left to it: push exits 0 and says so.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query(
        `INSERT INTO projmirror.daemons (id, host, pid, tokens, version, started_at, heartbeat_at)
         VALUES ('elsewhere:1:a', 'elsewhere', 1, 'x', 'test', now(), now())`,
      );
      await other.query(
        `INSERT INTO projmirror.project_leases VALUES ('p_2', 'elsewhere:1:a', now(), now() + interval '1 hour')`,
      );
      await other.query(
        `INSERT INTO projmirror.outbox (op, project_id, target_id, body)
         VALUES ('task.update', 'p_2', $1, '{"progress": 5}')`,
        [sim.service.listTasks('p_2')[0]!.id],
      );
    } finally {
      await other.end();
    }
    const leftAlone = await runCli(['push', ...remote], { cwd: dir });
    expect(leftAlone.code).toBe(0);
    expect(leftAlone.stdout).toMatch(
      /^push: 0 done, 0 failed, 0 left pending, 1 left to other daemons; 0 requests/m,
    );

    const out = join(dir, 'export');
    const exported = await runCli(['export', '--db', url, '--format', 'csv', '--out', out], {
      cwd: dir,
    });
    expect(exported.code).toBe(0);
    expect(readdirSync(out)).toContain('v_tasks.csv');
    expect(readFileSync(join(out, 'v_tasks.csv'), 'utf8').trim().split('\n')).toHaveLength(25);
    // --timezone takes "today" in that zone for this reader's session only (the mirror keeps UTC).
    const zoned = await runCli(['report', '--db', url, '--timezone', 'Pacific/Kiritimati'], {
      cwd: dir,
    });
    expect(zoned.code).toBe(0);
    expect(zoned.stdout).toMatch(
      /^Project progress \(2 projects, \d{4}-\d{2}-\d{2} Pacific\/Kiritimati\)/m,
    );
    const plain = await runCli(['report', '--db', url], { cwd: dir });
    expect(plain.stdout).toMatch(/^Project progress \(2 projects, \d{4}-\d{2}-\d{2} UTC\)/m);

    const html = join(dir, 'report.html');
    const report = await runCli(['report', '--db', url, '--html', html], { cwd: dir });
    expect(report.code).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('<svg');
  }, 60_000);

  it('refuses a bad --db with exit 2 and one line naming it', async () => {
    const cases: Array<[string, RegExp]> = [
      ['postgres://me:secret@127.0.0.1/db', /^projmirror: --db must not hold a password/],
      ['postgres://127.0.0.1/db?sslmode=sometimes', /sslmode=sometimes is not supported/],
      [
        'postgres://127.0.0.1/db?sslmode=require&sslcompression=1',
        /unknown parameter sslcompression/,
      ],
      [
        'postgres://127.0.0.1/db?schema=Bad-Name',
        /schema "Bad-Name" is not a plain lower-case name/,
      ],
    ];
    for (const [db, message] of cases) {
      const run = await runCli(['status', '--db', db]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toContain('secret');
    }
    const unreachable = await runCli(['status', '--db', `postgres://admin@127.0.0.1:1/none`]);
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toMatch(
      /^projmirror: cannot connect to postgres:\/\/admin@127\.0\.0\.1:1\/none/,
    );
  }, 60_000);
});
