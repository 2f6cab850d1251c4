/**
 * Issue 37, "Done when": consumers of the change feed read it at random points of the
 * convergence property's cases (seeded, shrinking: service changes announced or not, passes,
 * events, outbox answers, restarts, kills, deletes, held locks), while the real daemon writes the
 * mirror; replaying what each read onto its starting copy gives exactly the mirror, and no
 * consumer sees a `seq` twice or misses one (`convergence/feed.ts`). On SQLite, then on a
 * PostgreSQL mirror of a real server. Environment: `PROJMIRROR_PROPERTY_RUNS` (cases per engine,
 * default 10), `PROJMIRROR_PROPERTY_SEED`, `PROJMIRROR_PROPERTY_BUDGET_MS` (real time for the
 * file, default 36 s), `PROJMIRROR_PROPERTY_PATH` (replay a counterexample).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playCase } from './convergence/driver.js';
import { feedObserver, feedPlan } from './convergence/feed.js';
import { postgresMirrors, sqliteMirrors, type MirrorSource } from './convergence/mirror.js';
import { PropertyBudget, propertySettings } from './convergence/property.js';
import { convergenceCase, MAX_STEPS } from './convergence/steps.js';
import { startPostgres } from '../fixtures/postgres.js';
import { openTcpProxy } from '../fixtures/tcp-proxy.js';

const settings = propertySettings({ runs: 10, seed: 20_261_128, budgetMs: 36_000 });
const budget = new PropertyBudget(settings.budgetMs, 2);
/** The daemons' lease time on PostgreSQL, in ms: the shortest `run --lease-ms` allows. */
const LEASE_MS = 3_000;

const cases = fc.record({ testCase: convergenceCase, plan: feedPlan(MAX_STEPS) });

/** Plays the property on `mirrors`; returns how many changes the consumers read in all. */
async function feedProperty(name: string, mirrors: MirrorSource, seed: number): Promise<number> {
  const deadline = budget.nextShare();
  let played = 0;
  let during = 0;
  let atEnd = 0;
  const property = fc.asyncProperty(cases, async ({ testCase, plan }) => {
    if (Date.now() > deadline) return; // past the budget (often while shrinking): unplayed
    played += 1;
    const observer = feedObserver(plan, testCase.steps.length);
    const result = await playCase(testCase, {}, mirrors, 'unannounced', observer);
    during += observer.reads().during;
    atEnd += observer.reads().atEnd;
    if (result.problems.length > 0) {
      throw new Error([...result.problems, 'what happened:', ...result.trace].join('\n'));
    }
  });
  const replay =
    settings.replayPath === undefined ? {} : { seed: settings.seed, path: settings.replayPath };
  await fc.assert(property, { seed, numRuns: settings.runs, ...replay });
  console.log(
    `${name}: ${played} cases played; the consumers read ${during} changes at random points, ${atEnd} at the end`,
  );
  expect(played).toBeGreaterThan(0);
  return during;
}

describe('consumers of the change feed', () => {
  it(
    'SQLite: replaying what each read onto its starting copy gives the mirror, every seq once',
    async () => {
      expect(await feedProperty('sqlite', sqliteMirrors, settings.seed)).toBeGreaterThan(0);
    },
    settings.testTimeoutMs,
  );

  describe('PostgreSQL', () => {
    let mirrors: MirrorSource;
    let closeProxy: () => Promise<void> = async () => {};
    beforeAll(async () => {
      const server = await startPostgres();
      const url = await server.database();
      const proxy = await openTcpProxy(server.port);
      closeProxy = () => proxy.close();
      mirrors = postgresMirrors(url, LEASE_MS, proxy);
    }, 60_000);
    afterAll(async () => closeProxy());

    it(
      'the same, on a PostgreSQL mirror',
      async () => {
        expect(await feedProperty('postgres', mirrors, settings.seed + 1)).toBeGreaterThan(0);
      },
      settings.testTimeoutMs,
    );
  });
});
