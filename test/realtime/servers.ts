/** Real WebSocket servers on 127.0.0.1 port 0 for the realtime tests, closed when a test ends. */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { onTestFinished } from 'vitest';
import type { FakeClock } from '../fixtures/clock.js';
import { WebSocketServer, type ServerOptions, type WebSocket } from 'ws';

/** The realtime path the simulator serves; the tests use it too. */
export const REALTIME_PATH = '/v1/realtime';

/** A running server and what it saw. */
export interface TestServer {
  url: URL;
  wss: WebSocketServer;
  /** Every socket accepted, in order. */
  sockets: WebSocket[];
  /** The upgrade request of every accepted socket. */
  requests: IncomingMessage[];
  /** Every close code the server received, in order. */
  closeCodes: number[];
}

function listen(server: Server, sockets: Set<Socket>): Promise<number> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

/** Starts a ws server (over TLS when `tls` holds a key and certificate). */
export async function startWsServer(
  options: Omit<ServerOptions, 'server' | 'port' | 'noServer'> = {},
  tls?: { key: string; cert: string },
): Promise<TestServer> {
  const http = tls ? createHttpsServer(tls) : createServer();
  const wss = new WebSocketServer({ ...options, server: http });
  const result: TestServer = {
    url: new URL('ws://x'),
    wss,
    sockets: [],
    requests: [],
    closeCodes: [],
  };
  wss.on('connection', (socket, request) => {
    result.sockets.push(socket);
    result.requests.push(request);
    socket.on('close', (code) => result.closeCodes.push(code));
  });
  onTestFinished(() => {
    for (const socket of wss.clients) socket.terminate();
    wss.close();
  });
  const port = await listen(http, new Set());
  result.url = new URL(`${tls ? 'wss' : 'ws'}://127.0.0.1:${port}${REALTIME_PATH}`);
  return result;
}

/**
 * A server that answers every upgrade by hand: with `status` it answers that status (and
 * `headers`); without it, `upgrade: true` completes the handshake and then ignores every frame
 * (no pong, no close reply); otherwise it never answers at all.
 */
export async function startRawServer(behaviour: {
  status?: number;
  headers?: Record<string, string>;
  upgrade?: boolean;
}): Promise<{ url: URL; upgrades: number }> {
  const http = createServer();
  const state = { url: new URL('ws://x'), upgrades: 0 };
  http.on('upgrade', (request: IncomingMessage, socket: Socket) => {
    state.upgrades += 1;
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    if (behaviour.status !== undefined) {
      const extra = Object.entries(behaviour.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.end(
        `HTTP/1.1 ${behaviour.status} Refused\r\n${extra.join('')}Content-Length: 0\r\n\r\n`,
      );
    } else if (behaviour.upgrade) {
      const accept = createHash('sha1')
        .update(`${request.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64');
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
    }
  });
  const port = await listen(http, new Set());
  state.url = new URL(`ws://127.0.0.1:${port}${REALTIME_PATH}`);
  return state;
}

/** Polls `condition` on real time (for socket I/O only, never for schedules). */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the only pending sleep of `clock` is a pause of `ms` from now (a reconnect wait). */
export async function waitForPause(clock: FakeClock, ms: number): Promise<void> {
  await waitFor(
    () => clock.pendingSleeps === 1 && clock.nextWakeAt === clock.now() + ms,
    `a pause of ${ms} ms`,
  );
}
