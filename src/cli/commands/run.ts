/**
 * `projmirror run`: the daemon. SIGTERM and SIGINT finish the transaction in hand, close the
 * socket and the database, and exit 0 within 5 s; SIGHUP reloads the config file's log level.
 */
import { readFileSync } from 'node:fs';
import { errorLine, UsageError } from '../../domain/index.js';
import { Daemon } from '../../daemon/daemon.js';
import { DaemonMetrics, startMetricsServer, type MetricsServer } from '../../daemon/metrics.js';
import { checkCron } from '../../daemon/schedules.js';
import type { CliCommand } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { REMOTE_OPTIONS, withCommonOptions } from '../common-options.js';
import { openSession } from '../session.js';

/** The daemon must be gone this long after SIGTERM, whatever is in flight. */
export const STOP_DEADLINE_MS = 4_500;

export const runCommand: CliCommand = {
  command: 'run',
  describe: 'the daemon: initial sync, realtime, budgeted polling, outbox pushing, reconcile',
  builder: (yargs) =>
    withCommonOptions(yargs, [
      ...REMOTE_OPTIONS,
      'metrics-port',
      'metrics-host',
      'reconcile-cron',
      'history-retention-days',
      'token-refused-minutes',
    ]),
  handler: async (args) => {
    const checked = checkRunOptions(args);
    const session = openSession(args);
    const { engine, logger, settings } = session;
    const daemon = new Daemon({
      engine,
      db: engine.db,
      logger,
      projects: settings.projects,
      realtime: settings.realtimeUrl && {
        url: settings.realtimeUrl,
        token: settings.token,
        caFile: settings.caFile,
      },
      reconcileCron: checked.reconcileCron,
      historyRetentionDays: checked.retentionDays,
    });
    const stopped = waitForStop(args, logger);
    let failure: unknown;
    let server: MetricsServer | undefined;
    try {
      if (checked.metricsPort !== undefined) {
        const metrics = new DaemonMetrics(daemon.metricsSources());
        engine.onResponse((metric) => metrics.recordResponse(metric.route, metric.status));
        server = await startMetricsServer(metrics, checked.metricsPort, () => ({
          ok: settings.realtimeUrl === undefined || daemon.connected,
          detail: { realtime: daemon.connected },
        }));
        logger.info({ port: server.port }, 'metrics listening on 127.0.0.1');
      }
      // A signal during the initial sync stops it too: start() is not awaited; the daemon's
      // stop() aborts it and awaits what it started.
      const starting = daemon.start();
      starting.catch((error: unknown) => {
        failure = error;
        stopped.stop();
      });
      await stopped.signal;
      if (failure !== undefined) throw failure;
    } finally {
      stopped.dispose();
      const deadline = setTimeout(() => {
        logger.warn('stop deadline reached; exiting');
        process.exit(EXIT_OK);
      }, STOP_DEADLINE_MS);
      deadline.unref();
      await daemon.stop();
      await server?.close();
      await session.close();
      clearTimeout(deadline);
      logger.info('daemon stopped');
    }
    return EXIT_OK;
  },
};

/** The run options beyond the common ones, checked before anything is opened. */
function checkRunOptions(args: Record<string, unknown>) {
  const reconcileCron = String(args['reconcileCron']);
  checkCron(reconcileCron);
  const retentionDays = Number(args['historyRetentionDays']);
  if (!Number.isFinite(retentionDays) || retentionDays <= 0) {
    throw new UsageError(
      `--history-retention-days ${String(args['historyRetentionDays'])} is not a positive number`,
    );
  }
  const metricsPort = args['metricsPort'] as number | undefined;
  if (
    metricsPort !== undefined &&
    !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort < 65536)
  ) {
    throw new UsageError(`--metrics-port ${String(metricsPort)} is not a port number`);
  }
  return { reconcileCron, retentionDays, metricsPort };
}

/** Resolves on SIGTERM or SIGINT; reloads the config file's log level on SIGHUP. */
function waitForStop(args: Record<string, unknown>, logger: import('pino').Logger) {
  let resolveStop: () => void = () => {};
  const signal = new Promise<void>((resolve) => (resolveStop = resolve));
  const stop = (name: NodeJS.Signals) => {
    logger.info({ signal: name }, 'stopping');
    resolveStop();
  };
  const reload = () => {
    const file = args['config'];
    if (typeof file !== 'string') {
      logger.info('SIGHUP: no --config file to reload');
      return;
    }
    try {
      const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const level = config['log-level'] ?? config['logLevel'];
      if (typeof level === 'string' && logger.levels.values[level] !== undefined)
        logger.level = level;
      logger.info({ file, logLevel: logger.level }, 'SIGHUP: config reloaded');
    } catch (error) {
      logger.warn({ file, err: errorLine(error) }, 'SIGHUP: config not reloaded');
    }
  };
  process.on('SIGTERM', stop).on('SIGINT', stop).on('SIGHUP', reload);
  return {
    signal,
    stop: () => resolveStop(),
    dispose: () => {
      process.off('SIGTERM', stop).off('SIGINT', stop).off('SIGHUP', reload);
    },
  };
}
