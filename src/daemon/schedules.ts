/**
 * The daemon's daily job: the full reconcile and the history retention, at a cron expression
 * read and stepped by cron-parser as crontab(5) reads it (day of month OR day of week when both
 * are restricted), in UTC unless a time zone is given. It runs on the injected clock, so tests
 * fire it by moving time.
 *
 * The expression names wall-clock instants, and the wall clock steps (NTP, a VM resumed): the
 * loop sleeps towards the next instant in monotonic slices and looks at the wall clock after
 * each. A step forward past the instant runs the job once, at once, however many instants it
 * jumped; a step back plans the next instant after both the wall clock and the last instant
 * run, so an instant that already ran never runs again.
 */
import { CronExpressionParser } from 'cron-parser';
import type { Logger } from 'pino';
import {
  DEFAULT_WALL_CHECK_MS,
  errorLine,
  isTimeZone,
  UsageError,
  WallStepWatch,
  type Clock,
} from '../domain/index.js';
import { DEFAULT_SCHEDULE_TIMEZONE } from './defaults.js';

/** The cron expression, its zone, the clock and the two jobs it runs. */
export interface ScheduleOptions {
  reconcileCron: string;
  /** An IANA zone the expression's hours and days are in; UTC by default. */
  timezone?: string;
  clock: Clock;
  logger: Logger;
  /** A full reconcile of every project. */
  reconcile: () => Promise<void>;
  /** Prunes history past the retention. */
  pruneHistory: () => Promise<void> | void;
  /** The longest sleep between two looks at the wall clock; `DEFAULT_WALL_CHECK_MS` by default. */
  wallCheckMs?: number;
}

/** Throws a usage error naming a cron expression that cannot be parsed or never fires. */
export function checkCron(expression: string, flag = 'reconcile-cron'): void {
  try {
    CronExpressionParser.parse(expression);
  } catch {
    throw new UsageError(`--${flag} ${JSON.stringify(expression)} is not a valid cron expression`);
  }
}

/** Throws a usage error naming a time zone the platform does not know. */
export function checkTimeZone(zone: string, flag = 'reconcile-timezone'): void {
  if (!isTimeZone(zone)) {
    throw new UsageError(
      `--${flag} ${JSON.stringify(zone)} is not a time zone (say Europe/Berlin)`,
    );
  }
}

/** The first instant strictly after `afterMs` that `expression` matches in `timezone`; null if none. */
export function nextCronTime(
  expression: string,
  afterMs: number,
  timezone = DEFAULT_SCHEDULE_TIMEZONE,
): number | null {
  const steps = CronExpressionParser.parse(expression, {
    currentDate: new Date(afterMs),
    tz: timezone,
  });
  try {
    return steps.next().getTime();
  } catch {
    return null; // past cron-parser's look-ahead: the expression never fires again
  }
}

/** The scheduled job; `start(signal)` arms it, `stop()` disarms it and awaits a run in hand. */
export class Schedules {
  private readonly options: ScheduleOptions;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;
  /** The instant the running loop waits for. */
  private planned: number | null | undefined;

  constructor(options: ScheduleOptions) {
    checkCron(options.reconcileCron);
    if (options.timezone !== undefined) checkTimeZone(options.timezone);
    this.options = options;
  }

  /** Runs the retention, then the reconcile; never throws. */
  async runOnce(): Promise<void> {
    try {
      await this.options.pruneHistory();
      await this.options.reconcile();
    } catch (error) {
      this.options.logger.warn({ err: errorLine(error) }, 'scheduled reconcile failed');
    }
  }

  /** Runs the job at every match of the expression until `signal` aborts or `stop()`. */
  start(signal?: AbortSignal): void {
    if (this.loop !== undefined) return;
    this.controller = new AbortController();
    const combined = signal
      ? AbortSignal.any([signal, this.controller.signal])
      : this.controller.signal;
    this.loop = this.run(combined);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
    this.loop = undefined;
    this.planned = undefined;
  }

  /** When the reconcile runs next. */
  nextReconcile(): Date | null {
    const { reconcileCron, timezone, clock } = this.options;
    const next = this.planned ?? nextCronTime(reconcileCron, clock.now(), timezone);
    return next === null ? null : new Date(next);
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { clock, reconcileCron, timezone } = this.options;
    const checkMs = this.options.wallCheckMs ?? DEFAULT_WALL_CHECK_MS;
    const steps = new WallStepWatch(clock);
    let lastRun = Number.NEGATIVE_INFINITY;
    const planAfter = (wall: number) =>
      nextCronTime(reconcileCron, Math.max(wall, lastRun), timezone);
    this.planned = planAfter(clock.now());
    while (!signal.aborted && this.planned !== null) {
      const waitMs = this.planned - clock.now();
      if (waitMs > 0) {
        const sleptFrom = clock.monotonic();
        try {
          await clock.sleep(Math.min(waitMs, checkMs), signal);
        } catch {
          return;
        }
        const stepMs = steps.step();
        // The step came at some point of the sleep: the wall clock ran at least from this on.
        const sweptFrom = clock.now() - (clock.monotonic() - sleptFrom);
        if (stepMs !== 0) this.replan(stepMs, planAfter(sweptFrom));
        continue;
      }
      // A run covers every instant up to the wall clock's time it began at, not just its own.
      const covers = Math.max(this.planned, clock.now());
      await this.runOnce();
      lastRun = covers;
      this.planned = planAfter(clock.now());
    }
  }

  /** After a step: an earlier instant now due comes first; a later one waits (it runs at once). */
  private replan(stepMs: number, next: number | null): void {
    if (next !== null && this.planned !== null && this.planned !== undefined) {
      this.planned = Math.min(this.planned, next);
    }
    const planned = this.planned ? new Date(this.planned).toISOString() : null;
    this.options.logger.info({ stepMs, next: planned }, 'wall clock stepped: reconcile re-planned');
  }
}
