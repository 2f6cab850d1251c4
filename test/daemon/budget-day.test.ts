import { describe, expect, it } from 'vitest';
import { FakeClock } from '../fixtures/clock.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { settle, startTestDaemon } from './fixtures.js';
import { MAX_PAGE_SIZE, PartReads, type Simulator } from '../../src/sim/index.js';
import type { Daemon } from '../../src/daemon/daemon.js';

const HOUR = 3_600_000;
const TOKEN = 'glt_test_daemon_budget';

/** Each project's tasks, as its last consistent pass counted them. */
function taskCounts(db: import('better-sqlite3').Database): Map<string, number> {
  const rows = db.prepare('SELECT project_id, total_count FROM sync_state').raw().all() as [
    string,
    number,
  ][];
  return new Map(rows);
}

/**
 * Steps the fake clock from one wake-up to the next until `until`, calling `onHour` every hour.
 * Returns the worst staleness seen: for each project, the time since the oldest last read of
 * any of its parts (each task page, its record, each side list: the simulator's request log
 * says), as a ratio to the bound the plan gave when that read was made (or gives now, if it has
 * since lengthened).
 */
async function simulateDay(
  clock: FakeClock,
  sim: Simulator,
  daemon: Daemon,
  db: import('better-sqlite3').Database,
  until: number,
  onHour: () => void = () => {},
) {
  let nextChange = clock.now() + HOUR;
  let worstRatio = 0;
  const promised = new Map<string, { at: number; boundMs: number }>();
  const reads = new PartReads(
    sim.requestLog,
    sim.service.listProjects().map((project) => project.id),
  );
  while (clock.now() < until) {
    if (clock.now() >= nextChange) {
      onHour();
      nextChange += HOUR;
    }
    const target = Math.min(clock.nextWakeAt ?? until, nextChange, until);
    await clock.advance(Math.max(0, target - clock.now()));
    await settle(clock, sim, 2);
    reads.update();
    for (const [projectId, tasks] of taskCounts(db)) {
      const at = reads.oldest(projectId, tasks, MAX_PAGE_SIZE);
      if (promised.get(projectId)?.at !== at) {
        promised.set(projectId, { at, boundMs: daemon.plan().stalenessBoundMs });
      }
      // The plan may lengthen the interval later (less quota left): either bound holds.
      const boundMs = Math.max(promised.get(projectId)!.boundMs, daemon.plan().stalenessBoundMs);
      worstRatio = Math.max(worstRatio, (clock.now() - at) / boundMs);
    }
  }
  return worstRatio;
}

describe('daemon budget over a simulated day', () => {
  it('stays within a quota of 200 with no 429 and every project within its staleness bound', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 0, 0, 0));
    const sim = await startTestSimulator({
      clock,
      quota: 200,
      projects: 2,
      tasks: [600, 40],
      tokens: [TOKEN],
    });
    const { daemon, db } = await startTestDaemon(sim, {
      clock,
      realtime: false,
      daemon: { outboxIdleMs: 6 * HOUR },
    });
    const changed: string[] = [];
    const worst = await simulateDay(
      clock,
      sim,
      daemon,
      db,
      clock.now() + 24 * HOUR - 60_000,
      () => {
        for (const projectId of ['p_1', 'p_2']) {
          const task = sim.service.listTasks(projectId)[changed.length % 40]!;
          sim.service.updateTask(task.id, { name: `changed ${changed.length}` });
          changed.push(task.id);
        }
      },
    );
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
    expect(sim.requestLog.count()).toBeLessThanOrEqual(200);
    expect(sim.requestLog.count()).toBeGreaterThan(100);
    expect(worst).toBeLessThanOrEqual(1);
    expect(changed.length).toBeGreaterThan(40);
  });

  it('slows its polls down when another client spends the same token', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 0, 0, 0));
    const sim = await startTestSimulator({
      clock,
      quota: 1000,
      projects: 1,
      tasks: 10,
      tokens: [TOKEN],
    });
    const { daemon, db } = await startTestDaemon(sim, {
      clock,
      realtime: false,
      daemon: { outboxIdleMs: 6 * HOUR, minPollIntervalMs: 60_000 },
    });
    await simulateDay(clock, sim, daemon, db, clock.now() + 3 * HOUR);
    const alone = daemon.plan().intervalMs;
    const other = async () => {
      const response = await fetch(`${sim.baseUrl}/projects`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      await response.arrayBuffer();
    };
    await simulateDay(clock, sim, daemon, db, clock.now() + 3 * HOUR, () => {
      void Promise.all(Array.from({ length: 40 }, other));
    });
    const shared = daemon.plan().intervalMs;
    expect(shared).toBeGreaterThan(alone * 1.2);
    expect(sim.requestLog.count({ status: 429 })).toBe(0);
  });
});
