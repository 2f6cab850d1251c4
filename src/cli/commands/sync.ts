/** `projmirror sync`: one full, consistent pass over every project, then one summary line. */
import type { CliCommand } from '../command.js';
import { abortOnSignals } from '../interrupt.js';
import { EXIT_FAILED, EXIT_OK } from '../exit.js';
import { withRemoteOptions } from '../options.js';
import { createProgressView } from '../progress.js';
import { openSession } from '../session.js';
import { syncSummary, syncSummaryLine } from '../summary.js';

/** A one-shot sync waits through burst pauses, not for a quota day to end. */
export const SYNC_MAX_WAIT_MS = 2 * 60 * 1000;

export const syncCommand: CliCommand = {
  command: 'sync',
  describe: 'one full, consistent pass over every project, then exit',
  builder: (yargs) =>
    withRemoteOptions(yargs).option('json', {
      type: 'boolean',
      default: false,
      describe:
        'end with a JSON summary object on stdout instead of the summary line (logs go to stderr)',
    }),
  handler: async (args) => {
    const started = Date.now();
    const session = await openSession(args, { maxWaitMs: SYNC_MAX_WAIT_MS });
    const { engine, logger, settings } = session;
    const view = createProgressView(
      process.stderr,
      logger,
      () => engine.quotaRemaining(),
      session.logLines,
    );
    engine.onProgress((progress) => view.update(progress));
    const interrupt = abortOnSignals();
    try {
      const report = await engine.mirror.syncAll(settings.projects, { signal: interrupt.signal });
      view.stop();
      logger.info({ requests: report.requests, projects: report.projects.length }, 'sync done');
      if (report.error) process.stderr.write(`projmirror: ${report.error}\n`);
      if (report.listingError) process.stderr.write(`projmirror: ${report.listingError}\n`);
      for (const failed of report.projects.filter((project) => !project.ok)) {
        process.stderr.write(`projmirror: project ${failed.projectId}: ${failed.error}\n`);
      }
      const summary = syncSummary(report, Date.now() - started);
      process.stdout.write(
        `${args['json'] ? JSON.stringify(summary) : syncSummaryLine(summary)}\n`,
      );
      return report.ok ? EXIT_OK : EXIT_FAILED;
    } finally {
      interrupt.dispose();
      view.stop();
      await session.close();
    }
  },
};
