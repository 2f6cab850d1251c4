/**
 * A command loads what it runs, not every command's modules (docs/configuration.md, "Startup"): `--help`,
 * `enqueue` and `status` start without the engine, the daemon, the simulator, the report or the
 * PostgreSQL driver, and `sync` into a SQLite file without the simulator, the daemon, the
 * realtime listener, metrics, schedules or the PostgreSQL driver. Each run's modules are logged by
 * a loader hook in the child process itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const MODULE_LOG = fileURLToPath(new URL('../fixtures/child/module-log.mjs', import.meta.url));

/** What a command need not load, by name. */
const UNNEEDED: Record<string, RegExp> = {
  simulator: /\/src\/sim\//,
  daemon: /\/src\/daemon\/daemon\.[jt]s$/,
  realtime: /\/src\/realtime\//,
  report: /\/src\/report\//,
  engine: /\/src\/mirror\//,
  'PostgreSQL driver': /\/node_modules\/pg\//,
  metrics: /\/node_modules\/prom-client\//,
  schedules: /\/node_modules\/cron-parser\//,
  websocket: /\/node_modules\/ws\//,
  'HTTP client': /\/node_modules\/undici\//,
  'TLS certificates': /\/node_modules\/selfsigned\//,
};

/** Runs `projmirror ...args` and returns its exit code and the modules it loaded. */
async function modulesOf(args: string[]): Promise<{ code: number | null; loaded: string[] }> {
  const log = join(tempDir(), 'modules.log');
  writeFileSync(log, '');
  const run = await runCli(args, {
    nodeArgs: ['--import', MODULE_LOG],
    env: { MODULE_LOG_FILE: log },
  });
  expect(run.stderr).not.toMatch(/Error/);
  return { code: run.code, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** The names of `UNNEEDED` that `loaded` holds. */
function unneededIn(loaded: readonly string[], names: readonly string[]): string[] {
  return names.filter((name) => loaded.some((url) => UNNEEDED[name]!.test(url)));
}

describe('startup', () => {
  it('--help, enqueue and status load none of what they do not run', async () => {
    const db = join(tempDir(), 'mirror.sqlite');
    const all = Object.keys(UNNEEDED);
    const help = await modulesOf(['--help']);
    expect(help.code).toBe(0);
    expect(unneededIn(help.loaded, all)).toEqual([]);
    const body = JSON.stringify({ name: 'renamed' });
    const enqueue = await modulesOf([
      'enqueue',
      'task.update',
      '--project',
      'p1',
      '--target',
      't1',
      '--body',
      body,
      '--db',
      db,
    ]);
    expect(enqueue.code).toBe(0);
    expect(unneededIn(enqueue.loaded, all)).toEqual([]);
    // Each loaded its own command's module, and no other's.
    expect(enqueue.loaded.filter((url) => /\/src\/cli\/commands\/\w+\.[jt]s$/.test(url))).toEqual([
      expect.stringMatching(/\/commands\/index\.[jt]s$/),
      expect.stringMatching(/\/commands\/enqueue\.[jt]s$/),
    ]);
    const status = await modulesOf(['status', '--db', db]);
    expect(status.code).toBe(0);
    expect(unneededIn(status.loaded, all)).toEqual([]);
  });

  it('sync into a SQLite file loads the engine and its HTTP client, and nothing of the daemon or PostgreSQL', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5 });
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${sim.token}\n`, { mode: 0o600 });
    const args = ['sync', '--base-url', sim.baseUrl, '--token-file', tokenFile];
    const sync = await modulesOf([...args, '--db', join(dir, 'mirror.sqlite')]);
    expect(sync.code).toBe(0);
    const needed = ['engine', 'HTTP client'];
    expect(unneededIn(sync.loaded, needed)).toEqual(needed);
    const unneeded = Object.keys(UNNEEDED).filter((name) => !needed.includes(name));
    expect(unneededIn(sync.loaded, unneeded)).toEqual([]);
  });
});
