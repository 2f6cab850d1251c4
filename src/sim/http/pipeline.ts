/**
 * The path of every HTTP request: CORS preflight, routing, injected faults, health, limits and
 * authentication, the body, the handler, and the answer with its common headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type RouteName } from '../../domain/index.js';
import { SimError, unauthorized, validationFailed } from '../errors.js';
import type { Faults } from '../faults.js';
import type { IdempotencyStore } from '../idempotency.js';
import type { Limits } from '../limits/limits.js';
import { hashToken, type TokenRecord } from '../model/tokens.js';
import type { RequestLog } from '../request-log.js';
import type { Core } from '../service/core.js';
import type { HandlerContext } from './context.js';
import { Exchange, preflight } from './exchange.js';
import { faultAnswer } from './fault-answers.js';
import { HANDLERS } from './handlers/index.js';
import { errorResponse, json } from './response.js';
import type { Router } from './router.js';

/** The version prefix every path starts with. */
export const BASE_PATH = '/v1';

/** Everything the pipeline needs, resolved once. */
export interface PipelineParts {
  core: Core;
  router: Router;
  limits: Limits;
  idempotency: IdempotencyStore;
  faults: Faults;
  log: RequestLog;
  maxBodyBytes: number;
  /** Added to every request (real time). */
  delayMs: number;
  paging: { defaultPageSize: number; maxPageSize: number };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The request listener of the simulator's HTTP(S) server. */
export function requestListener(parts: PipelineParts) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const exchange = new Exchange(request, response, parts.log, parts.core.clock);
    serve(exchange, parts).catch((error: unknown) => {
      if (error instanceof SimError) {
        exchange.send(errorResponse(error));
        return;
      }
      if (request.destroyed || response.destroyed) {
        exchange.drop(); // the client went away mid-request: nothing to answer
        return;
      }
      process.stderr.write(`simulator: internal error: ${String(error)}\n`);
      exchange.send(json(500, { code: 'internal_error', message: 'internal simulator error' }));
    });
  };
}

async function serve(exchange: Exchange, parts: PipelineParts): Promise<void> {
  const { request } = exchange;
  const method = request.method ?? 'GET';
  if (method === 'OPTIONS') return exchange.send(preflight());
  const url = new URL(request.url ?? '/', 'http://simulator');
  const path = url.pathname.startsWith(`${BASE_PATH}/`) ? url.pathname.slice(BASE_PATH.length) : '';
  const match = parts.router.match(method, path);
  if (match.kind === 'none')
    throw new SimError(404, 'not_found', `no operation at ${url.pathname}`);
  if (match.kind === 'method') {
    throw new SimError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`, {
      Allow: match.allowed.join(', '),
    });
  }
  const route = match.route;
  exchange.route = route;
  const faultRequest = { method, path: url.pathname, route };
  const delay = parts.delayMs + parts.faults.takeDelay(faultRequest);
  if (delay > 0) await systemClock.sleep(delay);
  const fault = parts.faults.takeFailure(faultRequest);
  exchange.fault = fault?.kind;
  if (fault?.kind === 'drop') return exchange.drop();
  if (fault !== undefined && fault.kind !== 'commitThenDrop') {
    return exchange.send(faultAnswer(fault, route));
  }
  if (route === 'health') return exchange.send(json(200, { status: 'ok' }));
  const token = admit(exchange, parts);
  const answer = await HANDLERS[route](
    await handlerContext(exchange, parts, route, token, match.params, url),
  );
  if (fault?.kind === 'commitThenDrop') return exchange.drop();
  exchange.send(answer);
}

/** Applies the IP limit, authentication and the token's limits; counts the request. */
function admit(exchange: Exchange, parts: PipelineParts): TokenRecord {
  const { limits } = parts;
  const ipRefusal = limits.checkIp(exchange.ip);
  if (ipRefusal !== undefined) throw ipRefusal;
  const value = bearerToken(exchange.request.headers.authorization);
  exchange.tokenHash = value === undefined ? undefined : hashToken(value);
  const token = value === undefined ? undefined : parts.core.state.tokens.lookup(value);
  if (token === undefined) {
    limits.countIp(exchange.ip);
    const error = unauthorized(value === undefined ? 'missing bearer token' : 'unknown token');
    throw new SimError(error.status, error.code, error.message, { 'WWW-Authenticate': 'Bearer' });
  }
  const refusal = limits.checkToken(token.hash);
  if (refusal !== undefined) throw refusal;
  limits.countIp(exchange.ip);
  limits.countToken(token.hash);
  exchange.quotaHeaders = () => limits.quotaHeaders(token.hash);
  return token;
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string | undefined {
  const found = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return found?.[1];
}

async function handlerContext(
  exchange: Exchange,
  parts: PipelineParts,
  route: RouteName,
  token: TokenRecord,
  params: Record<string, string>,
  url: URL,
): Promise<HandlerContext> {
  const { request } = exchange;
  const withBody = BODY_METHODS.has(request.method ?? '');
  const rawBody = withBody ? await readBody(request, parts.maxBodyBytes) : '';
  return {
    core: parts.core,
    token,
    route,
    params,
    query: url.searchParams,
    headers: request.headers,
    body: withBody ? parseJsonBody(rawBody, request.headers['content-type']) : undefined,
    rawBody,
    idempotency: parts.idempotency,
    faults: parts.faults,
    paging: parts.paging,
  };
}

async function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Reads to the end even past the limit, so the socket survives to carry the 413.
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= maxBytes) chunks.push(buffer);
  }
  if (size > maxBytes) {
    throw new SimError(413, 'payload_too_large', `the body exceeds ${maxBytes} bytes`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJsonBody(raw: string, contentType: string | undefined): unknown {
  if (raw.trim() === '') throw validationFailed('the body must be JSON');
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
    throw new SimError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw validationFailed('the body is not valid JSON');
  }
}
