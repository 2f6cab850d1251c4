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

describe('projmirror simulate', () => {
  test('prints one JSON line once it listens, serves HTTPS with its CA, and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        REGISTER,
        ENTRY,
        'simulate',
        '--tls',
        '--projects',
        '2',
        '--tasks',
        '7',
        '--token',
        TOKEN,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
    const printed = JSON.parse(line ?? '') as Record<string, unknown>;
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

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
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
