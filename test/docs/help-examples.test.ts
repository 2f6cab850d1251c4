/**
 * Every example a command's `--help` shows is run as a user would copy it, in a shell, against a
 * mirror synced from the simulator (`PROJMIRROR_DB` names it, as the README's config does), and
 * must do what its description says.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS, runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_help_examples_0123456789';
/** The commands whose help shows examples. */
const COMMANDS = ['sync', 'run', 'push', 'enqueue', 'outbox', 'status', 'report', 'export'];
/** `projmirror` on the shell's PATH: this checkout's CLI. */
const SHIM = `projmirror() { "${process.execPath}" ${CLI_NODE_ARGS.map((a) => `"${a}"`).join(' ')} "$@"; }`;

/** The examples of `command --help`: each line's command and its description. */
async function examples(command: string): Promise<Array<{ line: string; says: string }>> {
  const help = await runCli([command, '--help']);
  expect(help.code).toBe(0);
  const at = help.stdout.indexOf('Examples:\n');
  if (at < 0) return [];
  return help.stdout
    .slice(at + 'Examples:\n'.length)
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => {
      const [example, ...description] = line.trim().split(/\s{2,}/);
      return { line: example!, says: description.join(' ') };
    });
}

describe('the examples of --help', () => {
  it('run as shown, against a synced mirror, and do what they say', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 5, tokens: [TOKEN] });
    const dir = tempDir();
    const mirror = join(dir, 'mirror.sqlite');
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    const env = { PROJMIRROR_DB: mirror };
    const synced = await runCli(
      ['sync', '--base-url', sim.baseUrl, '--token-file', join(dir, 'token')],
      { env },
    );
    expect(synced.code).toBe(0);

    const all = (await Promise.all(COMMANDS.map(examples))).flat();
    // Every example of the three commands that show them, none lost to wrapping.
    expect(all.map(({ line }) => line.split(' ').slice(0, 2).join(' ')).sort()).toEqual([
      'echo \'{"assigneeIds":[]}\'',
      'projmirror enqueue',
      'projmirror enqueue',
      'projmirror export',
      'projmirror export',
      'projmirror report',
      'projmirror report',
      'projmirror report',
    ]);
    for (const { line, says } of all) {
      const run = spawnSync('bash', ['-c', `set -o pipefail\n${SHIM}\n${line}`], {
        cwd: dir,
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ line, code: run.status, stderr: run.stderr }).toMatchObject({ code: 0 });
      if (says.includes('standard output') && !line.includes('>')) {
        expect(run.stdout.trim(), line).not.toBe('');
      }
    }
    // What they made: the queued edits, the page of charts, one CSV per view.
    const listed = await runCli(['outbox', 'list', '--json'], { env });
    expect((JSON.parse(listed.stdout) as Array<{ op: string }>).map((item) => item.op)).toEqual([
      'task.create',
      'task.update',
      'task.set_assignees',
    ]);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    expect(existsSync(join(dir, 'reports'))).toBe(true);
    expect(readdirSync(join(dir, 'reports')).filter((file) => file.endsWith('.csv')).length).toBe(
      readdirSync(join(dir, 'reports')).length,
    );
    expect(readdirSync(join(dir, 'reports')).length).toBeGreaterThan(5);
  }, 120_000);
});
