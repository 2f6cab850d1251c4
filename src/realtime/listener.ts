/** The realtime listener: keeps a WebSocket to the service open and turns messages into changes. */
import type { ClientOptions, RawData } from 'ws';
import {
  ProjmirrorError,
  UsageError,
  errorLine,
  trustedCertificates,
  type Clock,
} from '../domain/index.js';
import { backoffDelayMs, type BackoffPolicy } from '../domain/backoff.js';
import type { Change, RealtimeStatus } from './change.js';
import { Connection, isTokenRefusal, socketOptions, type CloseInfo } from './connection.js';
import { decodeMessage } from './decode.js';
import { DEFAULT_PING_INTERVAL_MS, DEFAULT_PONG_TIMEOUT_MS, runHeartbeat } from './heartbeat.js';
import { ProblemLog, type RealtimeLogger } from './problem-log.js';

/** The first reconnect waits up to this long. */
export const DEFAULT_RECONNECT_BASE_MS = 1_000;
/** No reconnect waits longer than this. */
export const DEFAULT_RECONNECT_MAX_MS = 60_000;
/** How long the upgrade may take before the attempt is abandoned. */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000;
/** A connection that stayed up this long resets the backoff to its base. */
export const DEFAULT_STABLE_CONNECTION_MS = 30_000;
/** The pause between attempts while the service refuses the token (401/403). */
export const DEFAULT_TOKEN_REFUSED_RETRY_MS = 5 * 60_000;
/** How long `stop()` waits for the server's closing handshake before dropping the socket. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 1_000;
/** The largest message accepted (1 MiB); a bigger one closes the connection (code 1009). */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/** Everything the listener needs; the optional timings default to the constants above. */
export interface RealtimeListenerOptions {
  /** The realtime URL (`ws:` or `wss:`). */
  url: URL;
  /** Sent as `Authorization: Bearer <token>` on the upgrade; never logged. */
  token: string;
  /** Extra trusted CA certificates (PEM), added to Node's default roots. */
  caFile?: string;
  clock: Clock;
  logger: RealtimeLogger;
  /** Called synchronously for every change; an exception is logged and the listener goes on. */
  onChange: (change: Change) => void;
  /** Called on every change of connection state. */
  onStatus?: (status: RealtimeStatus) => void;
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  stableConnectionMs?: number;
  tokenRefusedRetryMs?: number;
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  closeTimeoutMs?: number;
  maxMessageBytes?: number;
  /** A number in [0, 1) for backoff jitter; `Math.random` by default. */
  random?: () => number;
}

/** The result of one attempt: how long it stayed open, and the error when it never opened. */
interface AttemptOutcome {
  upMs: number;
  failure?: unknown;
  close?: CloseInfo;
  heartbeatTimedOut?: boolean;
}

/** The URL as it may be logged: no user info, no query. */
function printableUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Text of a message; binary frames are read as UTF-8 too. */
function messageText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/**
 * Keeps one WebSocket open to the realtime channel (contract section 5) and reports every
 * message as a `Change`; reconnects with backoff after any close and reports `reconnected`.
 */
export class RealtimeListener {
  private readonly options: RealtimeListenerOptions;
  private readonly socketOptions: ClientOptions;
  private readonly clock: Clock;
  private readonly logger: RealtimeLogger;
  private readonly timing: Required<
    Pick<
      RealtimeListenerOptions,
      | 'stableConnectionMs'
      | 'tokenRefusedRetryMs'
      | 'pingIntervalMs'
      | 'pongTimeoutMs'
      | 'handshakeTimeoutMs'
      | 'closeTimeoutMs'
    >
  >;
  private readonly reconnectBackoff: BackoffPolicy;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private connection: Connection | undefined;

  constructor(options: RealtimeListenerOptions) {
    if (options.url.protocol !== 'ws:' && options.url.protocol !== 'wss:') {
      throw new UsageError(`realtime URL ${printableUrl(options.url)} is not ws: or wss:`);
    }
    if (options.url.hash !== '') {
      throw new UsageError(`realtime URL ${printableUrl(options.url)} must not have a #fragment`);
    }
    this.options = options;
    this.clock = options.clock;
    this.logger = options.logger;
    this.socketOptions = socketOptions(
      options.token,
      trustedCertificates(options.caFile),
      options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    );
    this.timing = {
      stableConnectionMs: options.stableConnectionMs ?? DEFAULT_STABLE_CONNECTION_MS,
      tokenRefusedRetryMs: options.tokenRefusedRetryMs ?? DEFAULT_TOKEN_REFUSED_RETRY_MS,
      pingIntervalMs: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
      pongTimeoutMs: options.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
      closeTimeoutMs: options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
    };
    this.reconnectBackoff = {
      baseMs: options.reconnectBaseMs ?? DEFAULT_RECONNECT_BASE_MS,
      maxMs: options.reconnectMaxMs ?? DEFAULT_RECONNECT_MAX_MS,
      random: options.random ?? Math.random,
    };
  }

  /** True while the WebSocket is open. */
  get connected(): boolean {
    return this.connection?.open ?? false;
  }

