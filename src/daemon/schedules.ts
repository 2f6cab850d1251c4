/** The daemon's cron jobs (node-cron): the daily full reconcile and the history retention. */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { errorLine, UsageError } from '../domain/index.js';

/** 00:15 UTC: shortly after the quota day resets (midnight UTC unless configured otherwise). */
export const DEFAULT_RECONCILE_CRON = '15 0 * * *';
/** `task_history` rows older than this are pruned once a day. */
export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
export const SCHEDULE_TIMEZONE = 'UTC';

/** The cron expression and the two jobs it runs. */
export interface ScheduleOptions {
  reconcileCron: string;
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

/** The scheduled jobs; `start()` arms them, `stop()` disarms and awaits nothing further. */
export class Schedules {
  readonly reconcileTask: ScheduledTask;

  constructor(options: ScheduleOptions) {
    checkCron(options.reconcileCron);
    const log = options.logger;
    this.reconcileTask = cron.createTask(
      options.reconcileCron,
      async () => {
        try {
          await options.pruneHistory();
          await options.reconcile();
        } catch (error) {
          log.warn({ err: errorLine(error) }, 'scheduled reconcile failed');
        }
      },
      { timezone: SCHEDULE_TIMEZONE, name: 'reconcile', noOverlap: true },
    );
  }

  start(): void {
    void this.reconcileTask.start();
  }

  async stop(): Promise<void> {
    await this.reconcileTask.destroy();
  }

  /** When the reconcile runs next. */
  nextReconcile(): Date | null {
    return this.reconcileTask.getNextRun();
  }
}
