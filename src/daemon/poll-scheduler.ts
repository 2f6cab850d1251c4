/**
 * Polls each project when the daily plan says it is due: one project at a time, the earliest due
 * first, sleeping on the injected clock in between. A change of plan (quota learned, realtime up
 * or down, projects added) wakes it to recompute the due times.
 *
 * Due times are wall-clock times (a project's last pass is written down as one). When the wall
 * clock steps back (NTP), every time the scheduler goes by moves back with it, a last pass
 * written before the step included, so that no project waits the step's length longer. When it
 * steps forward (NTP, or a VM resumed after a suspension, when the service did move on), nothing
 * moves: every project whose time the step passed is due at once, once. So are the single pages
 * and side lists: the loop sleeps towards an item, as towards a pass, `DEFAULT_WALL_CHECK_MS` at
 * most at a time.
 */
import type { Logger } from 'pino';
import type { DailyPlan } from '../budget/plan.js';
import { backoffDelayMs, type BackoffPolicy } from '../domain/backoff.js';
import {
  DEFAULT_WALL_CHECK_MS,
  DEFAULT_WALL_STEP_TOLERANCE_MS,
  errorLine,
  WallStepWatch,
  type Clock,
} from '../domain/index.js';

/** The clock, the plan and the poll the scheduler drives. */
export interface PollSchedulerOptions {
  clock: Clock;
  logger: Logger;
  /** The current plan; called again after every poll and every `replan()`. */
  plan: () => DailyPlan;
  /**
   * Polls one project (a full conditional pass): true when it passed; undefined when the poll
   * joined a pass whose outcome was recorded already (each pass counts once). Errors are logged.
   * `fresh` when the project was made due (`dueAt`): something learned then needs a pass begun
   * after it, not one already running.
   */
  poll: (projectId: string, signal: AbortSignal, fresh: boolean) => Promise<boolean | undefined>;
  /** When each project was last consistent (by a poll, a refresh or a reconcile). */
  lastPassAt: (projectId: string) => number | undefined;
  /** Jitter source in [0, 1) for the failed-pass backoff; `Math.random` by default. */
  random?: () => number;
  /**
   * Whether this daemon passes `projectId` now (its `--projects`, its leases), for a project
   * the plan does not list; every project by default. One it may not pass keeps its failure
   * and due time until it may.
   */
  eligible?: (projectId: string) => boolean;
  /**
   * Polls of single pages and side lists (`page-polls.ts`), run in the same loop, one at a time
   * with the projects' passes: the next one due, and the poll.
   */
  items?: {
    /** The next item due, given each project's last pass as this scheduler sees it. */
    next: (
      lastPassAt: (projectId: string) => number | undefined,
    ) => { key: string; at: number } | undefined;
    poll: (key: string, signal: AbortSignal) => Promise<void>;
    /** When each project's next item is due, given each project's last pass. */
    nextByProject: (lastPassAt: (projectId: string) => number | undefined) => Map<string, number>;
    /** The wall clock stepped back by `-stepMs`: the items' own times move back with it. */
    wallStepped: (stepMs: number) => void;
  };
}

/** How long the loop waits after the plan could not be computed (a database error, say). */
export const PLAN_RETRY_MS = 60_000;
/** The ceiling of the wait before a project whose pass failed is tried again, doubling per failure. */
export const FAILED_PASS_BACKOFF_BASE_MS = 10_000;
/** The longest wait before a failed project is tried again (inside any plan's interval). */
export const FAILED_PASS_BACKOFF_MAX_MS = 10 * 60_000;
/** The shortest such wait, whatever the jitter draws. */
export const FAILED_PASS_MIN_RETRY_MS = 2_000;

/** A project whose last pass failed: how often in a row, and when it is tried again. */
interface Failing {
  failures: number;
  retryAt: number;
}

/** The loop that spends the plan's polling budget. */
export class PollScheduler {
  private readonly options: PollSchedulerOptions;
  private readonly lastAttempt = new Map<string, number>();
  /** When a project never passed was first planned: its first poll is at this plus its offset. */
  private readonly firstPlanned = new Map<string, number>();
  private readonly failing = new Map<string, Failing>();
  /** Projects made due at a set time, once (a deferred refresh). */
  private readonly dueOnce = new Map<string, number>();
  /** The order in which projects' failures and due times were last noted (what `forget` weighs). */
  private readonly noted = new Map<string, number>();
  private notes = 0;
  private readonly backoff: BackoffPolicy;
  private wake: AbortController | undefined;
  private readonly steps: WallStepWatch;
  /** A last pass written before the wall clock stepped, and how far the steps since moved it. */
  private readonly passShifts = new Map<string, { passedAt: number; shiftMs: number }>();

