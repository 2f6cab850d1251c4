/** `projmirror sync`: one full, consistent pass over every project, then one summary line. */
import type { SyncReport } from '../../mirror/index.js';
import type { TokenView } from '../../tokens/index.js';
import type { CommandBody } from '../command.js';
import { ONE_SHOT_OPTIONS, withCommonOptions } from '../common-options.js';
import { ProgressWatch, systemClock } from '../../domain/index.js';
import { abortOnSignals, type Interrupt } from '../interrupt.js';
import { EXIT_FAILED, EXIT_OK } from '../exit.js';
import { parseMsBound } from '../options.js';
import { createProgressView } from '../progress.js';
import { openSession } from '../session.js';
import { syncSummary, syncSummaryLine } from '../summary.js';

/** A one-shot sync waits through burst pauses, not for a quota day to end. */
export const SYNC_MAX_WAIT_MS = 2 * 60 * 1000;

/**
 * What `sync` says on stderr: at a stall or the deadline one line alone; else a warning per
 * refused token (naming the tokens its projects went through), the listing's failure, and one
 * line per failed project.
 */
export function syncProblemLines(
  report: SyncReport,
  interrupt: Interrupt,
  tokens: readonly TokenView[] = [],
): string[] {
  if (interrupt.bound) return [`sync: ${interrupt.bound.message}`];
  const lines: string[] = [];
  if (report.error) lines.push(report.error);
  const through = tokens.filter((token) => !token.refused && token.projects.length > 0);
  const others =
    through.length === 0
      ? 'no other token sees them'
      : `its projects went through ${through.map((token) => `"${token.label}"`).join(', ')}`;
  for (const { label, status } of report.refusedTokens ?? []) {
    lines.push(`warning: token "${label}" refused (${status}); ${others}`);
  }
  if (report.listingError && !report.refusedTokens) lines.push(report.listingError);
  for (const failed of report.projects.filter((project) => !project.ok)) {
    lines.push(`project ${failed.projectId}: ${failed.error}`);
  }
  return lines;
}

export const body: CommandBody = {
  builder: (yargs) =>
    withCommonOptions(yargs, ONE_SHOT_OPTIONS).option('json', {
      type: 'boolean',
      default: false,
      describe: 'end with a JSON summary object on stdout instead of the summary line',
    }),
  handler: async (args) => {
    const started = Date.now();
    const deadlineMs = parseMsBound(args['deadlineMs'], 'deadline-ms');
    const stallMs = parseMsBound(args['stallMs'], 'stall-ms');
    const watch = new ProgressWatch(systemClock);
    const session = await openSession(args, { maxWaitMs: SYNC_MAX_WAIT_MS, progress: watch });
    const { engine, logger, settings } = session;
    const view = createProgressView(
      process.stderr,
      logger,
      () => engine.quotaRemaining(),
      session.logLines,
    );
    engine.onProgress((progress) => view.update(progress));
    const interrupt = abortOnSignals({ deadlineMs, startedAt: started, stallMs, watch });
    try {
      const report = await engine.mirror.syncAll(settings.projects, { signal: interrupt.signal });
      view.stop();
      logger.info({ requests: report.requests, projects: report.projects.length }, 'sync done');
      for (const line of syncProblemLines(report, interrupt, engine.tokens())) session.say(line);
      const summary = syncSummary(report, Date.now() - started);
      process.stdout.write(
        `${args['json'] ? JSON.stringify(summary) : syncSummaryLine(summary)}\n`,
      );
      return report.ok && !interrupt.bound ? EXIT_OK : EXIT_FAILED;
    } finally {
      interrupt.dispose();
      view.stop();
      await session.close();
    }
  },
};
