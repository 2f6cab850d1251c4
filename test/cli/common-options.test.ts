import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { COMMON_OPTIONS, type CommonOptionName } from '../../src/cli/common-options.js';
import { runCli, startCli, type CliRun } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_common_options_0123456789';

/** Each command as a user would run it, with its own arguments. */
const INVOCATIONS: Record<string, string[]> = {
  sync: ['sync'],
  push: ['push'],
  enqueue: [
    'enqueue',
    'task.update',
    '--project',
    'p_1',
    '--target',
    't_1',
    '--body',
    '{"progress":7}',
  ],
  status: ['status', '--json'],
  outbox: ['outbox', 'list'],
  report: ['report'],
  export: ['export', '--format', 'json', '--out', 'OUT'],
  changes: ['changes', '--limit', '1'],
  version: ['version'],
  run: ['run'],
  simulate: ['simulate', '--projects', '1', '--tasks', '1'],
  demo: ['demo', '--db', 'DEMO'],
};

/** Commands that run until told to stop, and the line that says they are up. */
const SERVERS: Record<string, RegExp> = { run: /daemon started/, simulate: /"baseUrl"/ };
/** Commands with options of their own, that take no common option (their help says so). */
const OWN_OPTIONS = ['simulate', 'demo'];

/** What stderr says besides log lines (one-shot commands log there, one JSON object a line). */
function problems(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line !== '' && !/^\{"level":"(info|debug|trace)"/.test(line))
    .join('\n');
}

async function invoke(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  dir: string,
): Promise<CliRun> {
  const argv = args.map((arg) =>
    arg === 'OUT' ? join(dir, 'out') : arg === 'DEMO' ? join(dir, 'demo.sqlite') : arg,
  );
  const ready = SERVERS[name];
  if (ready === undefined) return runCli(argv, { env, cwd: dir, timeoutMs: 60_000 });
  const server = startCli(argv, { env, cwd: dir });
  await server.waitForLine(ready, 30_000);
  server.child.kill('SIGTERM');
  return server.ended;
}

describe('the common options', () => {
  it('are accepted by every command from the environment and as flags; unused ones are ignored', async () => {
    expect(Object.keys(INVOCATIONS).sort()).toEqual(
      commands.map((c) => c.command.split(' ')[0]).sort(),
    );
    const sim = await startTestSimulator({ tls: true, projects: 1, tasks: 3, tokens: [TOKEN] });
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ routes: {} }));
    const values: Record<CommonOptionName | 'config', string> = {
      config,
      db: join(dir, 'm.sqlite'),
      // Read only for a postgres:// --db: accepted and ignored by a SQLite mirror.
      'db-password-file': join(dir, 'db-password'),
      'lease-ms': '30000',
      'log-level': 'info',
      'log-format': 'json',
      timezone: 'Europe/Berlin',
      'base-url': sim.baseUrl,
      'token-file': tokenFile,
      'token-files': '',
      'ca-file': sim.caFile ?? '',
      'realtime-url': sim.realtimeUrl,
      projects: 'p_1',
      routes: '',
      'metrics-port': '0',
      'metrics-host': '127.0.0.1',
      'reconcile-cron': '15 0 * * *',
      'reconcile-timezone': 'Europe/Berlin',
      'history-retention-days': '30',
      'changes-retention-days': '7',
      'token-refused-minutes': '10',
      'checkpoint-blocked-minutes': '10',
      'max-staleness': '6h',
      'item-retry-window-ms': '1000',
      'stall-ms': '60000',
      'deadline-ms': '60000',
      'on-conflict': 'hold',
    };
    expect(Object.keys(values).sort()).toEqual([...Object.keys(COMMON_OPTIONS), 'config'].sort());
    // routes and token-files are config file keys only.
    const given = Object.entries(values).filter(
      ([name]) => name !== 'routes' && name !== 'token-files',
    );
    const env = Object.fromEntries(
      given.map(([name, value]) => [
        `PROJMIRROR_${name.toUpperCase().replaceAll('-', '_')}`,
        value,
      ]),
    );
    const flags = given.flatMap(([name, value]) => [`--${name}`, value]);

    for (const [name, args] of Object.entries(INVOCATIONS)) {
      const fromEnv = await invoke(name, args, env, dir);
      expect({ name, code: fromEnv.code, stderr: problems(fromEnv.stderr) }).toEqual({
        name,
        code: 0,
        stderr: '',
      });
      if (OWN_OPTIONS.includes(name)) continue;
      const fromFlags = await invoke(name, [...args, ...flags], {}, dir);
      expect({ name, code: fromFlags.code, stderr: problems(fromFlags.stderr) }).toEqual({
        name,
        code: 0,
        stderr: '',
      });
    }
  }, 240_000);
});
