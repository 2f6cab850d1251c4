/** A log of the requests the simulator answered, for tests to count and inspect. */
import type { RouteName } from '../domain/index.js';
import { hashToken } from './model/tokens.js';

/** One request as the simulator saw it. Tokens appear only as their SHA-256 hash. */
export interface RequestLogEntry {
  /** The simulator clock's time when the answer was sent. */
  time: number;
  method: string;
  /** Path and query as requested. */
  path: string;
  /** The operation, `realtime` for WebSocket upgrades, undefined when no operation matched. */
  route: RouteName | 'realtime' | undefined;
  /** The status answered; 0 when the socket was dropped without an answer. */
  status: number;
  /** The error body's `code`, when the answer was an error. */
  code: string | undefined;
  dropped: boolean;
  /** The injected fault that shaped the answer, if any. */
  fault: string | undefined;
  /** SHA-256 hex of the presented bearer token (issued or not). */
  tokenHash: string | undefined;
  ip: string;
  traceId: string;
  /** The request headers that matter: `if-none-match`, `idempotency-key`, `content-type`. */
  headers: Record<string, string>;
}

/** What `count` and `filter` match on; every given field must match. */
export interface RequestLogFilter {
  route?: RouteName | 'realtime';
  method?: string;
  status?: number;
  code?: string;
  dropped?: boolean;
  /** A token value (hashed before comparing). */
  token?: string;
  tokenHash?: string;
  /** A predicate over the entry. */
  where?: (entry: RequestLogEntry) => boolean;
}

/** The default number of entries kept, give or take 10% (older ones are forgotten first). */
export const DEFAULT_REQUEST_LOG_LIMIT = 100_000;

/** The most recent requests, oldest first. */
export class RequestLog {
  private readonly kept: RequestLogEntry[] = [];
  private recorded = 0;

  constructor(private readonly limit = DEFAULT_REQUEST_LOG_LIMIT) {}

  /** Appends an entry (the simulator calls this). */
  record(entry: RequestLogEntry): void {
    this.kept.push(entry);
    this.recorded += 1;
    // Trim in chunks so a full log costs O(1) per request on average.
    if (this.kept.length > this.limit * 1.1) this.kept.splice(0, this.kept.length - this.limit);
  }

  /** The kept entries, oldest first. */
  get entries(): readonly RequestLogEntry[] {
    return this.kept;
  }

  /** How many requests were ever recorded (including forgotten ones). */
  get total(): number {
    return this.recorded;
  }

  /** The kept entries matching `filter`. */
  filter(filter: RequestLogFilter = {}): RequestLogEntry[] {
    const tokenHash = filter.token === undefined ? filter.tokenHash : hashToken(filter.token);
    return this.kept.filter(
      (entry) =>
        (filter.route === undefined || entry.route === filter.route) &&
        (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
        (filter.status === undefined || entry.status === filter.status) &&
        (filter.code === undefined || entry.code === filter.code) &&
        (filter.dropped === undefined || entry.dropped === filter.dropped) &&
        (tokenHash === undefined || entry.tokenHash === tokenHash) &&
        (filter.where === undefined || filter.where(entry)),
    );
  }

  /** How many kept entries match `filter`. */
  count(filter: RequestLogFilter = {}): number {
    return this.filter(filter).length;
  }

  /** Forgets every entry. */
  clear(): void {
    this.kept.length = 0;
  }
}

/** What tests use of the log: reading, counting and clearing. */
export type RequestLogView = Pick<RequestLog, 'entries' | 'total' | 'filter' | 'count' | 'clear'>;
