import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_cli_sync_0123456789abcdef';

function tokenFile(dir: string, token = TOKEN): string {
  const file = join(dir, 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

/**
 * One line on stderr naming the problem, with no stack trace, besides the log lines (JSON when
 * stderr is not a terminal, each one object).
 */
function expectOneLineError(run: CliRun, pattern: RegExp): void {
  const all = run.stderr.trim().split('\n');
  const logs = all.filter((line) => line.startsWith('{'));
  for (const line of logs) expect(JSON.parse(line)).toHaveProperty('level');
  const lines = all.filter((line) => !line.startsWith('{'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

function count(file: string, sql: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('projmirror sync', () => {
  it('mirrors every project and exits 0; the token is in no log line nor database file', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [620, 3], tokens: [TOKEN] });
    const dir = tempDir();
    const db = join(dir, 'mirror.sqlite');
    const run = await runCli([
      'sync',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      tokenFile(dir),
      '--db',
      db,
    ]);
    expect(run.code).toBe(0);
    expect(count(db, 'SELECT count(*) FROM tasks')).toBe(623);
    expect(count(db, 'SELECT count(*) FROM projects')).toBe(2);
    // Nothing needs a person's attention: stderr is empty; stdout is the summary alone.
    expect(run.stdout).toMatch(/^sync: 2 projects consistent, 0 failed; [^\n]*\n$/);
    expect(run.stderr).toBe('');
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
    for (const name of readdirSync(dir).filter((file) => file.startsWith('mirror.sqlite'))) {
      expect(readFileSync(join(dir, name)).includes(TOKEN), name).toBe(false);
    }
  });

  it('exits 1 with one clear line on an invalid token', async () => {
    const sim = await startTestSimulator({ tokens: [TOKEN] });
    const dir = tempDir();
    const wrong = 'glt_test_not_registered';
    const run = await runCli([
      'sync',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      tokenFile(dir, wrong),
      '--db',
      join(dir, 'm.sqlite'),
    ]);
    expect(run.code).toBe(1);
    expectOneLineError(run, /401 unauthorized/);
    expect(run.stderr + run.stdout).not.toContain(wrong);
  });

  it('exits 2 without a token, or with http:// to a host that is not loopback, sending nothing', async () => {
    const sim = await startTestSimulator({ tokens: [TOKEN] });
    const dir = tempDir();
    const db = join(dir, 'm.sqlite');
    const missing = await runCli(['sync', '--base-url', sim.baseUrl, '--db', db]);
    expect(missing.code).toBe(2);
    expectOneLineError(missing, /no token/);
    const plain = await runCli([
      'sync',
      '--base-url',
      'http://scheduling.example.invalid/v1',
      '--token-file',
      tokenFile(dir),
      '--db',
      db,
    ]);
    expect(plain.code).toBe(2);
    expectOneLineError(plain, /http:\/\/ to a host that is not loopback/);
    const malformed = await runCli([
      'sync',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      join(dir, 'nope'),
    ]);
    expect(malformed.code).toBe(2);
    expectOneLineError(malformed, /cannot read token file .*nope/);
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ 'base-url': sim.baseUrl, token: TOKEN }));
    const inConfig = await runCli(['sync', '--config', config, '--db', db]);
    expect(inConfig.code).toBe(2);
    expectOneLineError(inConfig, /a token in the config file is refused/);
    expect(inConfig.stderr).not.toContain(TOKEN);
    expect(sim.requestLog.count()).toBe(0);
  });

  it('verifies TLS: works with --ca-file, and fails with a clear line without it', async () => {
    const sim = await startTestSimulator({ tls: true, projects: 1, tasks: 5, tokens: [TOKEN] });
    const dir = tempDir();
    const base = [
      'sync',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      tokenFile(dir),
      '--db',
      join(dir, 'm.sqlite'),
    ];
    const untrusted = await runCli(base);
    expect(untrusted.code).toBe(1);
    expectOneLineError(untrusted, /TLS .*--ca-file/);
    const trusted = await runCli([...base, '--ca-file', sim.caFile ?? '', '--log-level', 'warn']);
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
  });

  it('reports a project whose read fails, one line, and keeps its previous mirror', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 10, tokens: [TOKEN] });
    const dir = tempDir();
    const db = join(dir, 'm.sqlite');
    const args = ['sync', '--base-url', sim.baseUrl, '--token-file', tokenFile(dir), '--db', db];
    expect((await runCli(args)).code).toBe(0);
    sim.service.createTask('p_1', { name: 'Added later' });
    sim.faults.failNext({ route: 'listTasks', kind: 'html', count: 10 });
    const run = await runCli([...args, '--projects', 'p_1']);
    expect(run.code).toBe(1);
    expectOneLineError(run, /project p_1: .*listTasks/);
    expect(count(db, `SELECT count(*) FROM tasks WHERE project_id = 'p_1'`)).toBe(10);
  });
});
