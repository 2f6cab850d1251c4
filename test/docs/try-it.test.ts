/**
 * Executes the README's "Try it against the simulator" block as a user would: each line through
 * `sh`, in a fresh directory, `npx projmirror` being this checkout's CLI. Only what a test must
 * change is changed: the placeholders are filled from the simulator's JSON line, and the metrics
 * port is one the OS picks (the README's 9464 could be taken).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { shellBlocks } from './pages.js';

/** The lines of the first `sh` block under `## heading`. */
function blockLines(heading: string): string[] {
  const [block] = shellBlocks(heading);
  return (block ?? '').split('\n').filter((line) => line.trim() !== '');
}

/** `npx projmirror ...` runs this checkout's CLI from its sources. */
const NPX = `npx() { shift; exec "${process.execPath}" ${CLI_NODE_ARGS.map((a) => `"${a}"`).join(' ')} "$@"; }`;

interface Shell {
  child: ChildProcess;
  out: () => string;
  ended: Promise<number | null>;
}

function shell(line: string, cwd: string): Shell {
  const child = spawn('sh', ['-c', `${NPX}\n${line}`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, out: () => out, ended };
}

async function until<T>(read: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the README, "Try it against the simulator"', () => {
  it('runs as written: simulate, token, sync, status, run', async () => {
    const lines = blockLines('Try it against the simulator');
    // Each line is run below (test/docs/readme-commands.test.ts counts on it).
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe('npm ci'); // done before npm test
    const dir = tempDir();
    const strip = (line: string) => line.replace(/\s+#.*$/, '').trim();

    const simLine = strip(lines[1]!).replace(/&$/, '');
    expect(simLine).toMatch(/^npx projmirror simulate .*--token glt_test_x/);
    const sim = shell(simLine, dir);
    const announced = await until(
      () =>
        sim
          .out()
          .split('\n')
          .find((line) => line.startsWith('{')),
      'the simulator to announce itself',
    );
    const { baseUrl, realtimeUrl, caFile } = JSON.parse(announced) as Record<string, string>;
    const fill = (line: string) =>
      strip(line)
        .replaceAll('<baseUrl>', baseUrl!)
        .replaceAll('<caFile>', caFile!)
        .replaceAll('<realtimeUrl>', realtimeUrl!)
        .replace('--metrics-port 9464', '--metrics-port 0');

    const token = shell(fill(lines[2]!), dir);
    expect(await token.ended).toBe(0);
    const sync = shell(fill(lines[3]!), dir);
    expect(await sync.ended, sync.out()).toBe(0);
    expect(sync.out()).not.toMatch(/warning|error/i);
    const status = shell(fill(lines[4]!), dir);
    expect(await status.ended, status.out()).toBe(0);
    expect(status.out()).toMatch(/p_1/);

    const run = shell(fill(lines[5]!), dir);
    const port = await until(() => /"port":(\d+)/.exec(run.out())?.[1], 'the metrics port');
    let answer = 0;
    const deadline = Date.now() + 30_000;
    while (answer !== 200 && Date.now() < deadline) {
      answer = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status,
        () => 0,
      );
      if (answer !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answer).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.ended).toBe(0);
    sim.child.kill('SIGTERM');
  }, 90_000);
});
