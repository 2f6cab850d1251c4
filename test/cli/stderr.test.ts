/**
 * What a one-shot command says on stderr when it fails as a new user first meets it: plain lines,
 * one per thing worth a person's attention (one per failed project, one per refused token), no
 * log noise; `--log-format json` gives JSON lines instead.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { docSection } from '../docs/pages.js';
import { threeTokens } from '../tokens/fixtures.js';

const TOKEN = 'glt_test_stderr_0123456789abcdef';

/** The flags of a sync of `baseUrl` with `token` (written to a file) into a new mirror. */
function syncFlags(baseUrl: string, token = TOKEN): string[] {
  const dir = tempDir();
  const file = join(dir, 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return ['sync', '--base-url', baseUrl, '--token-file', file, '--db', join(dir, 'm.sqlite')];
}

/** The lines of the documented example of stderr (the `text` block under Configuration, Logs). */
const SHOWN = /\*\*Logs\.\*\*[\s\S]*?```text\n([\s\S]*?)```/
  .exec(docSection('Configuration'))![1]!
  .trim()
  .split('\n');
/** What the README shows of each run here: its port and date as the README writes them. */
const README_PORT = '8443';
const README_RESET = '2026-11-28T00:00:00.000Z';
const shown = new Set<string>();

/** Checks that the README shows `stderr`'s lines as they are (port and date aside). */
function expectShown(stderr: string, port?: string, reset?: string): void {
  for (let line of stderr.trim().split('\n')) {
    if (port !== undefined) line = line.replace(`127.0.0.1:${port}`, `127.0.0.1:${README_PORT}`);
    if (reset !== undefined) line = line.replace(reset, README_RESET);
    expect(SHOWN).toContain(line);
    shown.add(line);
  }
}

/** The next midnight UTC after `ms`, as the client writes it. */
function nextMidnight(ms: number): string {
  const day = 24 * 60 * 60 * 1000;
  return new Date((Math.floor(ms / day) + 1) * day).toISOString();
}

describe('stderr of one-shot commands', () => {
  it('an unknown token: one line, exit 1', async () => {
    const sim = await startTestSimulator({ tokens: [TOKEN] });
    const run = await runCli(syncFlags(sim.baseUrl, 'glt_test_not_registered'));
    expect(run.stderr).toBe('projmirror: GET listProjects: HTTP 401 unauthorized: unknown token\n');
    expectShown(run.stderr);
    expect(run.code).toBe(1);
  });

  it('a TLS failure: one line, exit 1', async () => {
    const sim = await startTestSimulator({ tls: true, tokens: [TOKEN] });
    const run = await runCli(syncFlags(sim.baseUrl));
    const port = new URL(sim.baseUrl).port;
    expect(run.stderr).toBe(
      `projmirror: GET listProjects: TLS verification of 127.0.0.1:${port} failed: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); trust its CA with --ca-file\n`,
    );
    expectShown(run.stderr, port);
    expect(run.code).toBe(1);
  });

  it("a project's malformed task list: one line for that project, exit 1", async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN] });
    sim.faults.failNext({
      route: 'listTasks',
      kind: 'malformed',
      count: Infinity,
      when: (r) => r.path.includes('/p_1/'),
    });
    const run = await runCli(syncFlags(sim.baseUrl));
    expect(run.stderr).toBe(
      'projmirror: project p_1: GET listTasks of p_1 page 1: malformed response: X-Total-Count missing\n',
    );
    expectShown(run.stderr);
    expect(run.code).toBe(1);
  });

  it('a refused token among several: one warning naming the tokens that took its projects, exit 0', async () => {
    const setup = await threeTokens();
    setup.sim.service.revokeToken(setup.secret('a'));
    const dir = tempDir();
    const flags = setup.tokens.flatMap(({ label, secret }) => {
      const file = join(dir, `${label}.token`);
      writeFileSync(file, `${secret}\n`, { mode: 0o600 });
      return ['--token-file', file];
    });
    const run = await runCli([
      'sync',
      '--base-url',
      setup.sim.baseUrl,
      '--db',
      join(dir, 'm.sqlite'),
      ...flags,
    ]);
    expect(run.stderr).toBe(
      'projmirror: warning: token "a" refused (401); its projects went through "b", "c"\n',
    );
    expectShown(run.stderr);
    expect(run.code).toBe(0);
  });

  it('a spent quota: one line per project left unsynced, exit 1', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN], quota: 4 });
    const started = Date.now();
    const run = await runCli(syncFlags(sim.baseUrl));
    // The client assumes the quota resets at the next UTC midnight: of the start, or of the end.
    const said = (midnight: string) =>
      [
        `projmirror: project p_1: quota down to the reserve kept for pushes and refreshes (1 of 4 requests left today); requests resume at ${midnight}`,
        `projmirror: project p_2: not attempted: quota down to the reserve kept for pushes and refreshes (1 of 4 requests left today); requests resume at ${midnight}`,
        '',
      ].join('\n');
    const reset = [nextMidnight(started), nextMidnight(Date.now())].find(
      (midnight) => said(midnight) === run.stderr,
    );
    expect(reset, run.stderr).toBeDefined();
    expectShown(run.stderr, undefined, reset);
    expect(run.code).toBe(1);
  });

  it('a usage error: one line naming the bad value, exit 2', async () => {
    const run = await runCli([...syncFlags('https://127.0.0.1:1/v1'), '--stall-ms', 'soon']);
    expect(run.stderr).toBe(
      'projmirror: --stall-ms "soon" must be a whole number of milliseconds, 0 (no stall bound) or more\n',
    );
    expectShown(run.stderr);
    expect(run.code).toBe(2);
  });

  it('a retry that then succeeds says nothing: exit 0, stderr empty', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5, tokens: [TOKEN] });
    sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 503 });
    const run = await runCli(syncFlags(sim.baseUrl));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(sim.requestLog.count({ status: 503 })).toBe(1);
  });

  it('--log-format json: every line on stderr is a JSON object, the failed project at error', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN] });
    sim.faults.failNext({ route: 'listTasks', kind: 'malformed', count: Infinity });
    const run = await runCli([...syncFlags(sim.baseUrl), '--log-format', 'json']);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // At info (the default of JSON lines): each project synced or not, and the summary.
    expect(entries.map((entry) => entry['msg'])).toContain('sync done');
    const errors = entries.filter((entry) => entry['level'] === 'error');
    expect(errors.map((entry) => entry['msg'])).toEqual([
      expect.stringMatching(/^project p_\d: GET listTasks of p_\d page 1: malformed response/),
      expect.stringMatching(/^project p_\d: GET listTasks of p_\d page 1: malformed response/),
    ]);
    expect(entries.every((entry) => entry['service'] === 'projmirror')).toBe(true);
  });

  it('the README shows each of these lines, and only these', () => {
    expect([...shown].sort()).toEqual([...SHOWN].sort());
  });
});