  /** Starts connecting in the background; the loop ends when `signal` aborts or `stop()` is called. */
  start(signal?: AbortSignal): void {
    if (this.controller !== undefined) {
      throw new ProjmirrorError('realtime_started', 'the realtime listener is already started');
    }
    const controller = new AbortController();
    this.controller = controller;
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.loop = this.run(controller.signal)
      .catch((error: unknown) => {
        this.logger.error({ error: errorLine(error) }, 'realtime: listener stopped unexpectedly');
      })
      .finally(() => {
        signal?.removeEventListener('abort', onAbort);
        if (this.controller === controller) this.controller = undefined;
      });
  }

  /** Closes the socket and resolves once the loop has ended; safe to call at any time. */
  async stop(): Promise<void> {
    this.controller?.abort();
    await this.loop;
  }

  private async run(signal: AbortSignal): Promise<void> {
    // Failed attempts since the last connection that stayed up: the exponent of the backoff.
    let failures = 0;
    const problems = new ProblemLog(this.logger);
    for (let attempt = 0; !signal.aborted; attempt += 1) {
      const outcome = await this.attempt(attempt > 0, signal, problems).catch(
        (failure: unknown): AttemptOutcome => ({ upMs: 0, failure }),
      );
      if (signal.aborted) break;
      if (outcome.upMs >= this.timing.stableConnectionMs) failures = 0;
      const retryInMs = isTokenRefusal(outcome.failure)
        ? this.timing.tokenRefusedRetryMs
        : backoffDelayMs(++failures, this.reconnectBackoff);
      if (outcome.failure !== undefined) problems.failed(outcome.failure, retryInMs);
      else this.logClose(outcome, retryInMs);
      await this.clock.sleep(retryInMs, signal).catch(() => undefined);
    }
  }

  /** One connection, from the upgrade to the close. */
  private async attempt(
    isRetry: boolean,
    signal: AbortSignal,
    problems: ProblemLog,
  ): Promise<AttemptOutcome> {
    this.report('connecting');
    let removeAbortListener = (): void => undefined;
    try {
      const connection = new Connection(this.options.url, this.socketOptions, {
        onOpen: () => this.opened(isRetry),
        onMessage: (data) => this.received(data),
      });
      this.connection = connection;
      const onAbort = () => void connection.closeWithin(this.clock, this.timing.closeTimeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      removeAbortListener = () => signal.removeEventListener('abort', onAbort);
      const failure = await this.handshake(connection);
      if (failure !== undefined) return { upMs: 0, failure };
      problems.clear();
      return await this.session(connection, signal);
    } finally {
      removeAbortListener();
      this.connection = undefined;
      this.report('disconnected');
    }
  }

  /** Waits for the upgrade, abandoning it after the handshake timeout; returns the failure. */
  private async handshake(connection: Connection): Promise<unknown> {
    const timer = new AbortController();
    const timeoutMs = this.timing.handshakeTimeoutMs;
    void this.clock.sleep(timeoutMs, timer.signal).then(
      () => connection.abandon(`no upgrade within ${timeoutMs} ms`),
      () => undefined,
    );
    try {
      await connection.opened;
      return undefined;
    } catch (error) {
      await connection.closed;
      return error;
    } finally {
      timer.abort();
    }
  }

  /** Runs the heartbeat while the connection is open; resolves when it closes. */
  private async session(connection: Connection, signal: AbortSignal): Promise<AttemptOutcome> {
    const openedAt = this.clock.now();
    const ended = new AbortController();
    const heartbeat = runHeartbeat(
      connection,
      this.clock,
      this.timing,
      AbortSignal.any([signal, ended.signal]),
    );
    const close = await connection.closed;
    ended.abort();
    const heartbeatTimedOut = await heartbeat;
    return { upMs: this.clock.now() - openedAt, close, heartbeatTimedOut };
  }

  private opened(isRetry: boolean): void {
    this.logger.info({ url: printableUrl(this.options.url) }, 'realtime: connected');
    this.report('connected');
    if (isRetry) this.deliver({ kind: 'reconnected' });
  }

  private received(data: RawData): void {
    if (this.controller?.signal.aborted !== false) return;
    const change = decodeMessage(messageText(data), this.options.token);
    if (change.kind === 'hint') {
      this.logger.debug(
        { projectId: change.projectId, reason: change.reason },
        'realtime: message taken as a hint',
      );
    }
    this.deliver(change);
  }

  private deliver(change: Change): void {
    try {
      this.options.onChange(change);
    } catch (error) {
      this.logger.error(
        { kind: change.kind, error: errorLine(error) },
        'realtime: change handler failed',
      );
    }
  }

  private report(status: RealtimeStatus): void {
    try {
      this.options.onStatus?.(status);
    } catch (error) {
      this.logger.error({ status, error: errorLine(error) }, 'realtime: status handler failed');
    }
  }

  private logClose(outcome: AttemptOutcome, retryInMs: number): void {
    const fields = { code: outcome.close?.code, reason: outcome.close?.reason, retryInMs };
    const line = outcome.heartbeatTimedOut
      ? `realtime: no pong within ${this.timing.pongTimeoutMs} ms; connection dropped`
      : 'realtime: connection closed';
    this.logger.warn(fields, line);
  }
}
