/**
 * One HTTP exchange with the service, without policy: builds the URL and headers (bearer token,
 * JSON content type, `If-None-Match`, `Idempotency-Key`), reads the body within its bound and the
 * whole exchange within the request deadline, times it, reports the metric, and turns a failure
 * to get an answer into a typed error. No text of the service that echoes the token goes further.
 */
import type { Agent, Dispatcher } from 'undici';
import {
  describeContext,
  expandPath,
  MalformedResponseError,
  NetworkError,
  ProjmirrorError,
  type RemoteContext,
  type Route,
  type RouteName,
} from '../domain/index.js';
import { MAX_ERROR_BODY_BYTES } from './bounds.js';
import { toNetworkError } from './network-errors.js';
import { serviceCode } from './responses.js';
import type { ResolvedOptions } from './options.js';

/** What replaces the token in the text of an error answer. */
export const TOKEN_PLACEHOLDER = '[token]';

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
  /** Called as the request is handed to the connection (see `CallOptions.onSent`). */
  onSent?: () => void;
  /** The largest body of a 2xx answer, in bytes; a longer one is a malformed response. */
  maxBodyBytes: number;
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

/** True for the statuses whose body is an answer to use: 2xx, and 304 to a conditional GET. */
function isAnswer(status: number): boolean {
  return (status >= 200 && status < 300) || status === 304;
}

/** The body as text: the whole of it within `maxBytes`, else its first `maxBytes` and `over`. */
async function readBody(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<{ text: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), over: true };
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), over: false };
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

  /**
   * Sends one request and reads its response within the request deadline. A 2xx body past
   * `maxBodyBytes` is a `MalformedResponseError`, read no further; an error answer's body is cut
   * at `MAX_ERROR_BODY_BYTES`. Throws `NetworkError` (the deadline included) or the abort reason.
   */
  async exchange(request: Exchange): Promise<RawResponse> {
    const { clock, onResponse, logger, requestDeadlineMs, progress } = this.options;
    const started = clock.now();
    const pending = progress.pending(`the answer to ${describeContext(request.context)}`);
    const deadline = new AbortController();
    // A transport timeout like undici's own: on real time, whatever clock the policy runs on.
    const timer = setTimeout(() => deadline.abort(), requestDeadlineMs);
    const signal = request.signal
      ? AbortSignal.any([request.signal, deadline.signal])
      : deadline.signal;
    let status = 0;
    try {
      request.onSent?.();
      const response = await this.agent.request({
        origin: this.origin,
        path: this.pathOf(request),
        method: request.route.method,
        headers: this.headersOf(request),
        body: request.body ?? null,
        signal,
      });
      status = response.statusCode;
      // The token is out of the text before anything (the metric's code included) reads it.
      const raw = this.withoutToken(await this.read(response, request), request.context);
      // A whole answer is progress; bytes trickled without end are not.
      progress.advanced();
      const ms = clock.now() - started;
      const code = serviceCode(raw);
      onResponse({ route: request.name, status, ms, ...(code === undefined ? {} : { code }) });
      logger.debug({ route: request.name, status, ms }, 'response');
      return raw;
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      onResponse({ route: request.name, status, ms: clock.now() - started });
      if (error instanceof ProjmirrorError) throw error;
      if (deadline.signal.aborted) {
        throw new NetworkError(
          request.context,
          `no whole answer within the request deadline of ${requestDeadlineMs} ms`,
          { cause: error },
        );
      }
      const redact = (text: string) => this.redact(text);
      throw toNetworkError(error, request.context, this.options.baseUrl.host, redact);
    } finally {
      clearTimeout(timer);
      pending.end();
    }
  }

  private async read(response: Dispatcher.ResponseData, request: Exchange): Promise<RawResponse> {
    const { statusCode: status, headers, body } = response;
    const answer = isAnswer(status);
    const maxBytes = answer ? request.maxBodyBytes : MAX_ERROR_BODY_BYTES;
    const tooLarge = () =>
      new MalformedResponseError(request.context, `body over ${maxBytes} bytes (the bound)`);
    const declared = Number(headers['content-length']);
    if (answer && Number.isFinite(declared) && declared > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    const { text, over } = await readBody(body, maxBytes);
    if (answer && over) throw tooLarge();
    return { status, headers, text };
  }

  /**
   * A response that echoes the token (in a header or the body) goes no further: as an answer it
   * is refused, since its data would carry the token into the mirror and every line naming it;
   * as an error, its text has the token replaced before any message is made of it.
   */
  private withoutToken(response: RawResponse, context: RemoteContext): RawResponse {
    const { token } = this.options;
    const headerText = Object.values(response.headers).flat().join('\n');
    if (token === '' || (!headerText.includes(token) && !response.text.includes(token))) {
      return response;
    }
    if (isAnswer(response.status)) {
      throw new MalformedResponseError(
        context,
        'the answer holds the token, so it is refused (the token must reach no log nor the mirror)',
      );
    }
    const redact = (text: string) => this.redact(text);
    const headers: RawResponse['headers'] = {};
    for (const [name, value] of Object.entries(response.headers)) {
      headers[name] = Array.isArray(value) ? value.map(redact) : value && redact(value);
    }
    return { status: response.status, headers, text: redact(response.text) };
  }

  /** `text` with every occurrence of the token (and so of `Bearer <token>`) replaced. */
  private redact(text: string): string {
    const { token } = this.options;
    return token === '' ? text : text.split(token).join(TOKEN_PLACEHOLDER);
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
