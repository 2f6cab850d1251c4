/**
 * Benchmark 10, the daemon's side: the real daemon (plan, poll scheduler, governor, store thread)
 * polling only, through one token, against the simulator at the spec's limits on a manual clock,
 * over one seeded skewed day (`skewed-workload.ts`): renames, creates, deletes and new resources
 * made on the simulator at their instants, each change's staleness the simulated time until the
 * mirror shows it. The mirror is synced cold just before the quota day starts.
 */
import { ManualClock } from '../src/domain/index.js';
import { PartReads, startSimulator, type Simulator } from '../src/sim/index.js';
import { createBenchDaemon } from './daemon.js';
import { settle } from './day-daemon.js';
import { pause, since } from './harness.js';
import type { ModelOutcome } from './poll-model.js';
import { DAY_MS, PAGE_TASKS, type ModelDay, type ModelChange } from './skewed-workload.js';

const TOKEN = 'glt_bench_skewed_day_token';
/** The cold sync runs this long before the quota day (about 560 requests at 60 a minute). */
const WARM_UP_MS = 20 * 60_000;
/** The outbox is empty all day: check it rarely. */
const OUTBOX_IDLE_MS = 6 * 3_600_000;
/** Idle, the daemon sleeps in the poll scheduler, the outbox pusher and the daily schedule. */
const IDLE_SLEEPERS = 3;

/** A change made on the simulator, and how the mirror shows it. */
interface Made {
  change: ModelChange;
  /** True once the mirror shows it. */
  landed: () => boolean;
  landedAt?: number;
}

/** What the daemon did over the day, as the model reports it, and the real time it took. */
export interface DaemonDayOutcome extends ModelOutcome {
  rateLimited: number;
  /** Requests in each hour of the day. */
  hourly: number[];
  realMs: number;
}

/** Runs the daemon over `day`, polling by change rate or (`byRate` false) every project alike. */
export async function skewedDaemonDay(day: ModelDay, byRate: boolean): Promise<DaemonDayOutcome> {
  return (await skewedDaemonDays([day], byRate))[0]!;
}

/**
 * Runs one daemon over consecutive `days` (the same projects; the mirror, its estimates and the
 * quota carried from one day to the next, as a daemon left running); each day's outcome.
 */
export async function skewedDaemonDays(
  days: readonly ModelDay[],
  byRate: boolean,
): Promise<DaemonDayOutcome[]> {
  const first = days[0]!;
  const clock = new ManualClock(first.start - WARM_UP_MS);
  const sim = await startSimulator({
    clock,
    seed: 10,
    projects: first.projects.length,
    tasks: first.projects.map((p) => p.tasks),
    tokens: [TOKEN],
    dayEpochMs: first.start,
  });
  const bench = await createBenchDaemon(sim, {
    clock,
    realtime: false,
    daemon: { outboxIdleMs: OUTBOX_IDLE_MS, pollByRate: byRate },
  });
  const workload = { clock, sim };
  const db = bench.mirror.db;
  const taskName = db.prepare('SELECT name FROM tasks WHERE id = ?').pluck();
  const totals = db.prepare('SELECT project_id, total_count FROM sync_state').raw();
  const looks = new PartReads(
    sim.requestLog,
    sim.service.listProjects().map((project) => project.id),
  );
  const resourceName = db.prepare('SELECT name FROM resources WHERE id = ?').pluck();
  const ids = sim.service.listProjects().map((project) => project.id);
  const outcomes: DaemonDayOutcome[] = [];
  let dayBound: number | undefined;
  let running = false;
  let failure: unknown;
  try {
    bench.daemon.start().then(
      () => (running = true),
      (error: unknown) => (failure = error),
    );
    for (const [n, day] of days.entries()) {
      const started = performance.now();
      const end = day.start + DAY_MS;
      let worstGapOverBound = -Infinity;
      /**
       * The longest a part of a project (a page of its tasks, or its side lists: get project
       * and the three lists) went unread, as the simulator's request log shows, past the plan's
       * bound and its project's poll length (a pass reads its first page that long before its
       * last).
       */
      const noteGaps = () => {
        if (clock.now() < day.start) return;
        const plan = bench.daemon.plan();
        const cost = new Map(plan.projects.map((p) => [p.projectId, p.pollCost]));
        // The day's bound: the default is reckoned over a whole quota day and does not move,
        // but a plan that has spent the day's polls is an even plan without one.
        dayBound = plan.maxStalenessMs ?? dayBound ?? plan.intervalMs;
        const bound = dayBound;
        looks.update();
        for (const [id, total] of totals.all() as [string, number][]) {
          const since = clock.now() - Math.max(day.start, looks.oldest(id, total, PAGE_TASKS));
          const over = since - bound - (cost.get(id) ?? 0) * 1_000;
          worstGapOverBound = Math.max(worstGapOverBound, over);
        }
      };
      const made: Made[] = [];
      let next = 0;
      while (clock.now() < end) {
        await settle(workload, running ? IDLE_SLEEPERS : IDLE_SLEEPERS - 1);
        if (failure !== undefined) throw failure;
        for (const m of made) if (m.landedAt === undefined && m.landed()) m.landedAt = clock.now();
        noteGaps();
        const change = day.changes[next];
        clock.stepTo(Math.min(clock.nextWakeAt ?? end, change?.at ?? end, end));
        // Before the woken poll runs: the wait its project had.
        noteGaps();
        while (day.changes[next] !== undefined && day.changes[next]!.at <= clock.now()) {
          const c = day.changes[next]!;
          // Named apart from the days before's changes, so that each day's land on their own.
          const name = n === 0 ? `change ${next}` : `change ${n}.${next}`;
          made.push(make(sim, ids[c.project]!, c, next, name, { taskName, resourceName }));
          next += 1;
        }
        await pause(0);
      }
      await settle(workload, IDLE_SLEEPERS);
      for (const m of made) if (m.landedAt === undefined && m.landed()) m.landedAt = clock.now();
      outcomes.push({ ...outcome(day, made, sim, end, started), worstGapOverBound });
    }
    return outcomes;
  } finally {
    await bench.stop();
    await sim.close();
  }
}

