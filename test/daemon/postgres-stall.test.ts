/**
 * The daemon never waits on its PostgreSQL database (issue 23): a real `projmirror run` whose
 * mirror is reached through a TCP proxy in the test. The proxy stops forwarding (a partition: no
 * reset, no packet) and later forwards again; then the server itself is restarted under the
 * daemon. /healthz answers every probe within a second (503 naming the database while it is cut
 * off, 200 after), the mirror equals the service after each, and SIGTERM during a partition
 * exits 0 within 5 s.
 */
import { expectQuickStop, probe, type Probe } from './store-outage.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { startTcpProxy } from '../fixtures/tcp-proxy.js';

const TOKEN = 'glt_test_postgres_stall_0123456789';
const CUT_MS = 15_000;

let server: PgServer;
let url: string;
let reader: pg.Client;

beforeAll(async () => {
  server = await startPostgres();
  url = await server.database();
}, 60_000);

afterAll(async () => {
  await reader?.end().catch(() => undefined);
});

/** Probes every 500 ms for `ms`, changing the service meanwhile; every answer. */
async function probeWhile(sim: Simulator, port: number, ms: number, label: string) {
  const probes: Probe[] = [];
  const since = Date.now();
  for (let n = 0; Date.now() - since < ms; n++) {
    const [task] = sim.service.listTasks('p_1');
    sim.service.updateTask(task!.id, { name: `${label} ${n}` });
    sim.service.createTask('p_2', { name: `${label} created ${n}` });
    probes.push(await probe(port));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return probes;
}

/** Waits for /healthz 200, then for the mirror (read directly, not through the proxy) to equal the service. */
async function expectRecovered(sim: Simulator, port: number): Promise<void> {
  let health = await probe(port);
  for (let tries = 0; tries < 150 && health.status !== 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    health = await probe(port);
  }
  expect(health).toMatchObject({ status: 200, body: { database: 'ok' } });
  const names = async (projectId: string) =>
    (
      await reader.query<{ name: string }>(
        'SELECT name FROM projmirror.tasks WHERE project_id = $1',
        [projectId],
      )
    ).rows
      .map((row) => row.name)
      .sort();
  const expected = (projectId: string) =>
    sim.service
      .listTasks(projectId)
      .map((task) => String(task.name))
      .sort();
  const deadline = Date.now() + 60_000;
  let same = false;
  while (!same && Date.now() < deadline) {
    same = true;
    for (const projectId of ['p_1', 'p_2']) {
      const held = await names(projectId).catch(() => []);
      if (JSON.stringify(held) !== JSON.stringify(expected(projectId))) same = false;
    }
    if (!same) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(same).toBe(true);
}

describe('the daemon on a PostgreSQL mirror that stops answering', () => {
  it('answers /healthz within a second through a partition and a server restart, converges, and stops on SIGTERM', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [60, 5], tokens: [TOKEN] });
    const target = new URL(url);
    const proxy = await startTcpProxy(Number(target.port));
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    const daemon = startCli(
      [
        ...['run', '--base-url', sim.baseUrl, '--token-file', join(dir, 'token')],
        ...['--db', viaProxy.href, '--realtime-url', sim.realtimeUrl, '--metrics-port', '0'],
      ],
      { timeoutMs: 240_000 },
    );
    const port = (JSON.parse(await daemon.waitForLine(/metrics listening/)) as { port: number })
      .port;
    await daemon.waitForLine(/daemon started/, 60_000);
    await daemon.waitForLine(/realtime: connected/);
    reader = new pg.Client({ connectionString: url });
    await reader.connect();
    expect((await probe(port)).status).toBe(200);

    proxy.partition();
    const cutOff = await probeWhile(sim, port, CUT_MS, 'renamed while cut off');
    proxy.heal();
    expect(Math.max(...cutOff.map((p) => p.ms))).toBeLessThan(1_000);
    const unhealthy = cutOff.filter((p) => p.status === 503);
    expect(unhealthy.length).toBeGreaterThan(0);
    expect(unhealthy.at(-1)!.body).toMatchObject({
      ok: false,
      database: expect.stringMatching(/^no unit of work completed for \d+ s$/),
    });
    await expectRecovered(sim, port);

    // The server restarts under the daemon: every connection ends; it reconnects on its own.
    await reader.end();
    server.restart();
    reader = new pg.Client({ connectionString: url });
    await reader.connect();
    const [task] = sim.service.listTasks('p_2');
    sim.service.updateTask(task!.id, { name: 'renamed after the restart' });
    const restarted = await probeWhile(sim, port, 3_000, 'renamed after the restart');
    expect(Math.max(...restarted.map((p) => p.ms))).toBeLessThan(1_000);
    await expectRecovered(sim, port);

    // SIGTERM in the middle of a partition: exit 0 within 5 s.
    proxy.partition();
    await expectQuickStop(daemon, () =>
      sim.service.createTask('p_1', { name: 'created before SIGTERM' }),
    );
  }, 240_000);
});
