/**
 * Benchmark 6, the daemon's side: the real daemon (plan, poll scheduler, realtime listener) over
 * one simulated day of the workload, the manual clock stepped from one wake-up or change to the
 * next, with a short real-time wait at each step for sockets and the database to settle.
 */
import { createBenchDaemon } from './daemon.js';
import {
  applyDueChanges,
  DAY_MS,
  DAY_START,
  startDayWorkload,
  worstStaleness,
  type DayWorkload,
} from './day-workload.js';
import { pause, since } from './harness.js';

/** The outbox is empty all day: check it rarely, so that its idle wake-ups do not add steps. */
const OUTBOX_IDLE_MS = 6 * 3_600_000;
/** Consecutive quiet ticks (no new request) that count as settled. */
const QUIET_TICKS = 3;
const TICK_MS = 1;
/** A step that does not settle within this real time is a bug of the benchmark or the daemon. */
const SETTLE_TIMEOUT_MS = 60_000;

/** What one approach did over the day. */
export interface DayResult {
  /** Requests answered within the quota day (429s included), realtime upgrades excluded. */
  requests: number;
  rateLimited: number;
  /** The worst delay from a change on the service to its appearance in the mirror. */
  worstStalenessMs: number;
  /** Changes never seen by the end of the day. */
  unseen: number;
  /** Realtime drops (each costs a reconcile). */
  disconnects: number;
  /** Real time the simulation took. */
  realMs: number;
}

/** Runs the daemon through the day, with or without its realtime channel. */
export async function daemonDay(realtime: boolean): Promise<DayResult> {
  const started = performance.now();
  const workload = await startDayWorkload();
  const bench = await createBenchDaemon(workload.sim, {
    clock: workload.clock,
    realtime,
    daemon: { outboxIdleMs: OUTBOX_IDLE_MS },
  });
  // Idle, the daemon sleeps in the poll scheduler and the outbox pusher, and in the heartbeat;
  // once started, also in the daily schedule (on the daemon's clock since issue 10).
  const baseSleepers = realtime ? 3 : 2;
  let running = false;
  const nameOf = bench.mirror.db.prepare('SELECT name FROM tasks WHERE id = ?').pluck();
  const end = DAY_START + DAY_MS;
  try {
    let startFailure: unknown;
    bench.daemon.start().then(
      () => (running = true),
      (error: unknown) => (startFailure = error),
    );
    const next = { index: 0 };
    while (workload.clock.now() < end) {
      await settle(workload, baseSleepers + (running ? 1 : 0));
      if (startFailure !== undefined) throw startFailure;
      noteLanded(workload, next.index, (id) => nameOf.get(id));
      const change = workload.changes[next.index];
      const wake = workload.clock.nextWakeAt ?? end;
      workload.clock.stepTo(Math.min(wake, change?.at ?? end, end));
      applyDueChanges(workload, next);
    }
    await settle(workload, baseSleepers + (running ? 1 : 0));
    noteLanded(workload, next.index, (id) => nameOf.get(id));
    return {
      ...countRequests(workload, end),
      worstStalenessMs: worstStaleness(workload.changes, end),
      unseen: workload.changes.filter((change) => change.landedAt === undefined).length,
      disconnects: bench.disconnects(),
      realMs: since(started),
    };
  } finally {
    await bench.stop();
    await workload.sim.close();
  }
}

/** Requests and 429s the simulator answered before `end`, realtime upgrades aside. */
export function countRequests(workload: Pick<DayWorkload, 'sim'>, end: number) {
  const counted = (extra: (status: number) => boolean) =>
    workload.sim.requestLog.count({
      where: (entry) => entry.route !== 'realtime' && entry.time < end && extra(entry.status),
    });
  return { requests: counted(() => true), rateLimited: counted((status) => status === 429) };
}

/** Marks the applied changes the mirror now shows, at the clock's time. */
function noteLanded(
  workload: DayWorkload,
  applied: number,
  nameOf: (taskId: string) => unknown,
): void {
  for (const change of workload.changes.slice(0, applied)) {
    if (change.landedAt === undefined && nameOf(change.taskId) === change.name) {
      change.landedAt = workload.clock.now();
    }
  }
}

/**
 * Waits (real time) until no request has arrived for a few ticks and the daemon sleeps where it
 * sleeps when idle (or more: the governor waiting for a window counts too).
 */
export async function settle(
  workload: Pick<DayWorkload, 'clock' | 'sim'>,
  idleSleepers: number,
): Promise<void> {
  const start = performance.now();
  let last = -1;
  let quiet = 0;
  while (quiet < QUIET_TICKS) {
    await pause(TICK_MS);
    const count = workload.sim.requestLog.count();
    const asleep = workload.clock.pendingSleeps >= idleSleepers;
    quiet = count === last && asleep ? quiet + 1 : 0;
    last = count;
    if (since(start) > SETTLE_TIMEOUT_MS) {
      throw new Error(
        `the daemon did not settle at ${new Date(workload.clock.now()).toISOString()}`,
      );
    }
  }
}
