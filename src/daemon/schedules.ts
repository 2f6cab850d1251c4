/**
 * The daemon's daily job: the full reconcile and the history retention, at a cron expression
 * read and stepped by cron-parser as crontab(5) reads it (day of month OR day of week when both
 * are restricted), in UTC unless a time zone is given. It runs on the injected clock, so tests
 * fire it by moving time.
 */
import { CronExpressionParser } from 'cron-parser';
import type { Logger } from 'pino';
import { errorLine, isTimeZone, UsageError, type Clock } from '../domain/index.js';
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
  }

  /** When the reconcile runs next. */
  nextReconcile(): Date | null {
    const { reconcileCron, timezone, clock } = this.options;
    const next = nextCronTime(reconcileCron, clock.now(), timezone);
    return next === null ? null : new Date(next);
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.options;
    while (!signal.aborted) {
      const next = nextCronTime(this.options.reconcileCron, clock.now(), this.options.timezone);
      if (next === null) return;
      try {
        await clock.sleep(next - clock.now(), signal);
      } catch {
        return;
      }
      await this.runOnce();
    }
  }
}
