/**
 * What `sync` says it did, checked against the service: the summary's requests are the HTTP
 * requests the simulator answered (every token's listing, retries and failover included); a
 * refused token among several is a warning, not a failure; and a service that trickles its
 * answer cannot keep a one-shot sync past its overall deadline.
 */
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { threeTokens } from '../tokens/fixtures.js';

/** Writes each token to `<dir>/<label>.token` and returns the `--token-file` flags. */
function tokenFlags(dir: string, tokens: readonly { label: string; secret: string }[]): string[] {
  return tokens.flatMap(({ label, secret }) => {
    const file = join(dir, `${label}.token`);
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    return ['--token-file', file];
  });
}

function query<T>(file: string, sql: string): T {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as T;
  } finally {
    db.close();
  }
}

describe('sync: requests counted, refused tokens, overall deadline', () => {
  it('counts every HTTP request the service answered, and a refused token is one warning, exit 0', async () => {
    const setup = await threeTokens({ tasks: [1200, 30, 30, 30] });
    const { sim } = setup;
    sim.service.revokeToken(setup.secret('a'));
    // A page answered 500 once (retried), and one refused with 401 (sent again through the
    // next token that sees the project): two more requests than calls.
    sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 500 });
    sim.faults.failNext({
      route: 'listTasks',
      kind: 'status',
      status: 401,
      code: 'unauthorized',
      when: (request) => request.path.includes('/projects/p_2/'),
    });
    const dir = tempDir();
    const db = join(dir, 'm.sqlite');
    const flags = ['--base-url', sim.baseUrl, '--db', db, '--json', '--log-level', 'silent'];
    sim.requestLog.clear();
    const run = await runCli(['sync', ...flags, ...tokenFlags(dir, setup.tokens)]);

    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^projmirror: warning: token "a" refused \(401\); its projects went through ("b", )?"c"$/,
      ),
    ]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as {
      requests: number;
      projects: { requests: number }[];
    };
    const served = sim.requestLog.count({ where: (entry) => entry.route !== 'realtime' });
    expect(sim.requestLog.count({ route: 'listProjects' })).toBe(3);
    expect(sim.requestLog.count({ status: 500 })).toBe(1);
    expect(sim.requestLog.count({ status: 401, route: 'listTasks' })).toBe(1);
    expect(summary.requests).toBe(served);
    // Each project's own figure counts its requests; the three listings are the rest.
    const perProject = summary.projects.reduce((total, project) => total + project.requests, 0);
    expect(perProject).toBe(served - 3);
    expect(query<number>(db, 'SELECT count(*) FROM tasks')).toBe(1290);
    expect(run.stdout + run.stderr).not.toMatch(/glt_test/);
  });

  it('says "N requests" in the summary line as the service counted them', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [3, 3], tokens: ['glt_test_x_1'] });
    const dir = tempDir();
    sim.faults.failNext({ route: 'listMembers', kind: 'drop' });
    sim.requestLog.clear();
    const [, file] = tokenFlags(dir, [{ label: 'x', secret: 'glt_test_x_1' }]);
    const run = await runCli(
      ['sync', '--base-url', sim.baseUrl, '--token-file', file!, '--db', join(dir, 'm.sqlite')],
      {},
    );
    expect(run.code).toBe(0);
    // 1 listing + 2 x (1 page + 3 lists) + the dropped one sent again.
    expect(sim.requestLog.count()).toBe(10);
    expect(run.stdout).toMatch(/^sync: 2 projects consistent, 0 failed; 6 tasks; 10 requests /m);
  });

  it('ends a sync stuck on a trickling answer at its deadline: exit 1, one line, the mirror intact', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 20, tokens: ['glt_test_t_1'] });
    const dir = tempDir();
    const db = join(dir, 'm.sqlite');
    const [, file] = tokenFlags(dir, [{ label: 't', secret: 'glt_test_t_1' }]);
    const first = await runCli([
      'sync',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      file!,
      '--db',
      db,
    ]);
    expect(first.code).toBe(0);

    // Headers at once, then one byte of the body a second: no timeout of silence ever fires.
    const trickle: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const body = '[{"id":"p_1","name":"x"}]';
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < body.length) response.write(body[sent++]!);
      }, 1000);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          trickle.closeAllConnections();
          trickle.close(() => resolve());
        }),
    );
    const port = (trickle.address() as { port: number }).port;
    const started = Date.now();
    const run = await runCli(
      [
        'sync',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--token-file',
        file!,
        '--db',
        db,
        '--deadline-ms',
        '3000',
      ],
      { env: { PROJMIRROR_LOG_LEVEL: 'silent' }, timeoutMs: 20_000 },
    );
    const took = Date.now() - started;
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'projmirror: sync: stopped at the overall deadline of 3 s (--deadline-ms 3000); the mirror keeps its last consistent state\n',
    );
    expect(took).toBeGreaterThanOrEqual(3000);
    expect(took).toBeLessThan(12_000);
    expect(query<string>(db, 'PRAGMA integrity_check')).toBe('ok');
    expect(query<number>(db, 'SELECT count(*) FROM tasks')).toBe(20);
  });

  it('refuses a --deadline-ms that is not a whole number of ms, naming it (exit 2)', async () => {
    const run = await runCli(
      ['sync', '--deadline-ms', '-5', '--base-url', 'http://127.0.0.1:1/v1'],
      {
        env: { PROJMIRROR_TOKEN: 'glt_test_d_1' },
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'projmirror: --deadline-ms -5 must be a whole number of milliseconds, 0 (no deadline) or more\n',
    );
  });
});
