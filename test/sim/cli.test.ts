import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, onTestFinished, test } from 'vitest';
import { parseFailSpec } from '../../src/cli/commands/simulate.js';
import { UsageError } from '../../src/domain/index.js';

// The CLI from source in a child process (the TypeScript hooks the CLI tests share).
const REGISTER = fileURLToPath(new URL('../fixtures/child/register.mjs', import.meta.url));
const ENTRY = fileURLToPath(new URL('../fixtures/child/run-cli.ts', import.meta.url));
const TOKEN = 'glt_test_simulate_cli_0123456789';

/** A `projmirror simulate` child process with `args`, its printed line, and a way to stop it. */
async function startSimulate(args: string[]) {
  const child = spawn(process.execPath, ['--import', REGISTER, ENTRY, 'simulate', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([
    new Promise<string[]>((resolve) => lines.once('line', (first) => resolve([first]))),
    exited.then((code) => {
      throw new Error(`simulate exited ${code} before printing: ${stderr}`);
    }),
  ])) as string[];
  const stop = async () => {
    child.kill('SIGTERM');
    return { code: await exited, stderr };
  };
  return { printed: JSON.parse(line ?? '') as Record<string, unknown>, stop };
}

describe('projmirror simulate', () => {
  test('prints one JSON line once it listens, serves HTTPS with its CA, and exits 0 on SIGTERM', async () => {
    const { printed, stop } = await startSimulate([
      '--tls',
      '--projects',
      '2',
      '--tasks',
      '7',
      '--token',
      TOKEN,
    ]);
    expect(Object.keys(printed).sort()).toEqual(['baseUrl', 'caFile', 'realtimeUrl', 'tokens']);
    expect(printed['baseUrl']).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(printed['realtimeUrl']).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/v1\/realtime$/);
    expect(printed['tokens']).toEqual([TOKEN]);

    const dispatcher = new Agent({ connect: { ca: readFileSync(String(printed['caFile'])) } });
    const response = await undiciFetch(`${String(printed['baseUrl'])}/projects/p_2/tasks`, {
      dispatcher,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBe('7');
    await dispatcher.close();

    expect(await stop()).toEqual({ code: 0, stderr: '' });
  });

  test('--help lists the readings flags', async () => {
    const child = spawn(process.execPath, ['--import', REGISTER, ENTRY, 'simulate', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    for (const flag of [
      '--readings',
      '--identity',
      '--set-dependencies',
      '--reorder',
      '--idempotency',
      '--hidden-record',
      '--status-mapping',
    ]) {
      expect(stdout).toContain(flag);
    }
    expect(stdout).toContain('first-write | first-request');
  });

  test('serves the readings its flags ask for', async () => {
    const { printed, stop } = await startSimulate([
      '--projects',
      '1',
      '--tasks',
      '1',
      '--token',
      TOKEN,
      '--readings',
      'alternate',
      '--hidden-record',
      '403',
    ]);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${String(printed['baseUrl'])}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      });
    const [task] = (await (await api('/projects/p_1/tasks')).json()) as { id: string }[];
    const members = (await (await api('/projects/p_1/members')).json()) as { kind: string }[];
    expect(members.filter((member) => member.kind === 'integration').length).toBe(1);
    const patched = await api(`/tasks/${task?.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'InProgress' }),
    });
    expect(((await patched.json()) as { progress: number }).progress).toBe(50);
    expect(await stop()).toEqual({ code: 0, stderr: '' });
  });

  test('--fail specs parse into fault rules; bad ones are usage errors naming the value', () => {
    expect(parseFailSpec('listTasks:503:2')).toEqual({
      route: 'listTasks',
      kind: 'status',
      status: 503,
      count: 2,
    });
    expect(parseFailSpec('*:drop:1')).toEqual({ route: '*', kind: 'drop', count: 1 });
    for (const bad of ['listTasks:503', 'nowhere:500:1', 'listTasks:99:1', 'listTasks:500:0']) {
      expect(() => parseFailSpec(bad)).toThrow(UsageError);
      expect(() => parseFailSpec(bad)).toThrow(bad);
    }
  });
});
