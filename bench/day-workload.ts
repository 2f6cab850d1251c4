/**
 * The workload of benchmark 6: a simulator on a manual clock holding 10 projects of 2,000 tasks,
 * under the spec's limits (60 a minute, 5,000 a day), and 500 renames at seeded random instants
 * of the day, each of a different task, with the instant each one reached a mirror.
 */
import { Prng, startSimulator, type Simulator } from '../src/sim/index.js';
import { ManualClock } from '../src/domain/index.js';

export const DAY_PROJECTS = 10;
export const DAY_TASKS_PER_PROJECT = 2_000;
export const DAY_CHANGES = 500;
export const DAY_MS = 86_400_000;
/** The simulated day: a UTC midnight, when the simulator's quota day starts. */
export const DAY_START = Date.UTC(2026, 10, 23);
/** Changes fall in the first 23 hours, so that every approach has time to pick them up. */
export const CHANGE_SPAN_MS = 23 * 3_600_000;
const SEED = 6;
const TOKEN = 'glt_bench_day_workload_token';

/** One rename on the simulator, and when a mirror first showed it (simulated time). */
export interface Change {
  at: number;
  projectId: string;
  taskId: string;
  name: string;
  landedAt?: number;
}

/** A fresh simulator and clock at the start of the day, and the day's changes (none applied). */
export interface DayWorkload {
  clock: ManualClock;
  sim: Simulator;
  changes: Change[];
}

/** Starts the workload; every call gives the same data and the same changes. */
export async function startDayWorkload(): Promise<DayWorkload> {
  const clock = new ManualClock(DAY_START);
  const sim = await startSimulator({
    clock,
    seed: SEED,
    projects: DAY_PROJECTS,
    tasks: DAY_TASKS_PER_PROJECT,
    tokens: [TOKEN],
    dayEpochMs: DAY_START,
  });
  return { clock, sim, changes: planChanges(sim) };
}

/** 500 renames at seeded instants, each of a different task, in time order. */
function planChanges(sim: Simulator): Change[] {
  const prng = new Prng(SEED);
  const random = () => prng.next();
  const projects = sim.service.listProjects().map((project) => project.id);
  const tasks = new Map(projects.map((id) => [id, sim.service.listTasks(id)]));
  const used = new Set<string>();
  const changes: Change[] = [];
  while (changes.length < DAY_CHANGES) {
    const projectId = projects[Math.floor(random() * projects.length)]!;
    const list = tasks.get(projectId)!;
    const task = list[Math.floor(random() * list.length)]!;
    if (used.has(task.id)) continue;
    used.add(task.id);
    const at = DAY_START + 60_000 + Math.floor(random() * CHANGE_SPAN_MS);
    changes.push({ at, projectId, taskId: task.id, name: `renamed on day ${changes.length}` });
  }
  return changes.sort((a, b) => a.at - b.at);
}

/** Applies every change due by the clock's time; returns how many. */
export function applyDueChanges(workload: DayWorkload, next: { index: number }): number {
  let applied = 0;
  for (;;) {
    const change = workload.changes[next.index];
    if (change === undefined || change.at > workload.clock.now()) return applied;
    workload.sim.service.updateTask(change.taskId, { name: change.name });
    next.index += 1;
    applied += 1;
  }
}

/** The worst staleness of the changes, counting one never seen as stale until `endAt`. */
export function worstStaleness(changes: readonly Change[], endAt: number): number {
  return Math.max(0, ...changes.map((change) => (change.landedAt ?? endAt) - change.at));
}
