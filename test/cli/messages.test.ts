/** Messages as a user meets them: unknown names as written, a progress bar that finishes. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS, runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';

/** A terminal control sequence (ESC [ ... letter). */
const CSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

/** Quotes a word for sh. */
const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

describe('messages', () => {
  it('names an unknown variable or flag as the user wrote it (exit 2, one line)', async () => {
    const dir = tempDir();
    const variable = await runCli(['status'], { env: { PROJMIRROR_BOGUS: '1' }, cwd: dir });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toBe('projmirror: unknown environment variable: PROJMIRROR_BOGUS\n');
    const flag = await runCli(['status', '--bogus-flag', '1'], { cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe('projmirror: unknown option: --bogus-flag\n');
  });

  it('draws each progress bar to its end, both passes of the demo, "1 page" in the singular', () => {
    const dir = tempDir();
    const command = [process.execPath, ...CLI_NODE_ARGS, 'demo'].map(quoted).join(' ');
    // script(1) gives the demo a terminal, where the bars are drawn.
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    // What each bar showed last before its line ended (cli-progress restores the cursor, DECRC).
    const finals = run.stdout
      .split('\x1b8')
      .slice(0, -1)
      .map((drawn) => drawn.split('\x1b[1G').at(-1)!.replace(CSI, ''));
    // Three projects, two passes: six bars, each at its total.
    expect(finals).toHaveLength(6);
    for (const final of finals) {
      const [, value, total] = /\] (\d+)\/(\d+) tasks/.exec(final) ?? [];
      expect(value, final).toBe(total);
    }
    expect(finals.filter((final) => final.includes('| 1 page |'))).toHaveLength(4);
    expect(run.stdout).not.toMatch(/\b1 pages\b/);
  });
});
