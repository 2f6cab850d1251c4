import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { DaemonStateRepository, STATE_KEYS } from '../../src/store/daemon-state.js';
import type { Simulator } from '../../src/sim/index.js';
import { runCli, startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { startNotifySocket } from '../ops/notify-socket.js';

const TOKEN = 'glt_test_cli_run_service_0123456789';
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** A temp dir holding a token file, and `run` arguments that reach `sim` with that token. */
function setup(sim: Simulator, token = TOKEN) {
  const dir = tempDir();
  const db = join(dir, 'm.sqlite');
  writeFileSync(join(dir, 'token'), token, { mode: 0o600 });
  const common = ['--base-url', sim.baseUrl, '--token-file', join(dir, 'token'), '--db', db];
  return { dir, db, common };
}

async function metricsPort(daemon: ReturnType<typeof startCli>): Promise<number> {
  return (JSON.parse(await daemon.waitForLine(/metrics listening/)) as { port: number }).port;
}

describe('projmirror run as a service', () => {
  it('says its version first, tells systemd READY=1 once the start-up reconcile began and STOPPING=1', async () => {
    const sim = await startTestSimulator({
      projects: 2,
      tasks: [600, 5],
      tokens: [TOKEN],
      delayMs: 50,
    });
    const { dir, db, common } = setup(sim);
    const notify = await startNotifySocket(dir);
    // One 429 with the service's code, which the metrics must name.
    sim.faults.failNext({
      route: 'listTasks',
      kind: 'status',
      status: 429,
      code: 'ip_rate_limited',
      headers: { 'Retry-After': '1' },
    });
    const daemon = startCli(
      ['run', ...common, '--metrics-port', '0', '--metrics-host', '127.0.0.1'],
      { env: { NOTIFY_SOCKET: notify.path } },
    );
    const first = JSON.parse(await daemon.waitForLine(/./)) as Record<string, unknown>;
    expect(first).toMatchObject({
      level: 'info',
      msg: 'projmirror starting',
      version: PACKAGE_VERSION,
    });
    await notify.waitFor('READY=1');
    // The mirror is open and the start-up reconcile has begun, not necessarily finished.
    const mirror = openDatabase(db, { readonly: true });
    const startup = await new DaemonStateRepository(mirror).get<{ startedAt: string }>(
      STATE_KEYS.startup,
    );
    mirror.close();
    expect(startup?.startedAt).toMatch(/^\d{4}-/);
    expect(notify.messages()).not.toContain('STOPPING=1');

    const port = await metricsPort(daemon);
    await daemon.waitForLine(/daemon started/);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain(`projmirror_build_info{version="${PACKAGE_VERSION}"`);
    expect(metrics).toMatch(/projmirror_request_duration_seconds_count\{route="listTasks"\} [1-9]/);
    expect(metrics).toMatch(
      /projmirror_last_consistent_pass_timestamp_seconds\{project="p_1"\} 1\d{9}/,
    );
    expect(metrics).toMatch(/^process_resident_memory_bytes /m);
    expect(metrics).toMatch(/^projmirror_rate_limited_total\{code="ip_rate_limited"[^}]*\} 1$/m);

    const status = await runCli(['status', '--json', '--db', db]);
    expect(JSON.parse(status.stdout)).toMatchObject({ version: PACKAGE_VERSION });
    const version = await runCli(['version']);
    const flag = await runCli(['--version']);
    expect([version.stdout, flag.stdout]).toEqual([`${PACKAGE_VERSION}\n`, `${PACKAGE_VERSION}\n`]);

    daemon.child.kill('SIGTERM');
    await notify.waitFor('STOPPING=1');
    expect((await daemon.ended).code).toBe(0);
    expect(notify.messages().filter((message) => message !== 'BARRIER=1')).toEqual([
      'READY=1',
      'STOPPING=1',
    ]);
  });

  it('answers /healthz 503 at the first refusal of the token, and exits 3 once refused for the set time', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5, tokens: [TOKEN] });
    const refused = 'glt_test_refused_by_the_service';
    const { common } = setup(sim, refused);

    const patient = startCli([
      'run',
      ...common,
      '--metrics-port',
      '0',
      '--token-refused-minutes',
      '10',
    ]);
    const port = await metricsPort(patient);
    let health = await fetch(`http://127.0.0.1:${port}/healthz`);
    for (let tries = 0; tries < 200 && health.status === 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      health = await fetch(`http://127.0.0.1:${port}/healthz`);
    }
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, tokenRefused: true });
    patient.child.kill('SIGTERM');
    expect((await patient.ended).code).toBe(0);

    const started = Date.now();
    const strict = await runCli(['run', ...common, '--token-refused-minutes', '0']);
    expect(strict.code).toBe(3);
    expect(Date.now() - started).toBeLessThan(15_000);
    const lines = strict.stderr.trim().split('\n');
    expect(lines).toEqual([
      'projmirror: the service has refused the token on every request for 0 min (last: listProjects 401 unauthorized); exiting 3, which the unit does not restart on: replace the token, then start projmirror again',
    ]);
    expect(strict.stdout).toContain('daemon stopped');
    expect(strict.stdout + strict.stderr).not.toContain(refused);
  });

  it('stays healthy while one of several tokens is refused, and names it in /healthz', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 5, tokens: [TOKEN] });
    const dir = tempDir();
    writeFileSync(join(dir, 'alpha'), TOKEN, { mode: 0o600 });
    writeFileSync(join(dir, 'beta'), 'glt_test_refused_by_the_service', { mode: 0o600 });
    const daemon = startCli([
      'run',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      join(dir, 'alpha'),
      '--token-file',
      join(dir, 'beta'),
      '--db',
      join(dir, 'm.sqlite'),
      '--metrics-port',
      '0',
    ]);
    const port = await metricsPort(daemon);
    let detail: { tokensRefused?: string[] } = {};
    let status = 0;
    for (let tries = 0; tries < 200 && !detail.tokensRefused?.length; tries++) {
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      status = health.status;
      detail = (await health.json()) as typeof detail;
      if (!detail.tokensRefused?.length) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(detail).toMatchObject({ tokenRefused: false, tokensRefused: ['beta'] });
    expect(status).toBe(200);
    daemon.child.kill('SIGTERM');
    expect((await daemon.ended).code).toBe(0);
  });
});
