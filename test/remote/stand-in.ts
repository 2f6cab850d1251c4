/** A stand-in for the service on 127.0.0.1: scripted answers, every request recorded. */
import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { onTestFinished } from 'vitest';
import type { BudgetObservation, RequestGate, RequestPurpose } from '../../src/domain/index.js';
import { RequestGovernor, type GovernorOptions } from '../../src/budget/index.js';
import { createHttpRemote, type HttpRemoteOptions } from '../../src/remote/index.js';
import { FakeClock } from '../fixtures/clock.js';

export const TOKEN = 'glt_test_remote_secret';

/** One request as the server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A scripted answer. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

/** Answers request number `index` (0-based); may write the response itself and return nothing. */
export type Handler = (
  seen: Seen,
  index: number,
  res: ServerResponse,
) => Reply | undefined | Promise<Reply | undefined>;

/** A running stand-in: its `/v1` base URL and what it saw. */
export interface StandIn {
  baseUrl: string;
  seen: Seen[];
  server: Server | HttpsServer;
}

/** Writes a reply, as JSON unless the body is a string. */
export function send(res: ServerResponse, reply: Reply): void {
  const text =
    reply.body === undefined
      ? ''
      : typeof reply.body === 'string'
        ? reply.body
        : JSON.stringify(reply.body);
  const headers: Record<string, string> = { ...reply.headers };
  if (typeof reply.body !== 'string' && reply.body !== undefined) {
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(reply.status, headers);
  res.end(text);
}

async function record(req: IncomingMessage): Promise<Seen> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
}

/** Starts a stand-in on an ephemeral port; it closes when the test ends. */
export async function standIn(
  handler: Handler,
  server: Server | HttpsServer = createServer(),
): Promise<StandIn> {
  const seen: Seen[] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void record(req).then(async (request) => {
      seen.push(request);
      const reply = await handler(request, seen.length - 1, res);
      if (reply) send(res, reply);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  const scheme = server instanceof HttpsServer ? 'https' : 'http';
  return { baseUrl: `${scheme}://127.0.0.1:${port}/v1`, seen, server };
}

/** A gate that records what passes through it, in front of a real governor. */
export class RecordingGate implements RequestGate {
  readonly acquired: RequestPurpose[] = [];
  readonly observed: BudgetObservation[] = [];

  constructor(readonly inner: RequestGovernor) {}

  async acquire(purpose: RequestPurpose, signal?: AbortSignal): Promise<void> {
    await this.inner.acquire(purpose, signal);
    this.acquired.push(purpose);
  }

  observe(observation: BudgetObservation): void {
    this.observed.push(observation);
    this.inner.observe(observation);
  }
}

/** A client of `stand`, on a fake clock, with a recording gate over a real governor. */
export function clientOf(
  stand: { baseUrl: string },
  options: Partial<HttpRemoteOptions> = {},
  governor: GovernorOptions = {},
) {
  const clock = new FakeClock();
  const gate = new RecordingGate(new RequestGovernor({ clock, ...governor }));
  const remote = createHttpRemote({
    baseUrl: stand.baseUrl,
    token: TOKEN,
    gate,
    clock,
    logger: pino({ level: 'silent' }),
    random: () => 0.5,
    ...options,
  });
  onTestFinished(() => remote.close());
  return { remote, clock, gate };
}

/** Awaits `promise` while moving the fake clock to each pending wake-up; records each delay. */
export async function drive<T>(promise: Promise<T>, clock: FakeClock, delays: number[] = []) {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = clock.nextWakeAt;
    if (next !== undefined) {
      delays.push(next - clock.now());
      await clock.advance(next - clock.now());
    }
  }
  return promise;
}

/** The error `promise` rejects with (fails the test if it resolves). */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
