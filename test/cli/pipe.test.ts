import { spawnSync } from 'node:child_process';
import { syncWithCli } from '../fixtures/synced.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS, runCli } from '../fixtures/cli.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_cli_pipe_0123456789';
/** What a pipe holds before its writer must wait: past it, a writer meets a reader gone. */
const PIPE_BUFFER_BYTES = 64 * 1024;

describe('output into a pipe that closes early', () => {
  it('projmirror report | head -1 prints one line and the report ends quietly', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 4000, tokens: [TOKEN] });
    const { dir, db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const whole = await runCli(['report', '--db', db]);
    expect(whole.stdout.length).toBeGreaterThan(2 * PIPE_BUFFER_BYTES);

    const cli = [process.execPath, ...CLI_NODE_ARGS].map((word) => `'${word}'`).join(' ');
    const shell = spawnSync(
      'bash',
      [
        '-c',
        `${cli} report --db '${db}' 2>'${dir}/stderr' | head -1; echo "exit \${PIPESTATUS[0]}"`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    const [first, exit] = shell.stdout.trim().split('\n');
    expect(first).toBe(whole.stdout.split('\n')[0]);
    expect(exit).toBe('exit 0');
    expect(spawnSync('cat', [join(dir, 'stderr')], { encoding: 'utf8' }).stdout).toBe('');
  });
});
