/** `projmirror push`: send every pending outbox item once, then exit. */
import { runningDaemonPid } from '../../daemon/daemon.js';
import { createPusher } from '../../daemon/wiring.js';
import { UsageError } from '../../domain/index.js';
import type { PushReport } from '../../outbox/index.js';
import type { CliCommand } from '../command.js';
import { abortOnSignals } from '../interrupt.js';
import { EXIT_FAILED, EXIT_OK } from '../exit.js';
import { withRemoteOptions } from '../options.js';
import { openSession } from '../session.js';

/** A one-shot push waits through burst pauses and 429s, not for a quota day to end. */
export const PUSH_MAX_WAIT_MS = 2 * 60 * 1000;

/** The closing line on stderr when items failed or are left pending; undefined when all done. */
export function pushProblemLine(report: PushReport): string | undefined {
  const parts: string[] = [];
  if (report.failed > 0) {
    parts.push(`${report.failed} item(s) failed (see projmirror outbox list --state failed)`);
  }
  if (report.pending > 0) parts.push(`${report.pending} item(s) left pending`);
  return parts.length === 0 ? undefined : `projmirror: push: ${parts.join('; ')}`;
}

export const pushCommand: CliCommand = {
  command: 'push',
  describe: 'send every pending outbox item once, then exit',
  builder: (yargs) => withRemoteOptions(yargs),
  handler: async (args) => {
    const session = openSession(args, { maxWaitMs: PUSH_MAX_WAIT_MS });
    const { engine, logger, db } = session;
    const daemonPid = runningDaemonPid(db);
    if (daemonPid !== undefined) {
      await session.close();
      throw new UsageError(
        `projmirror run (pid ${daemonPid}) pushes this mirror's outbox; stop it before running push`,
      );
    }
    const pusher = createPusher(engine, db, logger, { maxRateLimitWaitMs: PUSH_MAX_WAIT_MS });
    const interrupt = abortOnSignals();
    try {
      const report = await pusher.pushOnce({ signal: interrupt.signal, ignoreBackoff: true });
      logger.info({ ...report }, 'push done');
      const problem = pushProblemLine(report);
      if (problem !== undefined) process.stderr.write(`${problem}\n`);
      return report.pending === 0 ? EXIT_OK : EXIT_FAILED;
    } finally {
      interrupt.dispose();
      await session.close();
    }
  },
};
