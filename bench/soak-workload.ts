/**
 * The workload of benchmark 12: a simulator on a manual clock holding 50 projects, and a steady
 * churn of seeded creates, edits and deletes that keeps the number of live tasks where it started.
 */
import { ManualClock } from '../src/domain/index.js';
import { Prng, startSimulator, type Simulator } from '../src/sim/index.js';

export const SOAK_PROJECTS = 50;
export const SOAK_TASKS_PER_PROJECT = 200;
/** Changes a day on the service, over every project: as many creates as deletes. */
export const SOAK_CREATES_PER_DAY = 100;
export const SOAK_EDITS_PER_DAY = 300;
export const SOAK_DELETES_PER_DAY = 100;
/** The first simulated day: a UTC midnight. */
export const SOAK_START = Date.UTC(2026, 11, 1);
/** Requests the simulator remembers: a year of them would be the simulator's memory, not ours. */
const REQUEST_LOG_LIMIT = 1_000;
const TOKEN = 'glt_bench_soak_workload_token';

/** A simulator, its clock and the churn that drives it. */
export interface SoakWorkload {
  clock: ManualClock;
  sim: Simulator;
  churn: Churn;
}

/** Starts the workload; `limits` false opens the simulator's windows and quota. */
export async function startSoakWorkload(limits: boolean, seed = 12): Promise<SoakWorkload> {
  const clock = new ManualClock(SOAK_START);
  const sim = await startSimulator({
    clock,
    seed,
    projects: SOAK_PROJECTS,
    tasks: SOAK_TASKS_PER_PROJECT,
    tokens: [TOKEN],
    dayEpochMs: SOAK_START,
    limits,
    requestLogLimit: REQUEST_LOG_LIMIT,
    realtimeData: true,
  });
  return { clock, sim, churn: new Churn(sim, seed) };
}

/** Seeded creates, edits and deletes on the service, in the day's proportions. */
export class Churn {
  private readonly prng: Prng;
  private readonly projects: string[];
  private counter = 0;

  constructor(
    private readonly sim: Simulator,
    seed: number,
  ) {
    this.prng = new Prng(seed);
    this.projects = sim.service.listProjects().map((project) => project.id);
  }

  /** Makes `share` of a day's changes (1 for a whole day); returns how many. */
  apply(share = 1): number {
    const creates = Math.round(SOAK_CREATES_PER_DAY * share);
    const edits = Math.round(SOAK_EDITS_PER_DAY * share);
    const deletes = Math.round(SOAK_DELETES_PER_DAY * share);
    for (let i = 0; i < creates; i++) {
      this.sim.service.createTask(this.project(), { name: `created ${(this.counter += 1)}` });
    }
    for (let i = 0; i < edits; i++) {
      const task = this.task();
      if (task) this.sim.service.updateTask(task, { name: `edited ${(this.counter += 1)}` });
    }
    for (let i = 0; i < deletes; i++) {
      const task = this.task();
      if (task) this.sim.service.deleteTask(task);
    }
    return creates + edits + deletes;
  }

  private project(): string {
    return this.projects[Math.floor(this.prng.next() * this.projects.length)]!;
  }

  private task(): string | undefined {
    const tasks = this.sim.service.listTasks(this.project());
    return tasks[Math.floor(this.prng.next() * tasks.length)]?.id;
  }
}
