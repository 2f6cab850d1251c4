/**
 * One HTTP exchange with the service, without policy: builds the URL and headers (bearer token,
 * JSON content type, `If-None-Match`, `Idempotency-Key`), reads the whole body, times it, reports
 * the metric, and turns a failure to get an answer into a typed error.
 */
import type { Agent } from 'undici';
import { expandPath, type RemoteContext, type Route, type RouteName } from '../domain/index.js';
import { toNetworkError } from './network-errors.js';
import type { ResolvedOptions } from './options.js';

/** One request to send. */
export interface Exchange {
  name: RouteName;
  route: Route;
  params: Record<string, string>;
  query?: Record<string, string | number>;
  etag?: string;
  body?: string;
  idempotencyKey?: string;
  context: RemoteContext;
  signal?: AbortSignal;
}

/** A whole response: status, lower-cased headers, and the body as text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The first value of a response header. */
export function header(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Sends exchanges through one agent. */
export class Transport {
  private readonly origin: string;
  private readonly basePath: string;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly agent: Agent,
  ) {
    this.origin = options.baseUrl.origin;
    this.basePath = options.baseUrl.pathname;
  }

  /** Sends one request and reads its whole response. Throws `NetworkError` or the abort reason. */
  async exchange(request: Exchange): Promise<RawResponse> {
    const { clock, onResponse, logger } = this.options;
    const started = clock.now();
    try {
      const response = await this.agent.request({
        origin: this.origin,
        path: this.pathOf(request),
        method: request.route.method,
        headers: this.headersOf(request),
        body: request.body ?? null,
        signal: request.signal ?? null,
      });
      const text = await response.body.text();
      const ms = clock.now() - started;
      onResponse({ route: request.name, status: response.statusCode, ms });
      logger.debug({ route: request.name, status: response.statusCode, ms }, 'response');
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      onResponse({ route: request.name, status: 0, ms: clock.now() - started });
      throw toNetworkError(error, request.context, this.options.baseUrl.host);
    }
  }

  private pathOf(request: Exchange): string {
    let path = this.basePath + expandPath(request.route.path, request.params);
    if (request.query) {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(request.query)) search.set(key, String(value));
      path += `?${search.toString()}`;
    }
    return path;
  }

  private headersOf(request: Exchange): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.options.token}`,
      'user-agent': this.options.userAgent,
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.etag !== undefined) headers['if-none-match'] = request.etag;
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    return headers;
  }
}
