/**
 * Issue 34: changes announced while another connection holds the mirror's write lock past the
 * store's patience are not lost. The real daemon (realtime connected all along) against the real
 * simulator over real sockets, a real SQLite file, and a second connection on a thread of its own
 * holding `BEGIN IMMEDIATE`. Meanwhile the service changes tasks, announced with their record
 * (written by the event, which the store refuses) and without it (the daemon fetches the task,
 * then the store refuses the write), and creates and deletes a task. Within seconds of the
 * release, with no reconnect and no reconcile, the mirror equals the service.
 */
import { onTestFinished, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/domain/index.js';
import { DEFAULT_PAGE_SIZE } from '../../src/mirror/types.js';
import type { Simulator } from '../../src/sim/index.js';
import { tempDatabase } from '../fixtures/db.js';
import { LockHolder } from '../fixtures/lock-holder.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { mirrorDifferences } from './convergence/compare.js';
import { DaemonHost, STORE_BUSY_WAIT_MS } from './convergence/host.js';
import { ClockDriver } from './convergence/settle.js';

const TOKEN = 'glt_test_lost_while_locked';
/** Simulated time within which the start-up must have made the mirror equal. */
const START_UP_BOUND_MS = 60_000;
/** After the release, the mirror must equal the service within this (simulated): seconds. */
const AFTER_RELEASE_BOUND_MS = 30_000;
/** The service changes a task this often (simulated), as in the operator's trial. */
const CHANGE_EVERY_MS = 2_000;
/** Real time the test may take: the store's waits on the held lock are real. */
const TEST_TIMEOUT_MS = 60_000;

/** Runs `write` on the service with its events sent without their record (a bare event). */
function bare<T>(sim: Simulator, write: () => T): T {
  const includeData = sim.realtime.includeData;
  sim.realtime.includeData = false;
  try {
    return write();
  } finally {
    sim.realtime.includeData = includeData;
  }
}

describe('changes announced while another connection holds the write lock', () => {
  it(
    'reach the mirror within seconds of the release, realtime connected all along',
    async () => {
      const clock = new ManualClock(Date.UTC(2026, 10, 23, 9, 0, 0));
      const sim = await startTestSimulator({
        clock,
        projects: 2,
        tasks: [40, 30],
        tokens: [TOKEN],
      });
      const { db, file } = tempDatabase();
      const host = new DaemonHost(sim, clock, file, DEFAULT_PAGE_SIZE);
      onTestFinished(() => host.close());
      const version = () => Promise.resolve(db.pragma('data_version', { simple: true }) as number);
      const driver = new ClockDriver(sim, clock, host, version, Date.now() + TEST_TIMEOUT_MS);
      const differences = () => mirrorDifferences(db, sim.service);
      await host.start();
      await driver.drive(host.started, START_UP_BOUND_MS, 'the start-up');
      await driver.runUntil(
        async () => (await differences()).length === 0,
        clock.now() + START_UP_BOUND_MS,
      );
      expect(await differences()).toEqual([]);
      expect(sim.realtime.connectionCount).toBe(1);

      const holder = new LockHolder({ engine: 'sqlite', file });
      onTestFinished(() => holder.close());
      await holder.hold(TEST_TIMEOUT_MS);
      driver.outage = true;
      const { service } = sim;
      const p1 = service.listTasks('p_1');
      const p2 = service.listTasks('p_2');
      // p_1's changes come with their record, or are creates and deletes; p_2's come bare, so
      // only the task the daemon fetches tells it of them.
      const changes: Array<() => void> = [
        () => service.updateTask(p1[0]!.id, { progress: 40 }),
        () => bare(sim, () => service.updateTask(p2[0]!.id, { status: 'Done' })),
        () => service.createTask('p_1', { name: 'Created while the lock was held' }),
        () => bare(sim, () => service.updateTask(p2[1]!.id, { status: 'Done' })),
        () => service.deleteTask(p1[2]!.id),
        () => bare(sim, () => service.updateTask(p2[2]!.id, { status: 'Done' })),
        () => service.updateTask(p1[3]!.id, { progress: 70 }),
      ];
      for (const change of changes) {
        change();
        await driver.advance(CHANGE_EVERY_MS);
        // The store tries each unit for its patience (real time), then gives up on it.
        await sleep(STORE_BUSY_WAIT_MS * 2);
      }
      await sleep(STORE_BUSY_WAIT_MS * 3);
      expect(await differences()).not.toEqual([]);
      await holder.release();
      driver.outage = false;

      const released = clock.now();
      await driver.runUntil(
        async () => (await differences()).length === 0,
        released + AFTER_RELEASE_BOUND_MS,
      );
      expect(await differences()).toEqual([]);
      // Realtime stayed connected: no reconnect's catch-up reconcile hid a loss.
      expect(sim.requestLog.count({ route: 'realtime', status: 101 })).toBe(1);
      expect(clock.now() - released).toBeLessThanOrEqual(AFTER_RELEASE_BOUND_MS);
    },
    TEST_TIMEOUT_MS,
  );
});
