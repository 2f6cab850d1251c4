/**
 * The daemon's daily job: the full reconcile and the history retention, at a cron expression
 * (node-cron's syntax and parser, in UTC). It runs on the injected clock, so tests fire it by
 * moving time.
 */
import cron from 'node-cron';
import type { Logger } from 'pino';
import { errorLine, UsageError, type Clock } from '../domain/index.js';

/** 00:15 UTC: shortly after the quota day resets (midnight UTC unless configured otherwise). */
export const DEFAULT_RECONCILE_CRON = '15 0 * * *';
/** `task_history` rows older than this are pruned once a day. */
export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
export const SCHEDULE_TIMEZONE = 'UTC';

/** Looking this far ahead without a match means the expression never fires (say 31 February). */
const MAX_LOOKAHEAD_MS = 5 * 366 * 86_400_000;

/** The cron expression, the clock and the two jobs it runs. */
export interface ScheduleOptions {
  reconcileCron: string;
  clock: Clock;
  logger: Logger;
  /** A full reconcile of every project. */
  reconcile: () => Promise<void>;
  /** Prunes history past the retention. */
  pruneHistory: () => Promise<void> | void;
}

/** Throws a usage error naming a cron expression that node-cron cannot parse. */
export function checkCron(expression: string, flag = 'reconcile-cron'): void {
  if (!cron.validate(expression)) {
    throw new UsageError(`--${flag} ${JSON.stringify(expression)} is not a valid cron expression`);
  }
}

/** The first instant strictly after `afterMs` that `expression` matches, in UTC; null if none. */
export function nextCronTime(expression: string, afterMs: number): number | null {
  const fields = cron.parse(expression);
  const days = new Set(fields.dayOfMonth.filter((d): d is number => typeof d === 'number'));
  const weekdays = new Set(
    fields.dayOfWeek.filter((d): d is number => typeof d === 'number').map((d) => d % 7),
  );
  const at = new Date(Math.floor(afterMs / 1000) * 1000 + 1000);
  const end = afterMs + MAX_LOOKAHEAD_MS;
  while (at.getTime() <= end) {
    if (!fields.month.includes(at.getUTCMonth() + 1)) {
      at.setUTCMonth(at.getUTCMonth() + 1, 1);
      at.setUTCHours(0, 0, 0, 0);
    } else if (!days.has(at.getUTCDate()) || !weekdays.has(at.getUTCDay())) {
      at.setUTCDate(at.getUTCDate() + 1);
      at.setUTCHours(0, 0, 0, 0);
    } else if (!fields.hour.includes(at.getUTCHours())) {
      at.setUTCHours(at.getUTCHours() + 1, 0, 0, 0);
    } else if (!fields.minute.includes(at.getUTCMinutes())) {
      at.setUTCMinutes(at.getUTCMinutes() + 1, 0, 0);
    } else if (!fields.second.includes(at.getUTCSeconds())) {
      at.setUTCSeconds(at.getUTCSeconds() + 1, 0);
    } else {
      return at.getTime();
    }
  }
  return null;
}

/** The scheduled job; `start(signal)` arms it, `stop()` disarms it and awaits a run in hand. */
export class Schedules {
  private readonly options: ScheduleOptions;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: ScheduleOptions) {
    checkCron(options.reconcileCron);
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
    const next = nextCronTime(this.options.reconcileCron, this.options.clock.now());
    return next === null ? null : new Date(next);
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.options;
    while (!signal.aborted) {
      const next = nextCronTime(this.options.reconcileCron, clock.now());
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
