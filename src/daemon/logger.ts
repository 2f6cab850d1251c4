/** The one pino root logger; subsystems take `logger.child({ subsystem })`. */
import pino, { type DestinationStream, type Logger } from 'pino';

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

/** Level, destination and the secret to scrub from every line. */
export interface LoggerOptions {
  level: string;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
  /** The token, as a last line of defence: any occurrence in a line is replaced. */
  secret?: string;
}

/** Creates the root logger: JSON lines, token paths redacted, the token text itself scrubbed. */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const secret = options.secret;
  const stream: DestinationStream =
    secret === undefined || secret === ''
      ? destination
      : { write: (line: string) => destination.write(line.split(secret).join('[REDACTED]')) };
  return pino(
    {
      level: options.level,
      base: { service: 'projmirror' },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    stream,
  );
}
