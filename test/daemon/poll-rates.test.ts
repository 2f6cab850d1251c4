/**
 * The poll plan by change rate, in the real daemon against the simulator on a fake clock: a
 * project edited every half hour is polled more often than quiet ones, never past the bound;
 * the estimates are kept in the mirror, and a daemon started again on it plans from them.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { gatherStatus } from '../../src/cli/status/gather.js';
import { systemClock } from '../../src/domain/index.js';
import { inlineStore } from '../../src/store/thread/inline.js';
import { renderStatus } from '../../src/cli/status/render.js';
import { createDaemon } from '../../src/daemon/compose.js';
import type { PagedProjectPlan } from '../../src/daemon/page-polls.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { openEngine } from '../../src/daemon/wiring.js';
import type { Simulator } from '../../src/sim/index.js';
import { singleToken } from '../../src/tokens/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { settle } from './fixtures.js';

const HOUR = 3_600_000;
const TOKEN = 'glt_test_daemon_poll_rates';
const logger = pino({ level: 'silent' });

/** A daemon polling only, on `db`, started (its start-up reconcile done). */
async function startDaemon(
  sim: Simulator,
  clock: FakeClock,
  db: ReturnType<typeof tempDatabase>['db'],
  maxStalenessMs?: number,
) {
  const engine = await openEngine(
    { baseUrl: new URL(sim.baseUrl), tokens: singleToken(sim.token) },
    { db, logger, clock },
  );
  const daemon = createDaemon({
    engine,
    logger,
    outboxIdleMs: 6 * HOUR,
    ...(maxStalenessMs === undefined ? {} : { maxStalenessMs }),
  });
  await daemon.start();
  return {
    daemon,
    stop: async () => {
      await daemon.stop();
      await engine.close();
    },
  };
}

/** Steps the clock wake-up to wake-up until `until`, renaming a task of p_1 every half hour. */
async function run(clock: FakeClock, sim: Simulator, until: number, edits: { n: number }) {
  let nextEdit = clock.now() + HOUR / 2;
  while (clock.now() < until) {
    if (clock.now() >= nextEdit) {
      const task = sim.service.listTasks('p_1')[edits.n % 10]!;
      sim.service.updateTask(task.id, { name: `edit ${edits.n}` });
      edits.n += 1;
      nextEdit += HOUR / 2;
    }
    const target = Math.min(clock.nextWakeAt ?? until, nextEdit, until);
    await clock.advance(Math.max(0, target - clock.now()));
    await settle(clock, sim, 2);
  }
}

