/**
 * `projmirror run`: the daemon. SIGTERM and SIGINT finish the transaction in hand, close the
 * socket and the database, and exit 0 within 5 s; SIGHUP reloads the config file's log level.
 * Under systemd it reports READY=1 once the start-up reconcile has begun, and STOPPING=1; a token
 * the service refuses for `--token-refused-minutes` ends it with `EXIT_TOKEN_REFUSED`.
 */
import type { Logger } from 'pino';
import { errorLine, UsageError } from '../../domain/index.js';
import { Daemon } from '../../daemon/daemon.js';
import { DaemonMetrics, startMetricsServer, type MetricsServer } from '../../daemon/metrics.js';
import { checkCron, checkTimeZone } from '../../daemon/schedules.js';
import { TokenRefusalWatch } from '../../daemon/token-refusal.js';
import type { CommandBody } from '../command.js';
import {
  onConflictOf,
  readCommonConfig,
  REMOTE_OPTIONS,
  withCommonOptions,
} from '../common-options.js';
import { EXIT_OK, EXIT_TOKEN_REFUSED, ExitError } from '../exit.js';
import { openSession, type Session } from '../session.js';
import { notifySystemd, startWatchdog } from '../systemd-notify.js';
import { VERSION } from '../version.js';

/** The daemon must be gone this long after SIGTERM, whatever is in flight. */
export const STOP_DEADLINE_MS = 4_500;
/** After SIGTERM, work still waiting on the database this long is abandoned. */
export const ABANDON_AFTER_MS = 1_500;

type RunOptions = ReturnType<typeof checkRunOptions>;

export const body: CommandBody = {
  builder: (yargs) =>
    withCommonOptions(yargs, [
      // run logs JSON lines on stdout, whatever --log-format says.
      ...REMOTE_OPTIONS.filter((name) => name !== 'log-format'),
      'metrics-port',
      'metrics-host',
      'reconcile-cron',
      'reconcile-timezone',
      'history-retention-days',
      'changes-retention-days',
      'token-refused-minutes',
      'checkpoint-blocked-minutes',
      'on-conflict',
      'max-staleness',
    ]),
  handler: async (args) => {
    const checked = checkRunOptions(args);
    const session = await openSession(args, {}, 'stdout');
    const { engine, logger, settings } = session;
    logger.info(
      { version: VERSION, pid: process.pid, node: process.versions.node },
      'projmirror starting',
    );
    const daemon = new Daemon({
      engine,
      logger,
      projects: settings.projects,
      realtime: settings.realtimeUrl && {
        url: settings.realtimeUrl,
        tokens: settings.tokens,
        caFile: settings.caFile,
      },
      reconcileCron: checked.reconcileCron,
      reconcileTimezone: checked.reconcileTimezone,
      historyRetentionDays: checked.retentionDays,
      changesRetentionDays: checked.changesRetentionDays,
      checkpointBlockedMs: checked.checkpointBlockedMs,
      onConflict: onConflictOf(args),
      ...(checked.maxStalenessMs === undefined ? {} : { maxStalenessMs: checked.maxStalenessMs }),
    });
    const stopped = waitForStop(args, logger);
    let failure: unknown;
    const labels = settings.tokens.map((token) => token.label);
    const refusal = new TokenRefusalWatch(
      engine.clock,
      checked.tokenRefusedMs,
      (reason) => {
        failure = new ExitError(
          EXIT_TOKEN_REFUSED,
          `${reason}; exiting ${EXIT_TOKEN_REFUSED}, which the unit does not restart on: replace the token, then start projmirror again`,
        );
        stopped.stop();
      },
      labels,
    );
    engine.onResponse((metric) => refusal.observe(metric));
    let server: MetricsServer | undefined;
    let stopWatchdog = () => {};
    try {
      server = await serveMetrics(session, daemon, refusal, checked);
      // Alive while the event loop turns; a database outage the daemon reports is no reason to
      // restart it (the store waits on its own thread), a loop that does not turn is.
      stopWatchdog = startWatchdog(() => !refusal.refused, logger);
      // A signal during the initial sync stops it too: start() is not awaited; the daemon's
      // stop() aborts it and awaits what it started.
      const starting = daemon.start(() => void notifySystemd('ready', logger));
      starting.catch((error: unknown) => {
        failure ??= error;
        stopped.stop();
      });
      await stopped.signal;
    } finally {
      stopped.dispose();
      stopWatchdog();
      const deadline = setTimeout(() => {
        logger.warn('stop deadline reached; exiting');
        process.exit(EXIT_OK);
      }, STOP_DEADLINE_MS);
      deadline.unref();
      const stopping = notifySystemd('stopping', logger);
      // Work still waiting on the database this long after the signal (a lock held elsewhere, a
      // stalled connection) is abandoned: the database rolls back the unit in hand, and the next
      // start passes what it would have written.
      const abandon = setTimeout(() => void session.close({ abandon: true }), ABANDON_AFTER_MS);
      abandon.unref();
      await daemon.stop();
      clearTimeout(abandon);
      await server?.close();
      // A unit still waiting on the database (a lock held elsewhere, a stalled connection) is
      // abandoned: the database rolls it back, and the next start passes what it would have written.
      await session.close({
        abandon: !daemon.storeHealth().ok || engine.store.progress().depth > 0,
      });
      await stopping;
      clearTimeout(deadline);
      logger.info('daemon stopped');
    }
    if (failure !== undefined) throw failure;
    return EXIT_OK;
  },
};

