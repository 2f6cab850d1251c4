import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import type { Simulator } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';

const TOKEN = 'glt_test_cli_run_0123456789';

/** A temp dir with the token file, and the `run` arguments that reach `sim` with it. */
function runArgs(sim: Simulator): { dir: string; file: string; args: string[] } {
  const dir = tempDir();
  const file = join(dir, 'm.sqlite');
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
  const args = ['run', '--base-url', sim.baseUrl, '--token-file', join(dir, 'token'), '--db', file];
  return { dir, file, args };
}

describe('projmirror run', () => {
  it('shows a remote change within a second, serves metrics, and exits 0 soon after SIGTERM', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [40, 4], tokens: [TOKEN] });
    const { dir, file, args } = runArgs(sim);
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ 'log-level': 'info' }));
    const daemon = startCli([
      ...args,
      ...['--config', config, '--realtime-url', sim.realtimeUrl, '--metrics-port', '0'],
    ]);
    const portLine = await daemon.waitForLine(/metrics listening/);
    const port = (JSON.parse(portLine) as { port: number }).port;
    await daemon.waitForLine(/daemon started/);
    await daemon.waitForLine(/realtime: connected/);

    const task = sim.service.createTask('p_1', { name: 'Seen within a second' });
    const written = Date.now();
    const db = new Database(file, { readonly: true });
    let seenAfter = Infinity;
    while (Date.now() - written < 3_000) {
      if (db.prepare('SELECT 1 FROM tasks WHERE id = ?').get(task.id)) {
        seenAfter = Date.now() - written;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    db.close();
    expect(seenAfter).toBeLessThan(1_000);

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/projmirror_requests_total\{route="listTasks",status="200"[^}]*\} \d+/);
    expect(metrics).toContain('projmirror_realtime_connected 1');
    expect(metrics).toMatch(/projmirror_quota_remaining(\{[^}]*\})? \d+/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    // An item in conflict (put there with plain SQL: the pusher leaves such items alone) counts.
    const writer = new Database(file);
    writer
      .prepare(
        `INSERT INTO outbox (op, project_id, target_id, body, state)
         VALUES ('task.update', 'p_1', ?, '{"name":"Mine"}', 'conflict')`,
      )
      .run(task.id);
    writer.close();
    let counted = '';
    for (let tries = 0; tries < 100 && !counted.includes('state="conflict"} 1'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      counted = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    }
    expect(counted).toContain('projmirror_outbox_items{state="conflict"} 1');
    sim.realtime.refuseNext(1_000);
    sim.realtime.dropAll();
    let health = 200;
    for (let tries = 0; tries < 100 && health === 200; tries++) {
      health = (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(health).toBe(503);

    writeFileSync(config, JSON.stringify({ 'log-level': 'debug' }));
    daemon.child.kill('SIGHUP');
    const reloaded = await daemon.waitForLine(/SIGHUP: config reloaded/);
    expect(JSON.parse(reloaded)).toMatchObject({ level: 'info', file: config, logLevel: 'debug' });

    const push = await runCli([
      'push',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      join(dir, 'token'),
      '--db',
      file,
    ]);
    expect(push.code).toBe(2);
    expect(push.stderr).toMatch(/projmirror run \(pid \d+\) pushes this mirror's outbox/);

    const stopAt = Date.now();
    daemon.child.kill('SIGTERM');
    const ended = await daemon.ended;
    expect(Date.now() - stopAt).toBeLessThan(5_000);
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');
    expect(ended.stdout).toContain('daemon stopped');
    expect(ended.stdout).not.toContain(TOKEN);
  });

  it('stops within 5 s when SIGTERM comes during a slow initial sync', async () => {
    const sim = await startTestSimulator({
      projects: 4,
      tasks: 1200,
      tokens: [TOKEN],
      delayMs: 400,
    });
    const daemon = startCli(runArgs(sim).args);
    await daemon.waitForLine(/sync progress|project synced/);
    const stopAt = Date.now();
    daemon.child.kill('SIGTERM');
    const ended = await daemon.ended;
    expect(Date.now() - stopAt).toBeLessThan(5_000);
    expect(ended.code).toBe(0);
    expect(ended.stdout).not.toContain('daemon started');
  });

  it('exits 2 naming a bad cron expression, before any request', async () => {
    const sim = await startTestSimulator({ tokens: [TOKEN] });
    const run = startCli([...runArgs(sim).args, '--reconcile-cron', 'at noon']);
    const ended = await run.ended;
    expect(ended.code).toBe(2);
    expect(ended.stderr.trim()).toBe(
      'projmirror: --reconcile-cron "at noon" is not a valid cron expression',
    );
    expect(sim.requestLog.count()).toBe(0);
  });

  it('exits 2 naming a bad --max-staleness, before any request', async () => {
    const sim = await startTestSimulator({ tokens: [TOKEN] });
    for (const value of ['soon', '30s', '0m']) {
      const ended = await startCli([...runArgs(sim).args, '--max-staleness', value]).ended;
      expect(ended.code).toBe(2);
      expect(ended.stderr.trim()).toBe(
        `projmirror: --max-staleness "${value}" is not a duration of a minute or more (say 45m, 6h or 1d)`,
      );
    }
    expect(sim.requestLog.count()).toBe(0);
  });

  it('exits 2 naming a bad reconcile time zone, from the flag or the environment', async () => {
    const sim = await startTestSimulator({ tokens: [TOKEN] });
    const flag = await startCli([...runArgs(sim).args, '--reconcile-timezone', 'Mars/Olympus'])
      .ended;
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toBe(
      'projmirror: --reconcile-timezone "Mars/Olympus" is not a time zone (say Europe/Berlin)',
    );
    const env = await startCli(runArgs(sim).args, {
      env: { PROJMIRROR_RECONCILE_TIMEZONE: 'Europe/Nowhere' },
    }).ended;
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('"Europe/Nowhere" is not a time zone');
    expect(sim.requestLog.count()).toBe(0);
  });
});
