/**
 * Turns what undici and Node throw when no response arrives into one-line `NetworkError`s, and
 * tells which of them are worth retrying (not TLS: a certificate does not fix itself).
 */
import { NetworkError, type RemoteContext } from '../domain/index.js';

const TLS_CODE = /CERT|TLS|SSL|SIGNATURE|EPROTO|HOSTNAME_MISMATCH/;

const PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response headers',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response body',
  UND_ERR_CLOSED: 'client closed',
  UND_ERR_DESTROYED: 'client closed',
};

/** The innermost error code of an error and its causes. */
function codeOf(error: unknown): string | undefined {
  let code: string | undefined;
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const candidate = (current as { code?: unknown }).code;
    if (typeof candidate === 'string') code = candidate;
    current = (current as { cause?: unknown }).cause;
  }
  return code;
}

/** True when `error` (a `NetworkError` or its cause) is a TLS failure. */
export function isTlsFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && TLS_CODE.test(code);
}

/** True for network failures a later attempt may get past. */
export function isRetryableNetworkError(error: unknown): boolean {
  return error instanceof NetworkError && !isTlsFailure(error);
}

/**
 * The typed error for a failed exchange with `host` (never the URL's path or headers). What the
 * server's certificate says is quoted through `redact`, which takes the token out.
 */
export function toNetworkError(
  error: unknown,
  context: RemoteContext,
  host: string,
  redact: (text: string) => string,
): NetworkError {
  const code = codeOf(error) ?? 'unknown';
  if (TLS_CODE.test(code)) {
    const reason = redact((error as Error).message.split('\n')[0] ?? code);
    return new NetworkError(
      context,
      `TLS verification of ${host} failed: ${reason} (${code}); trust its CA with --ca-file`,
      { cause: error },
    );
  }
  const problem = PROBLEMS[code] ?? 'request failed';
  return new NetworkError(context, `${problem} (${host}, ${code})`, { cause: error });
}
