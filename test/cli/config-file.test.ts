import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../fixtures/cli.js';
import { cliArgsReadableByAll } from '../fixtures/readable-copy.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_config_file_0123456789';
/** An unprivileged account every Linux has, to meet a permission as the service user would. */
const NOBODY = 65534;

/** One line on stderr naming the problem, and exit 2 (which the unit does not restart on). */
function expectUsageLine(run: CliRun, pattern: RegExp): void {
  expect(run.code).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/YError|\n\s+at /);
}

/**
 * `projmirror ...args` as the unprivileged user (root reads any file, the service user does not),
 * from a copy that user can read wherever the checkout lives.
 */
function runAsNobody(args: string[]): CliRun {
  const command = process.getuid?.() === 0 ? 'setpriv' : process.execPath;
  const prefix =
    command === 'setpriv'
      ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath]
      : [];
  const result = spawnSync(command, [...prefix, ...cliArgsReadableByAll(), ...args], {
    cwd: '/',
    encoding: 'utf8',
    timeout: 30_000,
  });
  return {
    code: result.status,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

describe('the --config file', () => {
  it('exits 2 naming the file and the cause: missing, unreadable, invalid JSON, wrong type', async () => {
    const dir = tempDir();
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const db = join(dir, 'm.sqlite');
    // A device has no size to trust: its read stops one byte past the bound.
    expectUsageLine(
      await runCli(['status', '--db', db, '--config', '/dev/zero']),
      /^projmirror: config file \/dev\/zero: more than \d+ bytes for a config file$/,
    );
    const missing = join(dir, 'absent.json');
    expectUsageLine(
      await runCli(['status', '--db', db, '--config', missing]),
      new RegExp(`^projmirror: config file ${missing}: cannot read: ENOENT \\(no such file\\)$`),
    );

    const invalid = file(
      'invalid.json',
      '{\n  "base-url": "https://x.example/v1"\n  "db": "m"\n}\n',
    );
    expectUsageLine(
      await runCli(['status', '--db', db, '--config', invalid]),
      new RegExp(`^projmirror: config file ${invalid}: invalid JSON at line 3 column 3: `),
    );
    const cut = file('cut.json', '{"base-url": ');
    expectUsageLine(
      await runCli(['sync', '--config', cut]),
      /config file .*cut\.json: invalid JSON at line 1 column 14: ValueExpected$/,
    );

    const wrongType = file('type.json', '{"base-url": 5}');
    expectUsageLine(
      await runCli(['sync', '--config', wrongType]),
      /config file .*type\.json: "base-url" must be a string, not 5$/,
    );
    const wrongPort = file('port.json', '{"metrics-port": "9464"}');
    expectUsageLine(
      await runCli(['run', '--config', wrongPort]),
      /config file .*port\.json: "metrics-port" must be a number, not "9464"$/,
    );
    const unknown = file('unknown.json', '{"base_url": "https://x.example/v1"}');
    expectUsageLine(
      await runCli(['outbox', 'list', '--db', db, '--config', unknown]),
      /config file .*unknown\.json: unknown key "base_url"$/,
    );
    const array = file('array.json', '["base-url"]');
    expectUsageLine(
      await runCli(['report', '--db', db, '--config', array]),
      /config file .*array\.json: must hold a JSON object, not an array$/,
    );
    expect(existsSync(db)).toBe(false);
  });

  it('exits 2 on a file the service user may not read (EACCES), as run would under systemd', () => {
    const dir = tempDir();
    const etc = join(dir, 'etc');
    mkdirSync(etc);
    const config = join(etc, 'config.json');
    writeFileSync(config, '{"log-level": "info"}');
    chmodSync(dir, 0o755);
    chmodSync(etc, 0o700);
    const run = runAsNobody(['run', '--config', config]);
    expectUsageLine(
      run,
      /^projmirror: config file .*config\.json: cannot read: EACCES \(permission denied\)$/,
    );
  });

  it('takes each value from the flag, then the environment, then the file (the token included)', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, tokens: [TOKEN] });
    const dir = tempDir();
    const wrongToken = join(dir, 'wrong-token');
    writeFileSync(wrongToken, 'glt_test_not_registered\n', { mode: 0o600 });
    const fromFile = join(dir, 'from-file.sqlite');
    const fromEnv = join(dir, 'from-env.sqlite');
    const fromFlag = join(dir, 'from-flag.sqlite');
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        'base-url': sim.baseUrl,
        'token-file': wrongToken,
        db: fromFile,
        'log-level': 'warn',
      }),
    );

    // PROJMIRROR_TOKEN beats the file's token-file; PROJMIRROR_DB beats its db.
    const env = { PROJMIRROR_TOKEN: TOKEN, PROJMIRROR_DB: fromEnv };
    const synced = await runCli(['sync', '--config', config], { env });
    expect(synced.stderr).toBe('');
    expect(synced.code).toBe(0);
    expect(existsSync(fromEnv)).toBe(true);
    expect(existsSync(fromFile)).toBe(false);

    // A flag beats the environment; PROJMIRROR_TOKEN_FILE beats PROJMIRROR_TOKEN.
    const flagged = await runCli(['sync', '--config', config, '--db', fromFlag], {
      env: { ...env, PROJMIRROR_TOKEN_FILE: wrongToken },
    });
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toMatch(/401 unauthorized/);
    expect(existsSync(fromFlag)).toBe(true);

    // With nothing above it, the file's token-file is read.
    const fileOnly = await runCli(['sync', '--config', config]);
    expect(fileOnly.code).toBe(1);
    expect(fileOnly.stderr).toMatch(/401 unauthorized/);
    expect(existsSync(fromFile)).toBe(true);
  });
});
