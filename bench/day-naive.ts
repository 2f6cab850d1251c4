/**
 * Benchmark 6, the baseline: a naive poller that re-reads every task page of every project every
 * 5 minutes with the same HTTP client, unconditionally (no ETags), with no budgeting: its gate lets
 * every request through and a refused request (429) just ends that project's read for the round.
 */
import { RateLimitedError, type RequestGate, type Task } from '../src/domain/index.js';
import { createHttpRemote } from '../src/remote/index.js';
import { countRequests, type DayResult } from './day-daemon.js';
import {
  applyDueChanges,
  DAY_MS,
  DAY_START,
  startDayWorkload,
  worstStaleness,
  type Change,
} from './day-workload.js';
import { silentLogger, since } from './harness.js';

/** How often the naive poller re-reads everything. */
export const NAIVE_INTERVAL_MS = 5 * 60_000;
const PAGE_SIZE = 500;

/** A gate that never holds a request back. */
const openGate: RequestGate = { acquire: () => Promise.resolve(), observe: () => undefined };

/** What the naive poller did, with the requests one full round needs. */
export interface NaiveResult extends DayResult {
  requestsPerRound: number;
  rounds: number;
  /** When the service first refused it (the daily quota spent), if it did. */
  firstRefusalAt: number | undefined;
}

/** Runs the naive poller through the day, and one round more at the next day's start. */
export async function naiveDay(): Promise<NaiveResult> {
  const started = performance.now();
  const workload = await startDayWorkload();
  const { clock, sim } = workload;
  const remote = createHttpRemote({
    baseUrl: sim.baseUrl,
    token: sim.token,
    gate: openGate,
    clock,
    logger: silentLogger,
    maxAttempts: 1,
    maxRateLimitRetries: 0,
  });
  const end = DAY_START + DAY_MS;
  const byTask = new Map(workload.changes.map((change) => [change.taskId, change]));
  const projects = sim.service.listProjects().map((project) => project.id);
  const next = { index: 0 };
  let rounds = 0;
  let requestsPerRound = 0;
  let firstRefusalAt: number | undefined;
  try {
    // The round at `end` opens the next quota day: it shows how long refused changes waited.
    for (let at = DAY_START; at <= end; at += NAIVE_INTERVAL_MS) {
      stepThroughChanges(workload, next, at);
      const before = sim.requestLog.count();
      for (const projectId of projects) {
        const refused = await readProject(projectId, byTask, clock.now(), remote);
        if (refused) firstRefusalAt ??= clock.now();
      }
      if (at < end) rounds += 1;
      if (rounds === 1) requestsPerRound = sim.requestLog.count() - before;
    }
    return {
      ...countRequests(workload, end),
      worstStalenessMs: worstStaleness(workload.changes, end + NAIVE_INTERVAL_MS),
      unseen: workload.changes.filter((change) => change.landedAt === undefined).length,
      disconnects: 0,
      realMs: since(started),
      requestsPerRound,
      rounds,
      firstRefusalAt,
    };
  } finally {
    await remote.close();
    await sim.close();
  }
}

/** Moves the clock to `at`, applying each change at its own instant on the way. */
function stepThroughChanges(
  workload: Awaited<ReturnType<typeof startDayWorkload>>,
  next: { index: number },
  at: number,
): void {
  for (;;) {
    const change = workload.changes[next.index];
    if (change === undefined || change.at > at) break;
    workload.clock.stepTo(change.at);
    applyDueChanges(workload, next);
  }
  workload.clock.stepTo(at);
}

/** Reads every page of one project; true when the service refused a request with a 429. */
async function readProject(
  projectId: string,
  byTask: ReadonlyMap<string, Change>,
  now: number,
  remote: ReturnType<typeof createHttpRemote>,
): Promise<boolean> {
  let read = 0;
  for (let page = 1; ; page += 1) {
    let rows: Task[];
    let total: number;
    try {
      const answer = await remote.listTasksPage(projectId, page, PAGE_SIZE);
      if (answer.notModified) throw new Error('a 304 to an unconditional read');
      rows = answer.rows;
      total = answer.totalCount;
    } catch (error) {
      if (error instanceof RateLimitedError) return true;
      throw error;
    }
    for (const row of rows) {
      const change = byTask.get(row.id);
      if (change && change.landedAt === undefined && row.name === change.name) {
        change.landedAt = now;
      }
    }
    read += rows.length;
    if (read >= total || rows.length === 0) return false;
  }
}
