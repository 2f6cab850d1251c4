/**
 * Polls each project when the daily plan says it is due: one project at a time, the earliest due
 * first, sleeping on the injected clock in between. A change of plan (quota learned, realtime up
 * or down, projects added) wakes it to recompute the due times.
 */
import type { Logger } from 'pino';
import type { DailyPlan } from '../budget/plan.js';
import { errorLine, type Clock } from '../domain/index.js';

/** The clock, the plan and the poll the scheduler drives. */
export interface PollSchedulerOptions {
  clock: Clock;
  logger: Logger;
  /** The current plan; called again after every poll and every `replan()`. */
  plan: () => DailyPlan;
  /** Polls one project (a full conditional pass). Errors are logged, never thrown out. */
  poll: (projectId: string, signal: AbortSignal) => Promise<void>;
  /** When each project was last consistent (by a poll, a refresh or a reconcile). */
  lastPassAt: (projectId: string) => number | undefined;
}

/** How long the loop waits after the plan could not be computed (a database error, say). */
export const PLAN_RETRY_MS = 60_000;

/** The loop that spends the plan's polling budget. */
export class PollScheduler {
  private readonly options: PollSchedulerOptions;
  private readonly lastAttempt = new Map<string, number>();
  /** When a project never passed was first planned: its first poll is at this plus its offset. */
  private readonly firstPlanned = new Map<string, number>();
  private wake: AbortController | undefined;

  constructor(options: PollSchedulerOptions) {
    this.options = options;
  }

  /** Recomputes due times now (the plan changed). */
  replan(): void {
    this.wake?.abort();
  }

  /**
   * When each project is next due under `plan`: one interval after its last consistent pass
   * (whoever made it), except that the first poll after start is staggered across one interval
   * so that projects synced together do not stay in lockstep; never sooner than one interval
   * after the scheduler's own last attempt (a failing project does not spin).
   */
  dueTimes(plan: DailyPlan): Map<string, number> {
    const due = new Map<string, number>();
    const share = plan.intervalMs / Math.max(1, plan.projects.length);
    for (const project of plan.projects) {
      const id = project.projectId;
      const passed = this.options.lastPassAt(id);
      const attempted = this.lastAttempt.get(id);
      let at: number;
      if (passed !== undefined) {
        at = passed + (attempted === undefined ? project.offsetMs + share : project.intervalMs);
      } else {
        if (!this.firstPlanned.has(id)) this.firstPlanned.set(id, plan.computedAt);
        at = (this.firstPlanned.get(id) ?? plan.computedAt) + project.offsetMs;
      }
      if (attempted !== undefined) at = Math.max(at, attempted + project.intervalMs);
      due.set(id, at);
    }
    return due;
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.options;
    while (!signal.aborted) {
      let plan: DailyPlan;
      try {
        plan = this.options.plan();
      } catch (error) {
        // The loop must not end silently: log, wait a minute, try again.
        logger.error({ err: errorLine(error) }, 'could not plan polls');
        await this.sleepUnlessWoken(PLAN_RETRY_MS, signal);
        continue;
      }
      const next = [...this.dueTimes(plan)].sort((a, b) => a[1] - b[1])[0];
      const waitMs = next ? next[1] - clock.now() : plan.intervalMs;
      if (waitMs > 0) {
        await this.sleepUnlessWoken(waitMs, signal);
        continue;
      }
      if (!next) continue;
      const [projectId] = next;
      try {
        await this.options.poll(projectId, signal);
      } catch (error) {
        if (signal.aborted) break;
        logger.warn({ projectId, err: errorLine(error) }, 'poll failed');
      }
      this.lastAttempt.set(projectId, clock.now());
    }
  }

  private async sleepUnlessWoken(ms: number, signal: AbortSignal): Promise<void> {
    this.wake = new AbortController();
    try {
      await this.options.clock.sleep(ms, AbortSignal.any([signal, this.wake.signal]));
    } catch {
      // Woken early by replan() or stopped: the loop decides which.
    } finally {
      this.wake = undefined;
    }
  }
}
