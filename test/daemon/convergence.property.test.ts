/**
 * Issue 10, "Proof": the daemon converges in every interleaving. Random sequences (seeded,
 * shrinking) of service-side changes of every kind, announced with data, without, or not at
 * all; changes landing mid-pass; outbox items; HTTP faults; realtime drops; restarts and kills;
 * bad events and hint floods; and (issue 23) another connection holding the mirror's write lock
 * while changes, events and items arrive, within the store's patience or past it (on SQLite a
 * stalled database is such a lock: see `convergence/outage.ts`), followed by quiet. The daemon
 * runs as `run` runs it, its mirror on a store thread. After quiet and at most one reconcile,
 * every mirrored table equals the service and every outbox item took effect exactly once (see
 * `convergence/driver.ts` for the verdict, `convergence/steps.ts` for the operations).
 *
 * Each simulator reading profile gets its share of the runs; a second property checks that a
 * flood of hints costs at most two reconciles (issue 10, failure 5); a third (issue 34) plays
 * changes announced with and without their record while the lock is held, realtime connected
 * all along, and allows no reconcile: the daemon heard of every change. Environment:
 * `PROJMIRROR_PROPERTY_RUNS` (cases in all, default 100), `PROJMIRROR_PROPERTY_SEED` (default
 * fixed), `PROJMIRROR_PROPERTY_BUDGET_MS` (real time for the file, shrinking included; cases
 * past it pass without running and are counted in the log). A failure prints its seed and path:
 * `PROJMIRROR_PROPERTY_SEED=<seed> PROJMIRROR_PROPERTY_PATH=<path> npx vitest run <this file>
 * -t '<test name>'` replays its counterexample; with `PROJMIRROR_PROPERTY_LOG=<file>` the daemons
 * append their log lines to that file (debug level). The daemons read four tasks a page
 * (`DAEMON_PAGE_SIZE`), so that passes span several pages.
 */
import { describe, expect, it } from 'vitest';
import { READING_PROFILES } from '../../src/sim/index.js';
import { FLOOD_RECONCILES_ALLOWED } from './convergence/perform.js';
import { check, PropertyBudget, propertySettings } from './convergence/property.js';
import { convergenceCase, floodCase, lockedCase } from './convergence/steps.js';

const DEFAULT_RUNS = 100;
const DEFAULT_SEED = 20_261_123;
/** Cases of the flood check (default readings only: floods do not depend on a reading). */
const FLOOD_RUNS = 8;
/**
 * Cases of changes heard while the database is away (default readings), and their own real
 * time (they run last, past the file's shared budget): before the fix of issue 34, the default seed's eighth case lost a change.
 */
const LOCKED_RUNS = 16;
const LOCKED_BUDGET_MS = 35_000;
/** Real time the file may spend in CI (issue: under two minutes on 2 shared cores). */
const DEFAULT_BUDGET_MS = 90_000;

const settings = propertySettings({
  runs: DEFAULT_RUNS,
  seed: DEFAULT_SEED,
  budgetMs: DEFAULT_BUDGET_MS,
});
const { seed, testTimeoutMs } = settings;
/** Cases, over the file's properties of convergence, that read a project over several pages. */
let severalPages = 0;
const runsPerProfile = Math.max(1, Math.ceil(settings.runs / READING_PROFILES.length));
/** Every property of the file shares the budget. */
const budget = new PropertyBudget(settings.budgetMs, READING_PROFILES.length + 1);
/** Unbounded when runs were asked for, like the file's budget. */
const lockedBudgetMs = Number.isFinite(settings.budgetMs) ? LOCKED_BUDGET_MS : Infinity;
const lockedTimeoutMs = Number.isFinite(settings.budgetMs)
  ? LOCKED_BUDGET_MS + 75_000
  : testTimeoutMs;

describe('the daemon converges in every interleaving', () => {
  READING_PROFILES.forEach(([name, readings], index) => {
    it(
      `readings ${name}: after quiet and at most one reconcile the mirror equals the service`,
      async () => {
        const played = await check(
          {
            name: `readings ${name}`,
            arbitrary: convergenceCase,
            readings,
            runs: runsPerProfile,
            seed: seed + index,
            verdict: (result) => result.problems,
          },
          budget,
          settings,
        );
        severalPages += played.severalPages;
      },
      testTimeoutMs,
    );
  });

  it('read projects over several pages in some cases', () => {
    // The daemons read four tasks a page (`DAEMON_PAGE_SIZE`): a pass's several pages, written
    // several at once, played against every other step.
    expect(severalPages).toBeGreaterThan(0);
  });
});

describe('the daemon within its budget', () => {
  it(
    `a flood of hints costs at most ${FLOOD_RECONCILES_ALLOWED} reconciles of every project`,
    () =>
      check(
        {
          name: 'hint floods',
          arbitrary: floodCase,
          readings: {},
          runs: FLOOD_RUNS,
          seed,
          verdict: (result) => result.budgetProblems,
        },
        budget,
        settings,
      ),
    testTimeoutMs,
  );
});

describe('changes heard while the database is away (issue 34)', () => {
  it(
    'with realtime connected and every change announced, no reconcile is needed',
    () =>
      check(
        {
          name: 'changes heard while the database is away',
          arbitrary: lockedCase,
          readings: {},
          runs: process.env['PROJMIRROR_PROPERTY_RUNS'] === undefined ? LOCKED_RUNS : settings.runs,
          seed,
          verdict: (result) => result.problems,
          rule: 'unheard',
        },
        new PropertyBudget(lockedBudgetMs, 1),
        settings,
      ),
    lockedTimeoutMs,
  );
});