describe('the poll plan by change rate', () => {
  it('polls the busy project more often, keeps the estimates, and plans from them after a restart', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 0, 0, 0));
    const sim = await startTestSimulator({
      clock,
      quota: 1_000,
      projects: 3,
      tasks: 20,
      tokens: [TOKEN],
    });
    const { db } = tempDatabase();
    const first = await startDaemon(sim, clock, db);
    const edits = { n: 0 };
    await run(clock, sim, clock.now() + 8 * HOUR, edits);
    const plan = first.daemon.plan();
    const byId = new Map(plan.projects.map((p) => [p.projectId, p]));
    const [busy, quiet] = [byId.get('p_1')!, byId.get('p_2')!];
    expect(busy.ratePerHour).toBeGreaterThan(4 * quiet.ratePerHour!);
    // Its page is polled on its own, more often than the quiet project's is (issue 35 part 3).
    const hot = (p: PagedProjectPlan) => p.hotPages?.[0]?.intervalMs ?? p.intervalMs;
    expect(hot(busy)).toBeLessThan(hot(quiet));
    expect(quiet.intervalMs).toBeLessThanOrEqual(plan.maxStalenessMs!);
    expect(plan.boundHeld).toBe(true);
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
    // The quiet project's parts are polled on their own, each within the bound (the service's
    // request log says when each was read), with no full pass at the bound.
    expect(quiet.partsPolled).toBe(true);
    const readTimes = (route: 'listTasks' | 'listMembers') =>
      sim.requestLog
        .filter({ route, where: (entry) => entry.path.startsWith('/v1/projects/p_2/') })
        .map((entry) => entry.time);
    for (const route of ['listTasks', 'listMembers'] as const) {
      const times = [...readTimes(route), clock.now()];
      expect(times.length).toBeGreaterThan(3);
      const gaps = times.slice(1).map((at, i) => at - times[i]!);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(plan.maxStalenessMs!);
    }

    // status and /metrics show each project's rate, interval and expected staleness.
    const status = await gatherStatus(inlineStore(db, { clock: systemClock }), clock.now());
    const shown = status.projects.find((p) => p.id === 'p_1')!;
    // As the plan was saved after the last pass, a little before this one was computed.
    expect(shown.changesPerHour! / busy.ratePerHour!).toBeGreaterThan(0.8);
    expect(shown.changesPerHour! / busy.ratePerHour!).toBeLessThan(1.25);
    expect(shown.pollIntervalSeconds! / (busy.intervalMs / 1000)).toBeGreaterThan(0.8);
    expect(shown.pollIntervalSeconds! / (busy.intervalMs / 1000)).toBeLessThan(1.25);
    // A change waits half the interval of what looks at it: its page's polls or the passes.
    expect(shown.expectedStalenessSeconds!).toBeLessThanOrEqual(shown.pollIntervalSeconds! / 2 + 1);
    expect(shown.hotPages?.[0]?.page).toBe(1);
    expect(renderStatus(status)).toMatch(/\(hot pages: p1 \d/);
    expect(status.plan?.boundHeld).toBe(true);
    expect(renderStatus(status)).toMatch(/polls by change rate: no project waits longer than \d/);
    expect(renderStatus(status)).toMatch(/changes\/h +polled every +expected staleness/);
    const metrics = new DaemonMetrics(first.daemon.metricsSources(), { version: 'test' });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/projmirror_project_changes_per_hour\{project="p_1"\} [\d.]+/);
    expect(text).toContain(
      `projmirror_project_poll_interval_seconds{project="p_2"} ${quiet.intervalMs / 1000}`,
    );
    expect(text).toContain(
      `projmirror_project_expected_staleness_seconds{project="p_2"} ${quiet.expectedStalenessMs / 1000}`,
    );
    // The busy project's hot page, and how many page polls turned into passes (edits only: none).
    expect(text).toContain(
      `projmirror_hot_page_poll_interval_seconds{project="p_1",page="1"} ${(busy as PagedProjectPlan).hotPages![0]!.intervalMs / 1000}`,
    );
    expect(text).toContain('projmirror_page_poll_escalations_total 0');
    await first.stop();

    const kept = db
      .prepare('SELECT item, looked_at FROM change_rates ORDER BY item')
      .raw()
      .all() as [string, string][];
    const items = kept.map(([item]) => item);
    expect(items.filter((item) => !item.includes('#p') && !item.endsWith('#lists'))).toEqual([
      'p_1',
      'p_1#unannounced',
      'p_2',
      'p_2#unannounced',
      'p_3',
      'p_3#unannounced',
    ]);
    // Each page and side list has its own estimate, kept too.
    expect(items).toContain('p_1#p1');
    expect(kept.every(([, at]) => Date.parse(at) <= clock.now())).toBe(true);

    // Started again with --max-staleness 2h: a bound tighter than the default.
    const second = await startDaemon(sim, clock, db, 2 * HOUR);
    try {
      const replanned = second.daemon.plan();
      expect(replanned.maxStalenessMs).toBe(2 * HOUR);
      expect(replanned.boundHeld).toBe(true);
      expect(Math.max(...replanned.projects.map((p) => p.intervalMs))).toBeLessThanOrEqual(
        2 * HOUR,
      );
      const again = new Map(replanned.projects.map((p) => [p.projectId, p]));
      // The start-up reconcile added one look to each; the estimates are those kept.
      expect(again.get('p_1')!.ratePerHour).toBeGreaterThan(4 * again.get('p_2')!.ratePerHour!);
      expect(again.get('p_1')!.ratePerHour! / busy.ratePerHour!).toBeGreaterThan(0.7);
      expect(again.get('p_1')!.ratePerHour! / busy.ratePerHour!).toBeLessThan(1.4);
    } finally {
      await second.stop();
    }
  });
});
