/** Small HTTP and WebSocket helpers for the simulator's tests. */
import { onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import type { Simulator } from '../../src/sim/index.js';

/** A JSON client of the simulator acting with one token. */
export interface SimClient {
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  send(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
}

/** A client for `sim` with `token` (default: the seeded account token; null: no token). */
export function client(sim: Simulator, token: string | null = sim.token): SimClient {
  const auth: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return {
    get: (path, headers = {}) =>
      fetch(`${sim.baseUrl}${path}`, { headers: { ...auth, ...headers } }),
    send: (method, path, body, headers = {}) =>
      fetch(`${sim.baseUrl}${path}`, {
        method,
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body:
          body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** A valid create-task body. */
export function newTask(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Pour concrete',
    startDate: '2026-03-01',
    endDate: '2026-03-05',
    status: 'NotStarted',
    ...overrides,
  };
}

/** The parsed JSON error body's code. */
export async function errorCode(response: Response): Promise<string> {
  const body = (await response.json()) as { code?: string; message?: string };
  return body.code ?? '';
}

/** A realtime client that collects every message it receives. */
export interface EventCollector {
  socket: WebSocket;
  messages: string[];
  /** Resolves with the first message (parsed) satisfying `test`, waiting up to 5 s. */
  waitFor(test: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** Opens a realtime connection with `token` and resolves once it is open. */
export async function connectRealtime(
  sim: Simulator,
  token: string,
  options: { ca?: string } = {},
): Promise<EventCollector> {
  const socket = new WebSocket(sim.realtimeUrl, {
    headers: { authorization: `Bearer ${token}` },
    ca: options.ca,
  });
  onTestFinished(() => socket.terminate());
  const messages: string[] = [];
  const listeners = new Set<() => void>();
  socket.on('message', (data) => {
    messages.push(String(data));
    for (const listener of listeners) listener();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const waitFor = (test: (message: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        for (const text of messages) {
          const parsed = tryParse(text);
          if (parsed !== undefined && test(parsed)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(parsed);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no matching realtime message among ${JSON.stringify(messages)}`));
      }, 5_000);
      listeners.add(check);
      check();
    });
  return { socket, messages, waitFor };
}

function tryParse(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Lets the event loop turn a few times (for "nothing arrives" checks over loopback). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The messages `events` received since the last call, parsed, then forgets them: a scripted
 * sentinel member is added to `projectId` and awaited, so every message sent before it (same
 * socket, in order) is in; the sentinel's own message is left out.
 */
export async function drainMessages(
  sim: Simulator,
  events: EventCollector,
  projectId: string,
): Promise<Record<string, unknown>[]> {
  const sentinel = sim.service.addMember(projectId, { name: 'Sentinel' });
  await events.waitFor((message) => message['id'] === sentinel.id);
  const parsed = events.messages.splice(0).map((text) => tryParse(text) ?? {});
  return parsed.filter((message) => message['id'] !== sentinel.id);
}
