/**
 * The daemon never waits on its database (issue 23): a real `projmirror run` against the real
 * simulator, and a second connection to its SQLite file holding the write lock (as a script's
 * `BEGIN IMMEDIATE` would) for 30 s while events arrive. /healthz answers every probe within a
 * second (503 naming the database while it is cut off, 200 after), the mirror equals the service
 * once the lock is let go, and SIGTERM during a hold exits 0 within 5 s with the file intact.
 */
import { expectQuickStop, probe, type Probe } from './store-outage.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { checkIntegrity, differences } from '../reliability/helpers.js';

const TOKEN = 'glt_test_store_stall_0123456789';
const HOLD_MS = 30_000;

describe('the daemon beside a connection holding the SQLite write lock', () => {
  it('answers /healthz within a second throughout, 503 while cut off and 200 after, and converges', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [60, 5], tokens: [TOKEN] });
    const dir = tempDir();
    const file = join(dir, 'm.sqlite');
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    const daemon = startCli(
      [
        ...['run', '--base-url', sim.baseUrl, '--token-file', join(dir, 'token')],
        ...['--db', file, '--realtime-url', sim.realtimeUrl, '--metrics-port', '0'],
      ],
      { timeoutMs: 120_000 },
    );
    const port = (JSON.parse(await daemon.waitForLine(/metrics listening/)) as { port: number })
      .port;
    await daemon.waitForLine(/daemon started/);
    await daemon.waitForLine(/realtime: connected/);
    expect((await probe(port)).status).toBe(200);

    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const probes: Array<Probe & { heldMs: number }> = [];
    const heldSince = Date.now();
    let changes = 0;
    while (Date.now() - heldSince < HOLD_MS) {
      const [task] = sim.service.listTasks('p_1');
      sim.service.updateTask(task!.id, { name: `renamed while locked ${changes}` });
      sim.service.createTask('p_2', { name: `created while locked ${changes}` });
      changes += 1;
      const heldMs = Date.now() - heldSince;
      probes.push({ ...(await probe(port)), heldMs });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    holder.exec('COMMIT');

    expect(Math.max(...probes.map((p) => p.ms))).toBeLessThan(1_000);
    // Cut off for good once the bound (10 s) and a probe's wait (5 s) have passed: every later
    // answer is 503, reads completing meanwhile (WAL) notwithstanding.
    const late = probes.filter((p) => p.heldMs > 16_000);
    expect(late.length).toBeGreaterThan(10);
    expect(late.map((p) => p.status)).toEqual(late.map(() => 503));
    const cutOff = probes.filter((p) => p.status === 503);
    expect(cutOff[0]!.body).toMatchObject({
      ok: false,
      database: expect.stringMatching(/^no unit of work completed for \d+ s$/),
    });
    // Healthy again without a restart, and every change made while locked is in the mirror.
    let health = await probe(port);
    for (let tries = 0; tries < 100 && health.status !== 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      health = await probe(port);
    }
    expect(health).toMatchObject({ status: 200, body: { database: 'ok' } });
    const reader = new Database(file, { readonly: true });
    try {
      let left: string[] = differences(reader, sim);
      const deadline = Date.now() + 30_000;
      while (left.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        left = differences(reader, sim);
      }
      expect(left).toEqual([]);
    } finally {
      reader.close();
    }

    // SIGTERM while the lock is held again: exit 0 within 5 s, nothing half-written.
    holder.exec('BEGIN IMMEDIATE');
    await expectQuickStop(daemon, () =>
      sim.service.createTask('p_1', { name: 'created before SIGTERM' }),
    );
    holder.exec('COMMIT');
    holder.close();
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  }, 180_000);
});
