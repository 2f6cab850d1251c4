/** The options of the HTTP client, their defaults, and their resolution into one settled object. */
import type { Logger } from 'pino';
import pino from 'pino';
import type { BackoffPolicy } from '../domain/backoff.js';
import {
  systemClock,
  UNWATCHED,
  UsageError,
  type Clock,
  type ProgressSignal,
  type RequestGate,
  type Route,
  type RouteName,
  type RouteTable,
} from '../domain/index.js';
import { resolveRoutes } from './routes.js';

/** Longest wait for a TCP (and TLS) connection. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Longest wait for the response headers once the request is sent. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
/** Longest silence between two chunks of a response body. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/**
 * Longest time for a whole exchange, from sending the request to the body's last byte (a body
 * trickled a byte at a time never trips the silence timer); past it the attempt is a network
 * error, retried like any other.
 */
export const DEFAULT_REQUEST_DEADLINE_MS = 120_000;
/** How long an idle keep-alive connection is kept (below Node servers' 5 s default). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 4_000;
/** Connections kept open to the service at most. */
export const DEFAULT_MAX_CONNECTIONS = 4;
/** Largest body of an unpaged list (projects, members, resources, dependencies), in bytes. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Attempts of one GET on 5xx and network errors, the first included. */
export const DEFAULT_MAX_ATTEMPTS = 5;
/** The first backoff's upper bound; each further attempt doubles it (full jitter below it). */
export const DEFAULT_BACKOFF_BASE_MS = 500;
/** The cap of every backoff. */
export const DEFAULT_BACKOFF_MAX_MS = 30_000;
/** 429 answers to one call that are waited out and retried before the call fails. */
export const DEFAULT_MAX_RATE_LIMIT_RETRIES = 3;
/** The pause after a 429 whose `Retry-After` is missing or unreadable. */
export const DEFAULT_RETRY_AFTER_MS = 60_000;
/** Sent as `User-Agent`. */
export const DEFAULT_USER_AGENT = 'projmirror';

/** One response (or failure to get one: status 0), for metrics. */
export interface ResponseMetric {
  route: RouteName;
  /** The HTTP status, or 0 when no response came (network error). */
  status: number;
  /** From sending the request to reading the whole body, on the injected clock. */
  ms: number;
  /** The service's error `code` of an answer that is not a success, when its body gives one. */
  code?: string;
  /** The label of the token that sent it (added by the composition root), never its value. */
  token?: string;
}

/** Everything the client takes; only `baseUrl`, `token` and `gate` are required. */
export interface HttpRemoteOptions {
  /** The service's base URL, ending in `/v1`. */
  baseUrl: URL | string;
  /** The bearer token; never logged nor put in an error. */
  token: string;
  /** The request governor every counted request passes. */
  gate: RequestGate;
  clock?: Clock;
  logger?: Logger;
  /** A PEM file of CA certificates trusted in addition to the default ones. */
  caFile?: string;
  /** Route overrides by name (the config file's `routes`); a missing method keeps the default. */
  routes?: Partial<Record<RouteName, Partial<Route>>>;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  requestDeadlineMs?: number;
  keepAliveTimeoutMs?: number;
  maxConnections?: number;
  maxResponseBytes?: number;
  maxAttempts?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  maxRateLimitRetries?: number;
  defaultRetryAfterMs?: number;
  userAgent?: string;
  /** The jitter source, in [0, 1). */
  random?: () => number;
  /** Called once per response (and per failed attempt, with status 0). */
  onResponse?: (metric: ResponseMetric) => void;
  /** Told of each request in flight and each whole answer (a command's stall bound). */
  progress?: ProgressSignal;
}

/** The options with every default filled in and the routes checked. */
export interface ResolvedOptions {
  baseUrl: URL;
  token: string;
  gate: RequestGate;
  clock: Clock;
  logger: Logger;
  caFile: string | undefined;
  routes: RouteTable;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  requestDeadlineMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxResponseBytes: number;
  maxAttempts: number;
  /** The backoff of read retries. */
  backoff: BackoffPolicy;
  maxRateLimitRetries: number;
  defaultRetryAfterMs: number;
  userAgent: string;
  onResponse: (metric: ResponseMetric) => void;
  progress: ProgressSignal;
}

/** Fills in the defaults once. */
export function resolveOptions(options: HttpRemoteOptions): ResolvedOptions {
  const baseUrl = new URL(String(options.baseUrl));
  if (baseUrl.protocol !== 'https:' && baseUrl.protocol !== 'http:') {
    throw new UsageError(`base URL ${baseUrl.origin} is not http(s)`);
  }
  baseUrl.pathname = baseUrl.pathname.replace(/\/+$/, '');
  return {
    baseUrl,
    token: options.token,
    gate: options.gate,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? pino({ level: 'silent' }),
    caFile: options.caFile,
    routes: resolveRoutes(options.routes),
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    requestDeadlineMs: options.requestDeadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxAttempts: Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
    backoff: {
      baseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
      maxMs: options.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS,
      random: options.random ?? Math.random,
    },
    maxRateLimitRetries: options.maxRateLimitRetries ?? DEFAULT_MAX_RATE_LIMIT_RETRIES,
    defaultRetryAfterMs: options.defaultRetryAfterMs ?? DEFAULT_RETRY_AFTER_MS,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    onResponse: options.onResponse ?? (() => undefined),
    progress: options.progress ?? UNWATCHED,
  };
}
