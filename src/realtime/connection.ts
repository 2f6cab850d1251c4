/** One WebSocket connection attempt: the upgrade, its failures as typed errors, and the close. */
import WebSocket, { type ClientOptions, type RawData } from 'ws';
import { NetworkError, ProjmirrorError, RemoteStatusError, type Clock } from '../domain/index.js';

/** The `route` named in errors of the realtime channel. */
export const REALTIME_ROUTE = 'realtime';

/** Node's codes for a certificate chain the client does not trust. */
const UNTRUSTED_CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** How a connection ended: the WebSocket close code and reason. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/** What a connection reports to its owner, synchronously as things happen. */
export interface ConnectionHandlers {
  onOpen: () => void;
  onMessage: (data: RawData, isBinary: boolean) => void;
}

/** The ws options of every attempt: bearer header, verified TLS, no redirects. */
export function socketOptions(
  token: string,
  ca: string[] | undefined,
  maxMessageBytes: number,
): ClientOptions {
  const options: ClientOptions = {
    headers: { Authorization: `Bearer ${token}` },
    followRedirects: false,
    rejectUnauthorized: true,
    maxPayload: maxMessageBytes,
  };
  if (ca !== undefined) options.ca = ca;
  return options;
}

/** A WebSocket to the service, with `opened` and `closed` as promises and typed failures. */
export class Connection {
  /** Resolves when the upgrade succeeds; rejects with a one-line typed error otherwise. */
  readonly opened: Promise<void>;
  /** Resolves when the socket is closed, whether it ever opened or not. */
  readonly closed: Promise<CloseInfo>;
  private readonly socket: WebSocket;
  private lastError: Error | undefined;
  private refusedStatus: number | undefined;
  private abandoned: string | undefined;

  constructor(url: URL, options: ClientOptions, handlers: ConnectionHandlers) {
    this.socket = new WebSocket(url, options);
    this.socket.on('error', (error) => {
      this.lastError ??= error;
    });
    this.socket.on('unexpected-response', (_request, response) => {
      this.refusedStatus = response.statusCode;
      this.socket.terminate();
    });
    this.socket.on('message', handlers.onMessage);
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => {
        handlers.onOpen();
        resolve();
      });
      this.socket.once('close', () => reject(this.openFailure()));
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) => {
      this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
  }

  /** True while the socket is open. */
  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends a ping; false when the socket is no longer open. */
  ping(): boolean {
    if (!this.open) return false;
    this.socket.ping();
    return true;
  }

  /** Calls `listener` on every pong; returns a function that removes it. */
  onPong(listener: () => void): () => void {
    this.socket.on('pong', listener);
    return () => this.socket.off('pong', listener);
  }

  /** Drops the connection at once, recording why for the error `opened` rejects with. */
  abandon(why: string): void {
    this.abandoned ??= why;
    this.socket.terminate();
  }

  /**
   * Closes politely (code 1000) and waits for the close, terminating the socket if the server
   * has not finished the closing handshake within `timeoutMs` of `clock`.
   */
  async closeWithin(clock: Clock, timeoutMs: number): Promise<void> {
    if (this.socket.readyState === WebSocket.CONNECTING) this.abandon('stopped');
    else this.socket.close(1000, 'client stopping');
    const timer = new AbortController();
    const expired = clock.sleep(timeoutMs, timer.signal).then(
      () => this.socket.terminate(),
      () => undefined,
    );
    await this.closed;
    timer.abort();
    await expired;
  }

  private openFailure(): ProjmirrorError {
    const context = { route: REALTIME_ROUTE };
    if (this.refusedStatus !== undefined) return refusal(this.refusedStatus);
    if (this.abandoned !== undefined) return new NetworkError(context, this.abandoned);
    return new NetworkError(context, describeSocketError(this.lastError), {
      cause: this.lastError,
    });
  }
}

/** True when the service refused the token itself (401 or 403 on the upgrade). */
export function isTokenRefusal(error: unknown): boolean {
  return error instanceof RemoteStatusError && (error.status === 401 || error.status === 403);
}

function refusal(status: number): RemoteStatusError {
  const context = { route: REALTIME_ROUTE };
  if (status === 401) {
    return new RemoteStatusError(
      401,
      'unauthorized',
      'the token was refused on the upgrade',
      context,
    );
  }
  if (status === 403) {
    return new RemoteStatusError(
      403,
      'forbidden',
      'the token may not open the realtime channel',
      context,
    );
  }
  if (status >= 300 && status < 400) {
    return new RemoteStatusError(status, undefined, 'redirects are not followed', context);
  }
  return new RemoteStatusError(
    status,
    undefined,
    'the server did not upgrade to WebSocket',
    context,
  );
}

/** One line for a socket-level failure, naming untrusted certificates plainly. */
export function describeSocketError(error: Error | undefined): string {
  if (error === undefined) return 'connection closed during the upgrade';
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && UNTRUSTED_CERTIFICATE_CODES.has(code)) {
    return `TLS certificate not trusted (${code}: ${error.message}); give its CA with --ca-file`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `TLS certificate does not match the host (${error.message})`;
  }
  if (code === 'CERT_HAS_EXPIRED') return `TLS certificate has expired (${error.message})`;
  return error.message;
}
