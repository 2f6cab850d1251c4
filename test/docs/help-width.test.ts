/**
 * The README's promise about `--help`: on a terminal its lines fit the terminal, 100 columns at
 * most; piped, they are not broken, so that an example copies whole. The terminal is a real
 * pseudo-terminal (`script` from util-linux, its size set with `stty`), as a user's would be.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS, runCli } from '../fixtures/cli.js';

/** Every command, and the program itself (''). */
const COMMANDS = ['', 'sync', 'run', 'push', 'enqueue', 'outbox', 'status', 'report', 'export'];

/** A shell word of `text`. */
const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The lines `projmirror <command> --help` shows on a terminal `columns` wide. */
function onTerminal(command: string, columns: number): string[] {
  const cli = [process.execPath, ...CLI_NODE_ARGS, ...(command ? [command] : []), '--help'];
  const shell = `stty cols ${columns} rows 50; ${cli.map(quote).join(' ')}`;
  const run = spawnSync('script', ['-q', '-e', '-c', shell, '/dev/null'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.replaceAll('\r', '').split('\n');
}

const widest = (lines: readonly string[]) => Math.max(...lines.map((line) => line.length));

describe('--help', () => {
  it.each(COMMANDS)(
    'of "%s" fits a terminal, 100 columns at most, and is whole when piped',
    async (command) => {
      const narrow = onTerminal(command, 60);
      expect(narrow.some((line) => line.includes('--help'))).toBe(true);
      expect(widest(narrow)).toBeLessThanOrEqual(60);
      expect(widest(onTerminal(command, 200))).toBeLessThanOrEqual(100);
      const piped = await runCli(command ? [command, '--help'] : ['--help']);
      expect(piped.code).toBe(0);
      const lines = piped.stdout.split('\n');
      // Each line a terminal broke in two is one line here: the piped help has fewer lines, and
      // its longest, which does not fit in 100 columns, is there whole.
      expect(lines.length).toBeLessThan(narrow.length);
      expect(widest(lines)).toBeGreaterThan(100);
    },
    60_000,
  );
});
