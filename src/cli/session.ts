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

/** Where a command's log lines go: `run` to stdout (journald), one-shot commands to stderr. */
export type LogStream = 'stdout' | 'stderr';

/**
 * The logger of a command. A one-shot command logs on stderr, so its stdout is its result alone
 * (piped or not); `run` logs on stdout, with syslog priorities when stdout is the journal. Lines
 * are JSON, or readable ones when their stream is a terminal (where a progress bar may be).
 */
export function openCommandLogger(
  args: Record<string, unknown>,
  secrets: readonly string[] = [],
  to: LogStream = 'stderr',
): CommandLogger {
  const level = String(args['logLevel'] ?? 'info');
  const common = { level, secret: secrets };
  const stream = to === 'stdout' ? process.stdout : process.stderr;
  if (stream.isTTY) {
    const logLines = new TerminalLogLines(stream);
    return {
      logger: createLogger({ ...common, destination: logLines, format: 'pretty' }),
      logLines,
    };
  }
  if (to === 'stderr') {
    const stderr = pino.destination({ dest: 2, sync: true });
    return { logger: createLogger({ ...common, destination: stderr }), logLines: undefined };
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
  logTo: LogStream = 'stderr',
): Promise<Session> {
  const settings = resolveRemoteSettings(args);
  const timezone = parseTimeZone(args['timezone']);
  const secrets = settings.tokens.map((token) => token.secret);
  const { logger, logLines } = openCommandLogger(args, secrets, logTo);
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
