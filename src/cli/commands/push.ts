/** `projmirror push`: send every pending outbox item, retrying transient failures, then one summary line. */
import { runningDaemonPid } from '../../daemon/daemon.js';
import { ProgressWatch, systemClock, UsageError } from '../../domain/index.js';
import type { DryRunStep, PushReport } from '../../outbox/index.js';
import type { CommandBody } from '../command.js';
import { abortOnSignals } from '../interrupt.js';
import { EXIT_FAILED, EXIT_OK } from '../exit.js';
import {
  ONE_SHOT_OPTIONS,
  onConflictOf,
  withCommonOptions,
  type CommonOptionName,
} from '../common-options.js';
import { parseMsBound } from '../options.js';
import { plural } from '../plural.js';
import { openSession } from '../session.js';
import { STATE_KEYS } from '../../store/port.js';
import { pushSummary, pushSummaryLine } from '../summary.js';

/** A one-shot push waits through burst pauses and 429s, not for a quota day to end. */
export const PUSH_MAX_WAIT_MS = 2 * 60 * 1000;

/** The option bounding, per item, how long a push retries transient failures. */
const ITEM_RETRY_WINDOW_FLAG = 'item-retry-window-ms' satisfies CommonOptionName;

/** Checks `--item-retry-window-ms`: a whole number of milliseconds, 0 or more. */
export function parseItemRetryWindow(value: unknown): number {
  const ms = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
    throw new UsageError(
      `--${ITEM_RETRY_WINDOW_FLAG} ${JSON.stringify(value)} must be a whole number of milliseconds, 0 or more`,
    );
  }
  return ms;
}

/** The closing line on stderr when items failed or are left pending; undefined when all done. */
export function pushProblemLine(report: PushReport): string | undefined {
  const parts: string[] = [];
  if (report.failed > 0) {
    parts.push(
      `${plural(report.failed, 'item')} failed (see projmirror outbox list --state failed)`,
    );
  }
  if (report.conflicts > 0) {
    parts.push(
      `${plural(report.conflicts, 'item')} in conflict (see projmirror outbox list --state conflict; resolve with projmirror outbox resolve ID --keep-local|--keep-remote)`,
    );
  }
  if (report.pending > 0) parts.push(`${plural(report.pending, 'item')} left pending`);
  return parts.length === 0 ? undefined : `push: ${parts.join('; ')}`;
}

export const body: CommandBody = {
  builder: (yargs) =>
    withCommonOptions(yargs, [...ONE_SHOT_OPTIONS, ITEM_RETRY_WINDOW_FLAG, 'on-conflict'])
      .option('json', {
        type: 'boolean',
        default: false,
        describe:
          'end with a JSON summary object on stdout instead of the summary line (logs go to stderr)',
      })
      .option('dry-run', {
        type: 'boolean',
        default: false,
        describe:
          'send nothing and change nothing: print what push would do with each item, in its order, and the requests it would cost against the budget left today',
      }),
  handler: async (args) => {
    const started = Date.now();
    const itemRetryWindowMs = parseItemRetryWindow(args[ITEM_RETRY_WINDOW_FLAG]);
    const deadlineMs = parseMsBound(args['deadlineMs'], 'deadline-ms');
    const stallMs = parseMsBound(args['stallMs'], 'stall-ms');
    const onConflict = onConflictOf(args);
    const watch = new ProgressWatch(systemClock);
    const session = await openSession(args, { maxWaitMs: PUSH_MAX_WAIT_MS, progress: watch });
    const { engine, logger } = session;
    if (args['dry-run']) {
      try {
        const steps = await engine.store.outbox.dryRun(onConflict);
        process.stdout.write(dryRunText(steps, engine.quotaRemaining(), args['json'] === true));
        return EXIT_OK;
      } finally {
        await session.close();
      }
    }
    const daemonPid = runningDaemonPid(await engine.store.state.get(STATE_KEYS.daemon));
    if (daemonPid !== undefined) {
      await session.close();
      throw new UsageError(
        `projmirror run (pid ${daemonPid}) pushes this mirror's outbox; stop it before running push`,
      );
    }
    // On a shared PostgreSQL mirror, push sends the items of the projects whose leases it can
    // take: those no running daemon holds.
    if (engine.leases) await engine.leases.claim(await engine.store.outbox.projectsWithItems());
    const pusher = engine.pusher({
      maxRateLimitWaitMs: PUSH_MAX_WAIT_MS,
      itemRetryWindowMs,
      onConflict,
    });
    const interrupt = abortOnSignals({ deadlineMs, startedAt: started, stallMs, watch });
    try {
      const report = await pusher.pushOnce({ signal: interrupt.signal, ignoreBackoff: true });
      logger.info({ ...report }, 'push done');
      const problem = interrupt.bound
        ? `push: ${interrupt.bound.message}`
        : pushProblemLine(report);
      if (problem !== undefined) session.say(problem);
      const summary = pushSummary(report, Date.now() - started);
      process.stdout.write(
        `${args['json'] ? JSON.stringify(summary) : pushSummaryLine(summary)}\n`,
      );
      const settled = report.pending === 0 && report.conflicts === 0;
      return settled && !interrupt.bound ? EXIT_OK : EXIT_FAILED;
    } finally {
      interrupt.dispose();
      await session.close();
    }
  },
};

/** One line of the dry run: `3  task.update  t_1  conflict: status was ...  (1 request)`. */
export function dryRunLine(step: DryRunStep): string {
  const what = step.detail === '' ? step.action : `${step.action}: ${step.detail}`;
  const cost = plural(step.requests, 'request');
  return [String(step.id), step.op, step.projectId, step.targetId ?? '-', what, `(${cost})`].join(
    '  ',
  );
}

/** The dry run's output: a line per item and the total, or one JSON object. */
export function dryRunText(
  steps: readonly DryRunStep[],
  quotaRemaining: number | undefined,
  json: boolean,
): string {
  const requests = steps.reduce((sum, step) => sum + step.requests, 0);
  if (json)
    return `${JSON.stringify({ items: steps, requests, quotaRemaining: quotaRemaining ?? null })}\n`;
  const left =
    quotaRemaining === undefined
      ? 'the budget left today is not known yet (no request made today)'
      : `${quotaRemaining} left today`;
  const lines = steps.map(dryRunLine);
  lines.push(
    `dry run: ${plural(steps.length, 'item')}, ${plural(requests, 'request')}; ${left}; nothing sent`,
  );
  return `${lines.join('\n')}\n`;
}