/** Serves /metrics and /healthz when `--metrics-port` is given. */
async function serveMetrics(
  session: Session,
  daemon: Daemon,
  refusal: TokenRefusalWatch,
  checked: RunOptions,
): Promise<MetricsServer | undefined> {
  if (checked.metricsPort === undefined) return undefined;
  const { engine, logger, settings } = session;
  const metrics = new DaemonMetrics(daemon.metricsSources(), { version: VERSION });
  engine.onResponse((metric) =>
    metrics.recordResponse(metric.route, metric.status, metric.ms, metric.code, metric.token),
  );
  daemon.onStaleness((ms) => metrics.recordStaleness(ms));
  const server = await startMetricsServer(
    metrics,
    { host: checked.metricsHost, port: checked.metricsPort },
    () => {
      const store = daemon.storeHealth();
      // A reader blocking checkpoints degrades health but keeps it 200: the mirror is current.
      const wal = daemon.walBlocked();
      return {
        // Unhealthy at once when every token is refused, while configured realtime is down, and
        // while the database has completed no unit of work for longer than its bound.
        ok:
          !refusal.refused &&
          store.ok &&
          !daemon.diskFull &&
          (settings.realtimeUrl === undefined || daemon.connected),
        detail: {
          realtime: daemon.connected,
          database: store.ok ? 'ok' : store.reason,
          wal: wal ?? 'ok',
          disk: daemon.diskFull ? 'full' : 'ok',
          tokenRefused: refusal.refused,
          tokensRefused: refusal.refusedTokens(),
        },
      };
    },
  );
  logger.info({ host: server.host, port: server.port }, 'metrics listening');
  return server;
}

/** The run options beyond the common ones, checked before anything is opened. */
function checkRunOptions(args: Record<string, unknown>) {
  const reconcileCron = String(args['reconcileCron']);
  checkCron(reconcileCron);
  const reconcileTimezone = String(args['reconcileTimezone']);
  checkTimeZone(reconcileTimezone);
  const retentionDays = Number(args['historyRetentionDays']);
  if (!Number.isFinite(retentionDays) || retentionDays <= 0) {
    throw new UsageError(
      `--history-retention-days ${String(args['historyRetentionDays'])} is not a positive number`,
    );
  }
  const changesRetentionDays = Number(args['changesRetentionDays']);
  if (!Number.isFinite(changesRetentionDays) || changesRetentionDays <= 0) {
    throw new UsageError(
      `--changes-retention-days ${String(args['changesRetentionDays'])} is not a positive number`,
    );
  }
  const metricsPort = args['metricsPort'] as number | undefined;
  if (
    metricsPort !== undefined &&
    !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort < 65536)
  ) {
    throw new UsageError(`--metrics-port ${String(metricsPort)} is not a port number`);
  }
  const metricsHost = String(args['metricsHost']);
  if (metricsHost.trim() === '') throw new UsageError('--metrics-host is empty');
  const minutes = Number(args['tokenRefusedMinutes']);
  if (!Number.isFinite(minutes) || minutes < 0) {
    throw new UsageError(
      `--token-refused-minutes ${String(args['tokenRefusedMinutes'])} is not a number of minutes, 0 or more`,
    );
  }
  const blocked = Number(args['checkpointBlockedMinutes']);
  if (!Number.isFinite(blocked) || blocked <= 0) {
    throw new UsageError(
      `--checkpoint-blocked-minutes ${String(args['checkpointBlockedMinutes'])} is not a positive number of minutes`,
    );
  }
  const maxStaleness = args['maxStaleness'];
  return {
    checkpointBlockedMs: blocked * 60_000,
    reconcileCron,
    reconcileTimezone,
    retentionDays,
    changesRetentionDays,
    metricsPort,
    metricsHost,
    tokenRefusedMs: minutes * 60_000,
    maxStalenessMs: maxStaleness === undefined ? undefined : parseStaleness(String(maxStaleness)),
  };
}

/** Milliseconds per unit of `--max-staleness`. */
const STALENESS_UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The shortest bound: the plan never polls a project more often than once a minute anyway. */
const MIN_MAX_STALENESS_MS = 60_000;

/** `--max-staleness` as ms: a number with a unit (`45m`, `6h`, `1d`), at least a minute. */
function parseStaleness(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([mhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (STALENESS_UNITS_MS[match[2]!] ?? NaN) : NaN;
  if (!(ms >= MIN_MAX_STALENESS_MS)) {
    throw new UsageError(
      `--max-staleness ${JSON.stringify(value)} is not a duration of a minute or more (say 45m, 6h or 1d)`,
    );
  }
  return ms;
}

/** Resolves on SIGTERM or SIGINT; reloads the config file's log level on SIGHUP. */
function waitForStop(args: Record<string, unknown>, logger: Logger) {
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
      const level = readCommonConfig(file)['log-level'];
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