  constructor(options: PollSchedulerOptions) {
    this.options = options;
    this.steps = new WallStepWatch(options.clock);
    this.backoff = {
      baseMs: FAILED_PASS_BACKOFF_BASE_MS,
      maxMs: FAILED_PASS_BACKOFF_MAX_MS,
      random: options.random ?? Math.random,
    };
  }

  /**
   * Records how a pass over `projectId` ended, whoever ran it (a poll, a refresh, a reconcile): a
   * failure makes the project due again after a backoff (seconds, doubling to minutes) instead of
   * at its next slot; a success clears it.
   */
  recordResult(projectId: string, ok: boolean): void {
    if (ok) {
      this.failing.delete(projectId);
      return;
    }
    const failures = (this.failing.get(projectId)?.failures ?? 0) + 1;
    const delay = Math.max(FAILED_PASS_MIN_RETRY_MS, backoffDelayMs(failures, this.backoff));
    this.failing.set(projectId, { failures, retryAt: this.options.clock.now() + delay });
    this.note(projectId);
    this.replan();
  }

  /** Makes `projectId` due at `at` once, unless it is due sooner anyway. */
  dueAt(projectId: string, at: number): void {
    const held = this.dueOnce.get(projectId);
    if (held !== undefined && held <= at) return;
    this.dueOnce.set(projectId, at);
    this.note(projectId);
    this.replan();
  }

  /** Notes that `projectId`'s failure or due time changed, after all noted so far. */
  private note(projectId: string): void {
    this.noted.set(projectId, (this.notes += 1));
  }

  /** The projects with a failure or a due time noted. */
  private pending(): Set<string> {
    return new Set([...this.failing.keys(), ...this.dueOnce.keys()]);
  }

  /** A mark of what was noted so far, for `forget`. */
  mark(): number {
    return this.notes;
  }

  /**
   * Forgets the failures and due times, noted up to `mark`, of the projects `keep` refuses: the
   * projects neither a listing begun at `mark` nor the mirror has, of which nothing is left to
   * pass. One noted since may be new to that listing.
   */
  forget(keep: (projectId: string) => boolean, mark: number): void {
    for (const id of this.pending()) {
      if (keep(id) || (this.noted.get(id) ?? 0) > mark) continue;
      this.failing.delete(id);
      this.dueOnce.delete(id);
      this.noted.delete(id);
    }
    this.replan();
  }

  /** The projects whose last pass failed, with how many times in a row. */
  failures(): Map<string, number> {
    return new Map([...this.failing].map(([id, failing]) => [id, failing.failures]));
  }

  /** Recomputes due times now (the plan changed). */
  replan(): void {
    this.wake?.abort();
  }

  /**
   * When each project is next due under `plan`: one interval after its last consistent pass
   * (whoever made it), except that the first poll after start is staggered across one interval
   * so that projects synced together do not stay in lockstep; never sooner than one interval
   * after the scheduler's own last attempt (a failing project does not spin). A project the plan
   * does not list is due as its failure or due time says, if `eligible`.
   */
  dueTimes(plan: DailyPlan): Map<string, number> {
    this.followWallSteps(plan);
    const due = new Map<string, number>();
    const share = plan.intervalMs / Math.max(1, plan.projects.length);
    for (const project of plan.projects) {
      const id = project.projectId;
      const passed = this.shiftedLastPass(id);
      const attempted = this.lastAttempt.get(id);
      let at: number;
      if (passed !== undefined) {
        at = passed + (attempted === undefined ? project.offsetMs + share : project.intervalMs);
      } else {
        if (!this.firstPlanned.has(id)) this.firstPlanned.set(id, plan.computedAt);
        at = (this.firstPlanned.get(id) ?? plan.computedAt) + project.offsetMs;
      }
      if (attempted !== undefined) at = Math.max(at, attempted + project.intervalMs);
      // Its parts are polled on their own: a pass only when one is asked for.
      if (project.partsPolled === true) at = Infinity;
      const failing = this.failing.get(id);
      // A failed pass makes the project due sooner than its next slot, never later.
      if (failing !== undefined) at = Math.min(at, failing.retryAt);
      const once = this.dueOnce.get(id);
      if (once !== undefined) at = Math.min(at, once);
      if (Number.isFinite(at)) due.set(id, at);
    }
    // A project the plan does not know yet (its first pass failed before the mirror held it, or
    // an event the store could not take named it) is due as its failure or its due time says:
    // the plan only lists the mirror's projects, and nothing else would pass it before the next
    // reconcile. Never sooner than the shortest retry after the last attempt (a poll that joined
    // a pass recorded nothing), and only once this daemon may pass it.
    const eligible = this.options.eligible ?? (() => true);
    for (const id of this.pending()) {
      if (due.has(id) || !eligible(id)) continue;
      let at = Math.min(
        this.failing.get(id)?.retryAt ?? Infinity,
        this.dueOnce.get(id) ?? Infinity,
      );
      const attempted = this.lastAttempt.get(id);
      if (attempted !== undefined) at = Math.max(at, attempted + FAILED_PASS_MIN_RETRY_MS);
      due.set(id, at);
    }
    return due;
  }

