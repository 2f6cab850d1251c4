/**
 * A service that echoes the token back (issue 12, item 10), probed through the real CLI: no
 * stderr line, log line, stored `last_error` or mirror file ever holds it.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, problemLines } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { cli } from '../outbox/in-process-cli.js';
import { answerJson, hostileProxy, isTasksPage } from './hostile-proxy.js';

const TOKEN = 'glt_test_token_echo_0123456789abcdef';

async function setup() {
  const sim = await startTestSimulator({ projects: 1, tasks: [2], tokens: [TOKEN], limits: false });
  const proxy = await hostileProxy(sim);
  const dir = tempDir();
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const db = join(dir, 'mirror.sqlite');
  const remote = ['--base-url', proxy.baseUrl, '--token-file', tokenFile, '--db', db];
  /** Asserts that no file in the mirror's directory but the token file holds the token. */
  const expectNoTokenStored = () => {
    for (const name of readdirSync(dir).filter((name) => name !== 'token')) {
      expect(readFileSync(join(dir, name)).includes(TOKEN), name).toBe(false);
    }
  };
  return { proxy, db, remote, expectNoTokenStored };
}

describe('a service echoing the token', () => {
  it('sync: one stderr line and logs without the token, nothing of it stored', async () => {
    const { proxy, remote, expectNoTokenStored } = await setup();
    proxy.tamper = (req, res) => {
      if (!isTasksPage(req)) return false;
      answerJson(res, JSON.stringify([{ id: `id-Bearer ${TOKEN}`, name: 'x' }]));
      return true;
    };
    const run = await runCli(['sync', ...remote]);
    expect(run.code).toBe(1);
    expect(problemLines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toContain(
      'GET listTasks of p_1 page 1: malformed response: the answer holds the token',
    );
    expect(run.stderr + run.stdout).not.toContain(TOKEN);
    expectNoTokenStored();
  });

  it('push: the stored last_error and the logs hold no token, whatever the answer', async () => {
    const { proxy, db, remote, expectNoTokenStored } = await setup();
    const queue = ['--project', 'p_1', '--db', db];
    expect(
      (
        await cli(
          'enqueue',
          'task.create',
          ...queue,
          '--body',
          '{"name":"A","startDate":"2026-01-01","endDate":"2026-01-02","status":"NotStarted"}',
        )
      ).code,
    ).toBe(0);
    expect(
      (await cli('enqueue', 'task.update', ...queue, '--target', 't_1', '--body', '{"progress":5}'))
        .code,
    ).toBe(0);
    proxy.tamper = (req, res) => {
      if (req.method === 'POST') {
        res.writeHead(400, { 'content-type': 'application/json', 'x-trace': `Bearer ${TOKEN}` });
        res.end(JSON.stringify({ code: 'validation_failed', message: `token ${TOKEN} refused` }));
        return true;
      }
      if (req.method === 'PATCH') {
        answerJson(res, JSON.stringify({ id: `t_1-Bearer ${TOKEN}`, progress: 5 }));
        return true;
      }
      return false;
    };
    const run = await runCli(['push', ...remote]);
    expect(run.stderr + run.stdout).not.toContain(TOKEN);
    const mirror = new Database(db, { readonly: true });
    const items = mirror
      .prepare('SELECT op, state, last_error AS lastError, result FROM outbox ORDER BY id')
      .all();
    mirror.close();
    expect(items).toEqual([
      {
        op: 'task.create',
        state: 'failed',
        lastError:
          'validation_failed: POST createTask of p_1: HTTP 400 validation_failed: token [token] refused',
        result: null,
      },
      { op: 'task.update', state: 'done', lastError: null, result: null },
    ]);
    expectNoTokenStored();
  });
});
