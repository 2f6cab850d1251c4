/**
 * One request and its answer: adds the headers every response carries (trace id, CORS, quota),
 * writes the answer or drops the socket, and records the request in the log.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock, RouteName } from '../../domain/index.js';
import type { RequestLog } from '../request-log.js';
import { JSON_CONTENT_TYPE, type SimResponse } from './response.js';

/** Readable by cross-origin JavaScript (spec 4.3 plus the quota and replay headers). */
export const EXPOSED_HEADERS = [
  'ETag',
  'X-Total-Count',
  'X-Trace-Id',
  'Retry-After',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'Idempotent-Replayed',
  'Location',
].join(', ');

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
};

const LOGGED_HEADERS = ['if-none-match', 'idempotency-key', 'content-type'];
const TRACE_ID_BYTES = 8;

/** The header naming a response's trace id (spec 7 rule 2). */
export const TRACE_ID_HEADER = 'X-Trace-Id';

/** A fresh trace id for one answer, HTTP or WebSocket upgrade. */
export function newTraceId(): string {
  return randomBytes(TRACE_ID_BYTES).toString('hex');
}

/** A request in flight. */
export class Exchange {
  readonly traceId = newTraceId();
  route: RouteName | 'realtime' | undefined;
  tokenHash: string | undefined;
  fault: string | undefined;
  /** Set once the request is counted: the quota headers, computed when the answer goes out. */
  quotaHeaders: (() => Record<string, string>) | undefined;
  private finished = false;

  constructor(
    readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly log: RequestLog,
    private readonly clock: Clock,
  ) {}

  /** The client's IP address. */
  get ip(): string {
    return this.request.socket.remoteAddress ?? 'unknown';
  }

  /** Writes the answer with the common headers (once; later calls are ignored). */
  send(answer: SimResponse): void {
    if (this.finished) return;
    this.finished = true;
    const headers: Record<string, string> = {
      [TRACE_ID_HEADER]: this.traceId,
      ...CORS_HEADERS,
      ...this.quotaHeaders?.(),
      ...answer.headers,
    };
    if (answer.body !== undefined && !hasHeader(headers, 'content-type')) {
      headers['Content-Type'] = JSON_CONTENT_TYPE;
    }
    if (answer.body !== undefined)
      headers['Content-Length'] = String(Buffer.byteLength(answer.body));
    this.record(answer.status, errorCode(answer), false);
    if (this.response.destroyed) return;
    this.response.writeHead(answer.status, headers);
    this.response.end(answer.body);
  }

  /** Destroys the socket without answering. */
  drop(): void {
    if (this.finished) return;
    this.finished = true;
    this.record(0, undefined, true);
    this.request.socket.destroy();
  }

  private record(status: number, code: string | undefined, dropped: boolean): void {
    const headers: Record<string, string> = {};
    for (const name of LOGGED_HEADERS) {
      const value = this.request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    this.log.record({
      time: this.clock.now(),
      method: this.request.method ?? '',
      path: this.request.url ?? '',
      route: this.route,
      status,
      code,
      dropped,
      fault: this.fault,
      tokenHash: this.tokenHash,
      ip: this.ip,
      traceId: this.traceId,
      headers,
    });
  }
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function errorCode(answer: SimResponse): string | undefined {
  if (answer.status < 400 || answer.body === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(answer.body);
    const code = (parsed as { code?: unknown } | null)?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The answer to a CORS preflight. */
export function preflight(): SimResponse {
  return {
    status: 204,
    headers: {
      'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, If-None-Match',
      'Access-Control-Max-Age': '600',
    },
  };
}