  /**
   * When each project is next read: its pass's due time (`dueTimes`), or, for a project whose
   * parts are polled on their own, its next part's, whichever comes first.
   */
  nextPolls(plan: DailyPlan): Map<string, number> {
    const due = this.dueTimes(plan);
    const parts = this.options.items?.nextByProject((projectId) => this.shiftedLastPass(projectId));
    for (const [id, at] of parts ?? []) due.set(id, Math.min(at, due.get(id) ?? Infinity));
    return due;
  }

  /** `projectId`'s last pass, moved by the wall clock's steps since it was written. */
  private shiftedLastPass(projectId: string): number | undefined {
    const passed = this.options.lastPassAt(projectId);
    const shift = this.passShifts.get(projectId);
    if (passed === undefined || shift === undefined) return passed;
    if (shift.passedAt === passed) return passed + shift.shiftMs;
    this.passShifts.delete(projectId); // a pass written since, on the stepped clock
    return passed;
  }

  /** Moves the times this scheduler goes by with the wall clock's step, if it stepped. */
  private followWallSteps(plan: DailyPlan): void {
    const stepMs = this.steps.step();
    if (stepMs >= 0) return;
    for (const { projectId } of plan.projects) {
      const passedAt = this.options.lastPassAt(projectId);
      if (passedAt === undefined) continue;
      const earlier = this.passShifts.get(projectId);
      const shiftMs = (earlier?.passedAt === passedAt ? earlier.shiftMs : 0) + stepMs;
      this.passShifts.set(projectId, { passedAt, shiftMs });
    }
    for (const [id, at] of this.lastAttempt) this.lastAttempt.set(id, at + stepMs);
    for (const [id, at] of this.firstPlanned) this.firstPlanned.set(id, at + stepMs);
    for (const [id, at] of this.dueOnce) this.dueOnce.set(id, at + stepMs);
    for (const failing of this.failing.values()) failing.retryAt += stepMs;
    this.options.items?.wallStepped(stepMs);
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
      const item = this.options.items?.next((projectId) => this.shiftedLastPass(projectId));
      if (item !== undefined && (next === undefined || item.at < next[1])) {
        const itemWaitMs = item.at - clock.now();
        // In slices, as towards a pass: a step of the wall clock forward makes items due sooner.
        if (itemWaitMs > 0) {
          await this.sleepTowardItem(item.at, signal);
        } else {
          await this.options.items!.poll(item.key, signal);
        }
        continue;
      }
      const waitMs = next ? next[1] - clock.now() : plan.intervalMs;
      if (waitMs > 0) {
        await this.sleepUnlessWoken(Math.min(waitMs, DEFAULT_WALL_CHECK_MS), signal);
        continue;
      }
      if (!next) continue;
      const [projectId] = next;
      const fresh = this.dueOnce.delete(projectId);
      let ok: boolean | undefined = false;
      try {
        ok = await this.options.poll(projectId, signal, fresh);
      } catch (error) {
        if (signal.aborted) break;
        logger.warn({ projectId, err: errorLine(error) }, 'poll failed');
      }
      this.lastAttempt.set(projectId, clock.now());
      if (!signal.aborted && ok !== undefined) this.recordResult(projectId, ok);
    }
  }

  /**
   * Sleeps until the item's time `at`, `DEFAULT_WALL_CHECK_MS` at most at a time, and ends early
   * only when woken (`replan`), stopped, or when the wall clock stepped (the loop then follows the
   * step). Between slices nothing is planned again: planning every few minutes while waiting
   * moved the items (benchmark 10's ratio to the oracle 1.25 -> 1.31).
   */
  private async sleepTowardItem(at: number, signal: AbortSignal): Promise<void> {
    const { clock } = this.options;
    const offsetMs = clock.now() - clock.monotonic();
    for (;;) {
      const waitMs = at - clock.now();
      if (waitMs <= 0) return;
      if (await this.sleepUnlessWoken(Math.min(waitMs, DEFAULT_WALL_CHECK_MS), signal)) return;
      const stepMs = clock.now() - clock.monotonic() - offsetMs;
      if (Math.abs(stepMs) >= DEFAULT_WALL_STEP_TOLERANCE_MS) return;
    }
  }

  /** Sleeps `ms`; true when it ended early, woken by `replan()` or stopped. */
  private async sleepUnlessWoken(ms: number, signal: AbortSignal): Promise<boolean> {
    this.wake = new AbortController();
    try {
      await this.options.clock.sleep(ms, AbortSignal.any([signal, this.wake.signal]));
      return false;
    } catch {
      // Woken early by replan() or stopped: the loop decides which.
      return true;
    } finally {
      this.wake = undefined;
    }
  }
}
