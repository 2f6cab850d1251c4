/** The one pino root logger; subsystems take `logger.child({ subsystem })`. */
import { fstatSync } from 'node:fs';
import pino, { type DestinationStream, type Logger } from 'pino';
import { isColorSupported, prettyFactory } from 'pino-pretty';

/** Paths pino blanks out in every line, wherever a token could hide. */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
];

/**
 * The syslog priority of each level (RFC 5424: 2 crit, 3 err, 4 warning, 6 info, 7 debug), which
 * journald takes from a `<N>` prefix, so that `journalctl -p warning` shows warnings and errors.
 */
export const SYSLOG_PRIORITIES: Readonly<Record<string, number>> = {
  fatal: 2,
  error: 3,
  warn: 4,
  info: 6,
  debug: 7,
  trace: 7,
};

/**
 * How lines are written: JSON (one object per line), readable single lines with every field for
 * a terminal (`pretty`), or the plain lines of a one-shot command (`plain`: see `plainLine`).
 */
export type LogFormat = 'json' | 'pretty' | 'plain';

/** Level, destination, format and the secret to scrub from every line. */
export interface LoggerOptions {
  level: string;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
  /** The token (or every token), as a last line of defence: any occurrence in a line is replaced. */
  secret?: string | readonly string[];
  /** `json` by default. */
  format?: LogFormat;
  /** Prefix each line with its syslog priority (`<4>`), as journald reads stdout. */
  syslogPrefix?: boolean;
}

/**
 * Creates the root logger: the level as a name (`"level":"warn"`), token paths redacted, the
 * token text itself scrubbed; JSON lines unless told `pretty`.
 */
export function createLogger(options: LoggerOptions): Logger {
  let stream = options.destination ?? pino.destination({ dest: 1, sync: true });
  if (options.syslogPrefix) stream = withSyslogPriority(stream);
  if (options.format === 'pretty') stream = prettyLines(stream);
  if (options.format === 'plain') stream = plainLines(stream);
  const secrets = [options.secret ?? []].flat().filter((secret) => secret !== '');
  if (secrets.length > 0) stream = scrubbed(stream, secrets);
  return pino(
    {
      level: options.level,
      base: { service: 'projmirror' },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
}

/**
 * Replaces every occurrence of each secret in a line, as written and as JSON escapes it (a token
 * holding a quote or a backslash appears escaped in a JSON line), whatever field carries it.
 */
function scrubbed(destination: DestinationStream, secrets: readonly string[]): DestinationStream {
  const forms = [
    ...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)])),
  ];
  return {
    write: (line: string) =>
      destination.write(forms.reduce((text, form) => text.split(form).join('[REDACTED]'), line)),
  };
}

function withSyslogPriority(destination: DestinationStream): DestinationStream {
  return {
    write: (line: string) => {
      const level = /"level":"(\w+)"/.exec(line)?.[1] ?? 'info';
      destination.write(`<${SYSLOG_PRIORITIES[level] ?? SYSLOG_PRIORITIES['info']}>${line}`);
    },
  };
}

/** Each JSON line as one readable line: time, level, message, then the other fields. */
function prettyLines(destination: DestinationStream): DestinationStream {
  const pretty = prettyFactory({
    colorize: isColorSupported,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'service',
  });
  return { write: (line: string) => destination.write(pretty(line)) };
}

/** What a plain line says before its message, by level. */
const PLAIN_LEVELS: Readonly<Record<string, string>> = {
  fatal: 'error: ',
  error: 'error: ',
  warn: 'warning: ',
  info: '',
  debug: 'debug: ',
  trace: 'debug: ',
};

/** Fields a plain line says in its own words, or never (pino's own). */
const PLAIN_SAID = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'subsystem',
  'service',
  'projectId',
  'tokenLabel',
  'item',
  'op',
  'err',
  'error',
  'reason',
  'code',
]);

/**
 * A JSON line as a person reads it: `projmirror: warning: project p_1: pass failed: <error>`.
 * The level (info says none), the project or token it concerns, the message and its error; at
 * debug, the other fields follow as `key=value` (`route=listTasks status=200`), since a debug line
 * is read for them; above it they are for `--log-format json`.
 */
export function plainLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const text = (key: string) => (typeof entry[key] === 'string' ? entry[key] : undefined);
  const label = text('tokenLabel');
  const item = typeof entry['item'] === 'number' ? `item ${entry['item']} ${text('op') ?? ''}` : '';
  const subject = [
    text('projectId') === undefined ? '' : `project ${text('projectId')}: `,
    label === undefined ? '' : `token "${label}": `,
    item === '' ? '' : `${item.trim()}: `,
  ].join('');
  const error = text('err') ?? text('error') ?? text('reason') ?? text('code');
  const message = `${text('msg') ?? ''}${error === undefined ? '' : `: ${error}`}`;
  const level = text('level') ?? 'info';
  const details =
    level === 'debug' || level === 'trace'
      ? Object.entries(entry)
          .filter(([key, value]) => !PLAIN_SAID.has(key) && value !== undefined)
          .map(
            ([key, value]) =>
              ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
          )
          .join('')
      : '';
  return `projmirror: ${PLAIN_LEVELS[level] ?? ''}${subject}${message}${details}\n`;
}

function plainLines(destination: DestinationStream): DestinationStream {
  return { write: (line: string) => destination.write(plainLine(line)) };
}

/**
 * True when stdout is the journal's stream: systemd sets `JOURNAL_STREAM` to its `device:inode`
 * (the check systemd.exec(5) prescribes, so that a shell started from a service does not count).
 */
export function stdoutIsJournal(env: NodeJS.ProcessEnv = process.env, fd = 1): boolean {
  const expected = env['JOURNAL_STREAM'];
  if (expected === undefined || expected === '') return false;
  try {
    const stat = fstatSync(fd);
    return `${stat.dev}:${stat.ino}` === expected;
  } catch {
    return false;
  }
}
