/** Logs connection failures without flooding: each new problem once, its repeats at debug. */
import type { Logger } from 'pino';
import { errorLine } from '../domain/index.js';
import { isTokenRefusal } from './connection.js';

/** The logger methods the realtime listener uses; a pino logger fits. */
export type RealtimeLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * Remembers the last failure line: a new one is logged at warn (error when the token was
 * refused), the same one again only at debug, until a connection succeeds.
 */
export class ProblemLog {
  private last: string | undefined;
  private repeats = 0;

  constructor(private readonly logger: RealtimeLogger) {}

  /** Logs one failed attempt and the pause before the next. */
  failed(error: unknown, retryInMs: number): void {
    const line = errorLine(error);
    const fields = { retryInMs };
    if (line === this.last) {
      this.repeats += 1;
      this.logger.debug({ ...fields, repeats: this.repeats }, line);
      return;
    }
    this.last = line;
    this.repeats = 0;
    if (isTokenRefusal(error)) this.logger.error(fields, line);
    else this.logger.warn(fields, line);
  }

  /** Forgets the last problem after a connection opened. */
  clear(): void {
    this.last = undefined;
    this.repeats = 0;
  }
}
