/**
 * Reading responses: JSON bodies, the budget headers reported to the gate, and the typed error
 * for a status that is not an answer (with the service's `code`; the transport has already taken
 * the token out of its text).
 */
import {
  MalformedResponseError,
  MAX_SHOWN_CHARS,
  printable,
  RateLimitedError,
  RemoteStatusError,
  type BudgetObservation,
  type RemoteContext,
} from '../domain/index.js';
import { jsonOverLimits } from '../domain/json-bounds.js';
import { bodyLimits, SCAN_BEFORE_PARSE_CHARS } from './bounds.js';
import { header, type RawResponse } from './transport.js';

/** Longest service message kept in an error line. */
export const MAX_SERVICE_MESSAGE_CHARS = MAX_SHOWN_CHARS;

const NOT_JSON = Symbol('not JSON');

/** The parsed body, or `NOT_JSON`. An empty body parses as null. */
function tryJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * The body of a successful response as JSON (null when empty); anything else is malformed. A
 * large body is first scanned for its bounds (nesting, values, and `maxItems` rows for a page),
 * so that one past them is refused before it is parsed.
 */
export function parseBody(
  response: RawResponse,
  context: RemoteContext,
  maxItems?: number,
): unknown {
  const { text } = response;
  if (text.length > SCAN_BEFORE_PARSE_CHARS) scanBody(response, context, maxItems);
  const value = tryJson(text);
  if (value === NOT_JSON) {
    throw new MalformedResponseError(context, `body is not JSON (${contentType(response)})`);
  }
  return value;
}

/**
 * Refuses a body past its bounds (nesting, values, `maxItems`) without parsing it: done by
 * `parseBody` for large bodies, and for any body that no record check will walk.
 */
export function scanBody(response: RawResponse, context: RemoteContext, maxItems?: number): void {
  const problem = jsonOverLimits(response.text, bodyLimits(maxItems));
  if (problem !== undefined) throw new MalformedResponseError(context, `body ${problem}`);
}

function contentType(response: RawResponse): string {
  return printable((header(response, 'content-type') ?? 'no content type').split(';')[0] ?? '');
}

/** A non-negative integer header (`X-Total-Count`, `X-Quota-*`), or undefined. */
export function countHeader(response: RawResponse, name: string): number | undefined {
  const value = header(response, name)?.trim();
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const count = Number(value);
  return Number.isSafeInteger(count) ? count : undefined;
}

/** What the response tells the gate. */
export function observationOf(
  response: RawResponse,
  retryAfterMs: number | undefined,
): BudgetObservation {
  const observation: BudgetObservation = { status: response.status };
  const limit = countHeader(response, 'x-quota-limit');
  const remaining = countHeader(response, 'x-quota-remaining');
  if (limit !== undefined) observation.quotaLimit = limit;
  if (remaining !== undefined) observation.quotaRemaining = remaining;
  if (retryAfterMs !== undefined) observation.retryAfterMs = retryAfterMs;
  // Only a 429's body is read here: a page's body is parsed once, within its bounds, by parseBody.
  if (response.status === 429) {
    const code = serviceError(response).code;
    if (code !== undefined) observation.code = code;
  }
  return observation;
}

/** The service's error `code` in a response's body, if it gives one. */
export function serviceCode(response: RawResponse): string | undefined {
  return response.status >= 400 ? serviceError(response).code : undefined;
}

/** The `{code, message}` of an error body; `message` is "non-JSON body" when it is not JSON. */
function serviceError(response: RawResponse): { code?: string; message?: string; json: boolean } {
  const value = tryJson(response.text);
  if (value === NOT_JSON) return { message: 'non-JSON body', json: false };
  if (typeof value !== 'object' || value === null) return { json: true };
  const { code, message } = value as { code?: unknown; message?: unknown };
  return {
    ...(typeof code === 'string' && code !== '' ? { code } : {}),
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
    json: true,
  };
}

/** One line of service text: spaces collapsed, control characters escaped, cut to a bound. */
function oneLine(text: string): string {
  return printable(text.replace(/[ \t\r\n]+/g, ' ').trim(), MAX_SERVICE_MESSAGE_CHARS);
}

/**
 * The error for a response that is not an answer. A 5xx without a JSON body to a read (a proxy's
 * HTML 502) is a malformed response; to a write it stays a retryable `RemoteStatusError`.
 */
export function statusError(
  response: RawResponse,
  context: RemoteContext,
  options: { read: boolean; retryAfterMs?: number },
): RemoteStatusError | MalformedResponseError {
  const { status } = response;
  const parsed = serviceError(response);
  const code = parsed.code === undefined ? undefined : oneLine(parsed.code);
  let message = parsed.message === undefined ? undefined : oneLine(parsed.message);
  if (status >= 500 && !parsed.json && options.read) {
    return new MalformedResponseError(
      context,
      `HTTP ${status} with a non-JSON body (${contentType(response)})`,
    );
  }
  if (status === 429) {
    return new RateLimitedError(code, message, context, options.retryAfterMs ?? 0);
  }
  if (status === 304) {
    message = 'not modified, to a request without If-None-Match';
  } else if (status >= 300 && status < 400) {
    const location = header(response, 'location');
    message = `redirect${location ? ` to ${oneLine(location)}` : ''} not followed`;
  }
  return new RemoteStatusError(status, code, message, context);
}
