/**
 * A hostile service for the security probes: a proxy on 127.0.0.1 in front of the real simulator
 * that passes every request through until a test sets `tamper`, which may answer a request
 * itself (a body trickled a byte at a time, a huge or deeply nested page, the token echoed back).
 */
import { storeOver } from '../fixtures/store.js';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { onTestFinished } from 'vitest';
import { RequestGovernor } from '../../src/budget/index.js';
import { systemClock } from '../../src/domain/index.js';
import { Mirror } from '../../src/mirror/index.js';
import { createHttpRemote, type HttpRemoteOptions } from '../../src/remote/index.js';
import type { Simulator } from '../../src/sim/index.js';
import type { SqliteDb } from '../../src/store/database.js';

/** Answers a request in place of the service and returns true, or returns false to pass it on. */
export type Tamper = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A running proxy: its `/v1` base URL and the tamper in force. */
export interface HostileProxy {
  baseUrl: string;
  tamper: Tamper | undefined;
}

function forward(upstream: URL, req: IncomingMessage, res: ServerResponse): void {
  const out = httpRequest(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.destroy());
  req.pipe(out);
}

/** Starts a proxy to `sim` on an ephemeral port; it closes when the test ends. */
export async function hostileProxy(sim: Simulator): Promise<HostileProxy> {
  const upstream = new URL(sim.baseUrl);
  const proxy: HostileProxy = { baseUrl: '', tamper: undefined };
  const server = createServer((req, res) => {
    if (proxy.tamper?.(req, res) !== true) forward(upstream, req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  proxy.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return proxy;
}

/** True for a request of a tasks page. */
export function isTasksPage(req: IncomingMessage): boolean {
  return req.method === 'GET' && /\/projects\/[^/]+\/tasks\?/.test(req.url ?? '');
}

/** Answers with a JSON body as the service would, with `X-Total-Count` for a page. */
export function answerJson(res: ServerResponse, body: string, totalCount = 1): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-total-count': String(totalCount),
  });
  res.end(body);
}

/** The real engine (governor, HTTP client, mirror) over `db`, talking to `baseUrl`. */
export function engineFor(
  baseUrl: string,
  token: string,
  db: SqliteDb,
  remoteOptions: Partial<HttpRemoteOptions> = {},
  pageSize?: number,
): Mirror {
  const logger = pino({ level: 'silent' });
  const clock = systemClock;
  const gate = new RequestGovernor({ clock, maxWaitMs: 0, reserve: 0 });
  const remote = createHttpRemote({
    baseUrl,
    token,
    gate,
    clock,
    logger,
    maxAttempts: 2,
    backoffBaseMs: 10,
    ...remoteOptions,
  });
  onTestFinished(() => remote.close());
  return new Mirror({
    store: storeOver(db, clock).mirror,
    remote,
    clock,
    logger,
    ...(pageSize === undefined ? {} : { pageSize }),
  });
}

/** `PRAGMA integrity_check` of the mirror: "ok" when the file is sound. */
export function integrity(db: SqliteDb): string {
  return db.pragma('integrity_check', { simple: true }) as string;
}
