/**
 * What every networked command opens: checked settings, the logger, and the wired engine over
 * the mirror file, closed together.
 */
import pino, { type Logger } from 'pino';
import { createLogger, stdoutIsJournal } from '../daemon/logger.js';
import { openEngine, type Engine, type EngineOptions } from '../daemon/wiring.js';
import {
  mirrorOptions,
  parseTimeZone,
  resolveRemoteSettings,
  type RemoteSettings,
} from './options.js';
import { TerminalLogLines } from './progress.js';
import { VERSION } from './version.js';

/** An open command session. */
export interface Session {
  settings: RemoteSettings;
  logger: Logger;
  /** On a terminal, where the logger writes: a progress bar registers with it. */
  logLines: TerminalLogLines | undefined;
  engine: Engine;
  /** Closes the engine; `abandon` leaves a unit waiting on the database to its rollback. */
  close(options?: { abandon?: boolean }): Promise<void>;
}

/** Where a command's log lines go, and how they look. */
export interface CommandLogger {
  logger: Logger;
  logLines: TerminalLogLines | undefined;
}

/**
 * The logger of a command: JSON lines on stdout (with syslog priorities when stdout is the
 * journal), readable lines on a terminal, and on stderr when stdout carries the command's own
 * `--json` output.
 */
export function openCommandLogger(
  args: Record<string, unknown>,
  secrets: readonly string[] = [],
): CommandLogger {
  const level = String(args['logLevel'] ?? 'info');
  const common = { level, secret: secrets };
  if (args['json'] === true) {
    const stderr = pino.destination({ dest: 2, sync: true });
    return { logger: createLogger({ ...common, destination: stderr }), logLines: undefined };
  }
  if (process.stdout.isTTY) {
    const logLines = new TerminalLogLines(process.stdout);
    return {
      logger: createLogger({ ...common, destination: logLines, format: 'pretty' }),
      logLines,
    };
  }
  return {
    logger: createLogger({ ...common, syslogPrefix: stdoutIsJournal() }),
    logLines: undefined,
  };
}

/** Checks the options (usage errors before any I/O), then opens the logger and the engine. */
export async function openSession(
  args: Record<string, unknown>,
  engineOptions: Omit<EngineOptions, 'db' | 'logger'> = {},
): Promise<Session> {
  const settings = resolveRemoteSettings(args);
  const timezone = parseTimeZone(args['timezone']);
  const secrets = settings.tokens.map((token) => token.secret);
  const { logger, logLines } = openCommandLogger(args, secrets);
  const engine = await openEngine(
    {
      baseUrl: settings.baseUrl,
      tokens: settings.tokens,
      caFile: settings.caFile,
      routes: args['routes'],
    },
    { ...engineOptions, ...mirrorOptions(args), version: VERSION, logger },
  );
  try {
    // Readers of the mirror (BI tools, report) take "today" from the zone recorded here.
    if (timezone !== undefined) await engine.store.state.recordTimeZone(timezone, Date.now());
  } catch (error) {
    await engine.close();
    throw error;
  }
  return { settings, logger, logLines, engine, close: (options) => engine.close(options) };
}
