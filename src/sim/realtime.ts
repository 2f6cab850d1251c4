/**
 * The realtime channel (contract section 5): a WebSocket endpoint at `/v1/realtime` on the same
 * server, authenticated by `Authorization: Bearer` on the upgrade (401 otherwise). Every write is
 * pushed as one JSON text message to each connection whose token can see the project. Upgrades
 * are logged but never counted against any limit; every upgrade answer, the 101 and each
 * refusal, carries `X-Trace-Id`.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Clock, RealtimeEvent } from '../domain/index.js';
import { newTraceId, TRACE_ID_HEADER } from './http/exchange.js';
import { bearerToken } from './http/pipeline.js';
import type { SimState } from './model/state.js';
import { hashToken, type TokenRecord } from './model/tokens.js';
import type { RequestLog } from './request-log.js';

/** The path of the endpoint, under the base URL. */
export const REALTIME_PATH = '/v1/realtime';

interface Connection {
  socket: WebSocket;
  token: TokenRecord;
}

/** The realtime endpoint and its connections. */
export class RealtimeHub {
  /** False leaves `data` out of every event (clients must then fetch the record). */
  includeData: boolean;
  private readonly server = new WebSocketServer({ noServer: true });
  /** The trace id of each upgrade being accepted, for its 101's headers. */
  private readonly traceIds = new WeakMap<IncomingMessage, string>();
  private readonly connections = new Set<Connection>();
  private refusals: { status: number; remaining: number } | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];

  constructor(
    private readonly state: SimState,
    private readonly log: RequestLog,
    private readonly clock: Clock,
    includeData: boolean,
  ) {
    this.includeData = includeData;
    this.server.on('headers', (headers: string[], request: IncomingMessage) => {
      const traceId = this.traceIds.get(request);
      if (traceId !== undefined) headers.push(`${TRACE_ID_HEADER}: ${traceId}`);
    });
  }

  /** How many clients are connected. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Resolves once at least `count` clients are connected. */
  waitForConnections(count = 1): Promise<void> {
    if (this.connections.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Refuses the next `count` upgrades with `status` (default 503), authorized or not. */
  refuseNext(count = 1, status = 503): void {
    this.refusals = { status, remaining: count };
  }

  /** Handles an HTTP upgrade request of the server. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Node leaves an upgrade's socket without an error listener: a client that resets it while
    // it is refused would end the process that runs the simulator (ECONNRESET, uncaught).
    socket.on('error', () => socket.destroy());
    const path = new URL(request.url ?? '/', 'http://simulator').pathname;
    const value = bearerToken(request.headers.authorization);
    const token = value === undefined ? undefined : this.state.tokens.lookup(value);
    let refusal: [number, string, string] | undefined;
    if (path !== REALTIME_PATH) refusal = [404, 'not_found', `no realtime endpoint at ${path}`];
    else if (this.refusals !== undefined && this.refusals.remaining > 0) {
      this.refusals.remaining -= 1;
      refusal = [this.refusals.status, 'service_unavailable', 'injected realtime refusal'];
    } else if (token === undefined) refusal = [401, 'unauthorized', 'missing or unknown token'];
    const traceId = newTraceId();
    this.record(request, refusal?.[0] ?? 101, refusal?.[1], value, traceId);
    if (refusal !== undefined) return rejectUpgrade(socket, traceId, ...refusal);
    this.traceIds.set(request, traceId);
    this.server.handleUpgrade(request, socket, head, (ws) => this.accept(ws, token as TokenRecord));
  }

  /** Sends `event` to every connection whose token sees its project. */
  publish(event: RealtimeEvent): void {
    if (this.connections.size === 0) return;
    const project = this.state.projects.get(event.projectId);
    if (project === undefined) return;
    const message = JSON.stringify(this.includeData ? event : { ...event, data: undefined });
    for (const connection of this.connections) {
      if (this.state.canSee(connection.token, project)) connection.socket.send(message);
    }
  }

  /** Sends raw text to every connection (to test clients against garbage). */
  sendRaw(text: string): void {
    for (const connection of this.connections) connection.socket.send(text);
  }

  /** Drops every connection abruptly (no close handshake). */
  dropAll(): void {
    for (const connection of this.connections) connection.socket.terminate();
  }

  /** Closes the connections of one token (when it is revoked). */
  disconnectToken(hash: string): void {
    for (const connection of this.connections) {
      if (connection.token.hash === hash) connection.socket.close(1008, 'token revoked');
    }
  }

  /** Terminates every connection and stops accepting new ones. */
  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket, token: TokenRecord): void {
    const connection = { socket, token };
    this.connections.add(connection);
    socket.on('close', () => this.connections.delete(connection));
    socket.on('error', () => socket.terminate());
    const ready = this.waiters.filter((waiter) => this.connections.size >= waiter.count);
    this.waiters = this.waiters.filter((waiter) => this.connections.size < waiter.count);
    for (const waiter of ready) waiter.resolve();
  }

  private record(
    request: IncomingMessage,
    status: number,
    code: string | undefined,
    token: string | undefined,
    traceId: string,
  ): void {
    this.log.record({
      time: this.clock.now(),
      method: request.method ?? 'GET',
      path: request.url ?? '',
      route: 'realtime',
      status,
      code,
      dropped: false,
      fault: undefined,
      tokenHash: token === undefined ? undefined : hashToken(token),
      ip: request.socket.remoteAddress ?? 'unknown',
      traceId,
      headers: {},
    });
  }
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  404: 'Not Found',
  503: 'Service Unavailable',
};

function rejectUpgrade(
  socket: Duplex,
  traceId: string,
  status: number,
  code: string,
  message: string,
): void {
  const body = JSON.stringify({ code, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
      `${TRACE_ID_HEADER}: ${traceId}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** What tests use of the realtime endpoint. */
export type RealtimeControl = Pick<
  RealtimeHub,
  'includeData' | 'connectionCount' | 'waitForConnections' | 'refuseNext' | 'sendRaw' | 'dropAll'
>;
