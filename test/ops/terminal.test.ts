import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_ops_terminal_0123456789';
/** A plain line of the one-shot commands' stderr (issue 33): `projmirror: debug: ...`. */
const LOG_LINE = /^projmirror: ((debug|warning|error): )?\S/;
const BAR_LINE = /^p_\d \[[█░]+\] \d+\/\d+ tasks \| \d+ pages? \| quota left \d+$/;

/** tmux on a server of this test's own, killed when the test ends. */
function tmux(socket: string, ...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  if (result.status !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr}`);
  return result.stdout;
}

describe('sync on a terminal', () => {
  it('prints readable log lines around the progress bar, never into its line', async () => {
    const sim = await startTestSimulator({
      projects: 2,
      tasks: [3000, 20],
      tokens: [TOKEN],
      delayMs: 40,
    });
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    const socket = `projmirror-test-${process.pid}`;
    const cli = [process.execPath, ...CLI_NODE_ARGS].map((word) => `'${word}'`).join(' ');
    const sync = `${cli} sync --base-url ${sim.baseUrl} --token-file token --db m.sqlite --log-level debug`;
    tmux(socket, 'new-session', '-d', '-x', '400', '-y', '80', '-c', dir, `${sync}; sleep 120`);
    onTestFinished(() => {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    });
    let screen: string[] = [];
    for (let tries = 0; tries < 600 && !screen.some((line) => line.startsWith('sync: ')); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      screen = tmux(socket, 'capture-pane', '-p', '-S', '-', '-t', '0')
        .split('\n')
        .map((line) => line.trimEnd());
    }
    const lines = screen.filter((line) => line !== '');
    expect(lines.at(-1)).toMatch(/^sync: 2 projects consistent, 0 failed; 3,020 tasks;/);
    const logs = lines.filter((line) => LOG_LINE.test(line));
    const bars = lines.filter((line) => BAR_LINE.test(line));
    expect(logs.length).toBeGreaterThan(10);
    expect(bars).toContain(
      bars.find((line) => line.startsWith('p_1 ') && line.includes(' 3000/3000 tasks')),
    );
    // Every line is whole: one log entry, one bar, or the summary; nothing written into another.
    expect(
      lines.filter(
        (line) => !LOG_LINE.test(line) && !BAR_LINE.test(line) && !line.startsWith('sync: '),
      ),
    ).toEqual([]);
    expect(logs.filter((line) => line.match(/projmirror: /g)!.length !== 1)).toEqual([]);
    // Log lines came while the bar of p_1 was drawn, and stand above it.
    const firstBar = lines.findIndex((line) => BAR_LINE.test(line));
    expect(
      lines.slice(0, firstBar).filter((line) => line.includes(' route=listTasks')).length,
    ).toBeGreaterThan(3);
  }, 60_000);
});
