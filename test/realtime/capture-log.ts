/** A pino logger that keeps its lines in memory, for asserting what was (and was not) logged. */
import pino, { type Logger } from 'pino';

/** One parsed log line. */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** pino's numeric levels. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A debug-level logger and the lines it wrote. */
export function captureLogger(): { logger: Logger; lines: LogLine[]; text: () => string } {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return { logger, lines, text: () => raw.join('') };
}
