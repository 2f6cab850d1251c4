/**
 * Issue 15, "Proof": the convergence property of issue 10 (`convergence.property.test.ts`) on a
 * PostgreSQL mirror. The same random cases (seeded, shrinking) of service changes, outbox items,
 * faults, realtime drops, restarts and kills, held locks and stalled databases, over the same
 * reading profiles, each on a fresh schema of a real server this file starts: after quiet and
 * at most one reconcile, every mirrored table equals the service and every outbox item took
 * effect exactly once. The daemons reach the server through a TCP proxy of this file's: a
 * stalled database is that proxy no longer forwarding (a partition), then forwarding again; a
 * held lock is another connection's `LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE` (issue 23).
 *
 * The daemons hold their projects by leases of `LEASE_MS` (real time). A killed daemon's leases
 * stay until they expire, so after a kill the harness waits, in real time, until the new daemon
 * holds them (`DaemonHost.handedOver`): each kill costs up to one lease time. Environment as for
 * the SQLite property: `PROJMIRROR_PROPERTY_RUNS` (default 32), `PROJMIRROR_PROPERTY_SEED`,
 * `PROJMIRROR_PROPERTY_BUDGET_MS`, `PROJMIRROR_PROPERTY_PATH` (replay: `npx vitest run <this
 * file> -t '<test name>'`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READING_PROFILES } from '../../src/sim/index.js';
import { postgresMirrors, type MirrorSource } from './convergence/mirror.js';
import { check, PropertyBudget, propertySettings } from './convergence/property.js';
import { convergenceCase, lockedCase } from './convergence/steps.js';
import { startPostgres } from '../fixtures/postgres.js';
import { openTcpProxy } from '../fixtures/tcp-proxy.js';

/**
 * Four cases a reading: the lease bug of 2026-11-25 (a take-over skipped as held elsewhere)
 * showed first on a reading's fourth case.
 */
const DEFAULT_RUNS = 32;
const DEFAULT_SEED = 20_261_123;
/**
 * Real time the file may spend (issue 15's bound was under a minute on 2 shared cores; issue 23's
 * outages, each seconds of real time, and a store thread per daemon added about half a minute;
 * a fourth case a reading, about 15 s more).
 */
const DEFAULT_BUDGET_MS = 100_000;
/**
 * Cases, and their real time, of changes heard while the database is away (issue 34): a table
 * lock held past a statement or a partition, with events with and without data meanwhile.
 */
const LOCKED_RUNS = 8;
const LOCKED_BUDGET_MS = 60_000;
/** The daemons' lease time, in ms: the shortest `run --lease-ms` allows. */
const LEASE_MS = 3_000;

const settings = propertySettings({
  runs: DEFAULT_RUNS,
  seed: DEFAULT_SEED,
  budgetMs: DEFAULT_BUDGET_MS,
});
/** Cases, over the file's properties of convergence, that read a project over several pages. */
let severalPages = 0;
const runsPerProfile = Math.max(1, Math.ceil(settings.runs / READING_PROFILES.length));
let budget: PropertyBudget;
let mirrors: MirrorSource;
let closeProxy: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const server = await startPostgres();
  // The daemons reach the server through it; a stalled database is a partition of it.
  const proxy = await openTcpProxy(server.port);
  closeProxy = () => proxy.close();
  mirrors = postgresMirrors(await server.database(), LEASE_MS, proxy);
  // The server's start is not the properties' time.
  budget = new PropertyBudget(settings.budgetMs, READING_PROFILES.length);
});

afterAll(() => closeProxy?.());

describe('the daemon converges in every interleaving on a PostgreSQL mirror', () => {
  READING_PROFILES.forEach(([name, readings], index) => {
    it(
      `readings ${name}: after quiet and at most one reconcile the mirror equals the service`,
      async () => {
        const played = await check(
          {
            name: `postgres, readings ${name}`,
            arbitrary: convergenceCase,
            readings,
            runs: runsPerProfile,
            seed: settings.seed + index,
            verdict: (result) => result.problems,
            mirrors,
          },
          budget,
          settings,
        );
        severalPages += played.severalPages;
      },
      settings.testTimeoutMs,
    );
  });

  it(
    'changes heard while the database is away need no reconcile (issue 34)',
    () => {
      const bounded = Number.isFinite(settings.budgetMs);
      return check(
        {
          name: 'postgres, changes heard while the database is away',
          arbitrary: lockedCase,
          readings: {},
          runs: process.env['PROJMIRROR_PROPERTY_RUNS'] === undefined ? LOCKED_RUNS : settings.runs,
          seed: settings.seed,
          verdict: (result) => result.problems,
          mirrors,
          rule: 'unheard',
        },
        new PropertyBudget(bounded ? LOCKED_BUDGET_MS : Infinity, 1),
        settings,
      );
    },
    Number.isFinite(settings.budgetMs) ? LOCKED_BUDGET_MS + 75_000 : settings.testTimeoutMs,
  );

  it('read projects over several pages in some cases', () => {
    // The daemons read four tasks a page (`DAEMON_PAGE_SIZE`): a pass's several pages, written
    // several at once, played against every other step.
    expect(severalPages).toBeGreaterThan(0);
  });
});
