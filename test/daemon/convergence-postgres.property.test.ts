/**
 * Issue 15, "Proof": the convergence property of issue 10 (`convergence.property.test.ts`) on a
 * PostgreSQL mirror. The same random cases (seeded, shrinking) of service changes, outbox items,
 * faults, realtime drops, restarts and kills, over the same reading profiles, each on a fresh
 * schema of a real server this file starts: after quiet and at most one reconcile, every
 * mirrored table equals the service and every outbox item took effect exactly once.
 *
 * The daemons hold their projects by leases of `LEASE_MS` (real time). A killed daemon's leases
 * stay until they expire, so after a kill the harness waits, in real time, until the new daemon
 * holds them (`DaemonHost.handedOver`): each kill costs up to one lease time. Environment as for
 * the SQLite property: `PROJMIRROR_PROPERTY_RUNS` (default 24), `PROJMIRROR_PROPERTY_SEED`,
 * `PROJMIRROR_PROPERTY_BUDGET_MS`, `PROJMIRROR_PROPERTY_PATH` (replay: `npx vitest run <this
 * file> -t '<test name>'`).
 */
import { beforeAll, describe, it } from 'vitest';
import { READING_PROFILES } from '../../src/sim/index.js';
import { postgresMirrors, type MirrorSource } from './convergence/mirror.js';
import { check, PropertyBudget, propertySettings } from './convergence/property.js';
import { convergenceCase } from './convergence/steps.js';
import { startPostgres } from '../fixtures/postgres.js';

const DEFAULT_RUNS = 24;
const DEFAULT_SEED = 20_261_123;
/** Real time the file may spend (the bound: under a minute on 2 shared cores). */
const DEFAULT_BUDGET_MS = 50_000;
/** The daemons' lease time, in ms: the shortest `run --lease-ms` allows. */
const LEASE_MS = 3_000;

const settings = propertySettings({
  runs: DEFAULT_RUNS,
  seed: DEFAULT_SEED,
  budgetMs: DEFAULT_BUDGET_MS,
});
const runsPerProfile = Math.max(1, Math.ceil(settings.runs / READING_PROFILES.length));
let budget: PropertyBudget;
let mirrors: MirrorSource;

beforeAll(async () => {
  const server = await startPostgres();
  mirrors = postgresMirrors(await server.database(), LEASE_MS);
  // The server's start is not the properties' time.
  budget = new PropertyBudget(settings.budgetMs, READING_PROFILES.length);
});

describe('the daemon converges in every interleaving on a PostgreSQL mirror', () => {
  READING_PROFILES.forEach(([name, readings], index) => {
    it(
      `readings ${name}: after quiet and at most one reconcile the mirror equals the service`,
      () =>
        check(
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
        ),
      settings.testTimeoutMs,
    );
  });
});
