/**
 * What every networked command opens: checked settings, the logger, and the wired engine over
 * the mirror file, closed together.
 */
import pino, { type Logger } from 'pino';
import { createLogger, stdoutIsJournal, type LogFormat } from '../daemon/logger.js';
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
  /** Writes a line of the command's outcome on stderr (`CommandLogger.say`). */
  say(line: string): void;
  engine: Engine;
  /** Closes the engine; `abandon` leaves a unit waiting on the database to its rollback. */
  close(options?: { abandon?: boolean }): Promise<void>;
}

/** Where a command's log lines go, and how they look. */
export interface CommandLogger {
  logger: Logger;
  logLines: TerminalLogLines | undefined;
  /**
   * Writes one line of the command's own outcome on stderr (`project p_1: ...`, `warning: ...`):
   * plain after `projmirror: `, or with `--log-format json` a JSON line at warn or error.
   */
  say(line: string): void;
}

const WARNING = 'warning: ';

/** `say` of a command logging in `format`. */
function sayer(format: LogFormat, logger: Logger): (line: string) => void {
  if (format !== 'json') return (line) => process.stderr.write(`projmirror: ${line}\n`);
  return (line) => {
    if (line.startsWith(WARNING)) logger.warn(line.slice(WARNING.length));
    else logger.error(line);
  };
}

/** Where a command's log lines go: `run` to stdout (journald), one-shot commands to stderr. */
export type LogStream = 'stdout' | 'stderr';

/** The level a command logs at unless `--log-level` says: only what needs a person, in plain lines. */
export const DEFAULT_PLAIN_LOG_LEVEL = 'warn';
/** The level of JSON lines unless `--log-level` says. */
export const DEFAULT_JSON_LOG_LEVEL = 'info';

/**
 * The logger of a command. A one-shot command logs on stderr, so its stdout is its result alone
 * (piped or not): plain lines a person reads, warnings and errors only unless `--log-level` says,
 * or JSON lines with `--log-format json`; on a terminal they are printed around the progress bar.
 * `run` logs JSON on stdout, with syslog priorities when stdout is the journal (readable lines
 * when stdout is a terminal).
 */
export function openCommandLogger(
  args: Record<string, unknown>,
  secrets: readonly string[] = [],
  to: LogStream = 'stderr',
): CommandLogger {
  const format: LogFormat =
    to === 'stdout' ? 'json' : args['logFormat'] === 'json' ? 'json' : 'plain';
  const fallback = format === 'plain' ? DEFAULT_PLAIN_LOG_LEVEL : DEFAULT_JSON_LOG_LEVEL;
  const level = String(args['logLevel'] ?? fallback);
  const common = { level, secret: secrets };
  const stream = to === 'stdout' ? process.stdout : process.stderr;
  if (stream.isTTY) {
    const logLines = new TerminalLogLines(stream);
    const onTerminal = to === 'stdout' ? 'pretty' : format;
    const logger = createLogger({ ...common, destination: logLines, format: onTerminal });
    return { logger, logLines, say: sayer(format, logger) };
  }
  if (to === 'stderr') {
    const stderr = pino.destination({ dest: 2, sync: true });
    const logger = createLogger({ ...common, destination: stderr, format });
    return { logger, logLines: undefined, say: sayer(format, logger) };
  }
  const logger = createLogger({ ...common, syslogPrefix: stdoutIsJournal() });
  return { logger, logLines: undefined, say: sayer(format, logger) };
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
  const { logger, logLines, say } = openCommandLogger(args, secrets, logTo);
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
  return { settings, logger, logLines, say, engine, close: (options) => engine.close(options) };
}
