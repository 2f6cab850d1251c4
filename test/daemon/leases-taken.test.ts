/**
 * A project a heartbeat takes is the daemon's when the main thread hears of it. The leases live
 * on the store thread, beside their connection; the main thread reads a copy of what they hold
 * (`mine`, asked before every pass) and is told which projects a heartbeat took, which it passes
 * at once. Told before the copy, it found the project not its own and skipped the pass: after a
 * database outage longer than a lease, an event the store could not write was never recovered
 * (found by the PostgreSQL convergence property). A real server, a real store thread; another
 * daemon's lease is a row of another connection. The same holds for a unit that takes leases (a
 * listing, a claim): the main thread hears what the leases hold before the unit's answer.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MIN_LEASE_MS } from '../../src/cli/options.js';
import { openEngine } from '../../src/daemon/wiring.js';
import type { Leases } from '../../src/domain/index.js';
import { singleToken } from '../../src/tokens/index.js';
import { openConnection } from '../fixtures/connection.js';
import { startPostgres } from '../fixtures/postgres.js';
import type { Db } from '../../src/store/db.js';

/** The shortest lease `run --lease-ms` allows: a heartbeat a second. */
const LEASE_MS = MIN_LEASE_MS;
/**
 * The other daemon's lease runs out this long after it is written, in ms: past the listing that
 * must find it held, within a few heartbeats.
 */
const OTHER_LEASE_LEFT_MS = 2_000;

let url: string;
let admin: Db;
let stopServer: () => void;

beforeAll(async () => {
  const server = await startPostgres();
  stopServer = () => server.stop();
  url = await server.database();
  admin = await openConnection({ db: url }, 'write');
}, 60_000);

afterAll(() => {
  admin?.close();
  stopServer?.();
});

/**
 * Runs `work` with the leases of an engine on the test's database, its store on a thread of its
 * own (as `run` has it); the engine is closed after.
 */
async function withLeasesOnThread(work: (leases: Leases) => Promise<void>): Promise<void> {
  const engine = await openEngine(
    // No request is sent: the service's address is never reached.
    { baseUrl: new URL('http://127.0.0.1:9/v1'), tokens: singleToken('glt_test_leases_taken') },
    { db: url, logger: pino({ level: 'silent' }), leaseMs: LEASE_MS },
  );
  try {
    await work(engine.leases!);
  } finally {
    await engine.close();
  }
}

it('is the daemon’s on the main thread as soon as the unit that took it answers', async () => {
  // A daemon's listing takes the free leases, and its passes follow at once.
  await withLeasesOnThread(async (leases) => {
    expect(await leases.listed(['p_free'])).toEqual(['p_free']);
    expect(leases.mine('p_free')).toBe(true);
    expect(await leases.claim(['p_claimed'])).toEqual(['p_claimed']);
    expect(leases.mine('p_claimed')).toBe(true);
  });
}, 30_000);

it('is the daemon’s on the main thread when it hears the heartbeat took it', async () => {
  await withLeasesOnThread(async (leases) => {
    await admin
      .prepare(
        `INSERT INTO project_leases (project_id, daemon_id, acquired_at, expires_at)
         VALUES ('p_1', 'another-daemon', now(), now() + make_interval(secs => ? / 1000.0))`,
      )
      .run(OTHER_LEASE_LEFT_MS);
    const heard: Array<{ projects: string[]; mine: boolean[] }> = [];
    const taken = new Promise<void>((resolve) =>
      leases.onAcquired((projects) => {
        heard.push({ projects, mine: projects.map((id) => leases.mine(id)) });
        resolve();
      }),
    );
    expect(await leases.listed(['p_1'])).toEqual([]);
    expect(leases.mine('p_1')).toBe(false);
    await taken;
    expect(heard).toEqual([{ projects: ['p_1'], mine: [true] }]);
  });
}, 30_000);

it('is told to the main thread at every heartbeat, so that what waited for a lease goes on', async () => {
  // The daemon wakes its poll schedule on each: a project made due while its lease looked
  // lapsed (a heartbeat stalled) is passed once the lease is renewed, not at its next slot.
  await withLeasesOnThread(async (leases) => {
    expect(await leases.listed(['p_renewed'])).toEqual(['p_renewed']);
    const renewed = new Promise<boolean>((resolve) =>
      leases.onRenewed(() => resolve(leases.mine('p_renewed'))),
    );
    // A heartbeat every third of the lease.
    expect(await renewed).toBe(true);
  });
}, 30_000);
