/**
 * Units of work as messages: the host's groups of methods (`host.ts`), and the port
 * that asks them asynchronously from another thread (`thread.ts`) or the same one (`inline.ts`).
 * Units run one at a time in the order asked; the tracker says how many wait and since when (the
 * metrics show it; the daemon's health is judged by its own write probe).
 */
import * as domain from '../../domain/index.js';
import type { StoreProgress } from '../port.js';

/** A group of units: methods taking and returning data that survives a structured clone. */
export type UnitGroup = object;

/** The host: named groups of units. */
export type UnitHost = Record<string, UnitGroup>;

type Method = (...args: never[]) => unknown;

/** The asynchronous face of a group: every method answers with a promise. */
export type AsyncGroup<G> = {
  [M in keyof G as G[M] extends Method ? M : never]: G[M] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/** The asynchronous face of a host, group by group. */
export type PortOf<H> = { [K in keyof H]: AsyncGroup<H[K]> };

/** One unit asked of the host. */
export interface UnitRequest {
  id: number;
  group: string;
  method: string;
  args: unknown[];
}

/** An error as it crosses threads: enough to rebuild its class, message and code. */
export interface SentError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

/** The host's answer to one unit. */
export type UnitAnswer = { id: number; value: unknown } | { id: number; error: SentError };

/** Runs one unit on `host`; its answer, or what the unit throws, as a rejection. */
export async function runUnit(
  host: UnitHost,
  group: string,
  method: string,
  args: unknown[],
): Promise<unknown> {
  const target = host[group] as Record<string, unknown> | undefined;
  const fn = target?.[method];
  if (typeof fn !== 'function') throw new Error(`no unit ${group}.${method}`);
  return (fn as (...a: unknown[]) => unknown).apply(target, args);
}

/** An error made ready to cross to another thread. */
export function sendError(error: unknown): SentError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      fields[key] = value;
    }
  }
  return { name: error.name, message: error.message, fields };
}

/** The error classes rebuilt as themselves, so that `instanceof` holds across threads. */
const ERROR_CLASSES = new Map<string, { prototype: Error }>(
  Object.entries(domain)
    .filter(
      ([, value]) =>
        typeof value === 'function' &&
        (value as { prototype?: unknown }).prototype instanceof Error,
    )
    .map(([name, value]) => [name, value as { prototype: Error }]),
);

/** The error a unit threw on the host, rebuilt on this side. */
export function receiveError(sent: SentError): Error {
  const kind = ERROR_CLASSES.get(sent.name);
  const error = kind ? (Object.create(kind.prototype) as Error) : new Error(sent.message);
  Object.defineProperty(error, 'message', { value: sent.message, writable: true });
  Object.defineProperty(error, 'name', { value: sent.name, writable: true });
  Object.assign(error, sent.fields);
  error.stack = `${sent.name}: ${sent.message}`;
  return error;
}

/** Counts units in flight, for the metrics (`StoreProgress`). */
export class UnitTracker {
  private readonly asked = new Map<number, number>();
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  begin(id: number): void {
    this.asked.set(id, this.now());
  }

  /** A unit answered, or failed. */
  end(id: number): void {
    this.asked.delete(id);
  }

  progress(): StoreProgress {
    let oldest: number | undefined;
    for (const at of this.asked.values()) oldest = oldest === undefined ? at : Math.min(oldest, at);
    return { depth: this.asked.size, oldestAskedAt: oldest };
  }
}

/** A function that asks the host one unit: its group, its method, its arguments. */
export type AskUnit = (group: string, method: string, args: unknown[]) => Promise<unknown>;

/** The asynchronous face of the host's group named `group` (a pass's, say), over `ask`. */
export function groupOver<G>(ask: AskUnit, group: string): AsyncGroup<G> {
  return new Proxy({} as AsyncGroup<G>, {
    get(_inner, method) {
      if (typeof method !== 'string' || method === 'then') return undefined;
      return (...args: unknown[]) => ask(group, method, args);
    },
  });
}

/** Builds the port of a host from one function that asks a unit. */
export function portOver<H>(ask: AskUnit): PortOf<H> {
  const groups = new Map<string, unknown>();
  return new Proxy({} as PortOf<H>, {
    get(_target, group) {
      if (typeof group !== 'string') return undefined;
      let port = groups.get(group);
      if (port === undefined) {
        port = groupOver<unknown>(ask, group);
        groups.set(group, port);
      }
      return port;
    },
  });
}