/** Makes `change` on the simulator; the test of whether the mirror shows it. */
function make(
  sim: Simulator,
  projectId: string,
  change: ModelChange,
  n: number,
  name: string,
  mirror: {
    taskName: { get(id: string): unknown };
    resourceName: { get(id: string): unknown };
  },
): Made {
  if (change.kind === 'side') {
    const resource = sim.service.createResource(projectId, { name });
    return { change, landed: () => mirror.resourceName.get(resource.id) === name };
  }
  if (change.kind === 'create') {
    const task = sim.service.createTask(projectId, { name });
    return { change, landed: () => mirror.taskName.get(task.id) === name };
  }
  const tasks = sim.service.listTasks(projectId);
  const first = Math.min(change.page * PAGE_TASKS, tasks.length - 1);
  const last = Math.min(first + PAGE_TASKS, tasks.length) - 1;
  const task = tasks[first + ((n * 7919) % Math.max(1, last - first + 1))]!;
  if (change.kind === 'delete') {
    sim.service.deleteTask(task.id);
    return { change, landed: () => mirror.taskName.get(task.id) === undefined };
  }
  sim.service.updateTask(task.id, { name });
  return { change, landed: () => mirror.taskName.get(task.id) === name };
}

function outcome(
  day: ModelDay,
  made: readonly Made[],
  sim: Simulator,
  end: number,
  started: number,
): DaemonDayOutcome {
  const waits = made.map((m) => (m.landedAt ?? end) - m.change.at).sort((a, b) => a - b);
  const inDay = (extra: (status: number) => boolean) =>
    sim.requestLog.count({
      where: (e) =>
        e.route !== 'realtime' && e.time >= day.start && e.time < end && extra(e.status),
    });
  return {
    requests: inDay(() => true),
    rateLimited: inDay((status) => status === 429),
    hourly: Array.from({ length: 24 }, (_, hour) =>
      sim.requestLog.count({
        where: (e) =>
          e.route !== 'realtime' &&
          e.time >= day.start + hour * 3_600_000 &&
          e.time < day.start + (hour + 1) * 3_600_000,
      }),
    ),
    meanStalenessMs: waits.reduce((a, b) => a + b, 0) / Math.max(1, waits.length),
    p95StalenessMs: waits[Math.min(waits.length - 1, Math.floor(0.95 * waits.length))] ?? 0,
    unseen: made.filter((m) => m.landedAt === undefined).length,
    worstGapOverBound: Number.NaN,
    kept: [],
    realMs: since(started),
  };
}
