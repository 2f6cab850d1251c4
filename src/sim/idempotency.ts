/**
 * Idempotency of create POSTs (spec 4.1 rules 3-6). Keys are scoped to (token, project). The
 * same key with the same body on the same operation replays the cached original response; any
 * other request under that key answers 409 `idempotency_conflict`. "The same body" follows the
 * `idempotency` reading: byte-identical (`bytes`), or equal as parsed JSON whatever the key order
 * and whitespace (`json`). Only successful (2xx) responses are cached, so a failed attempt may be
 * retried with the same key. Entries live as long as the simulator.
 */
import { createHash } from 'node:crypto';
import { SimError } from './errors.js';
import type { IdempotencyReading } from './readings.js';

/** A response as it was first sent: status, exact body text and its own headers. */
export interface CachedResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Who sent a key where. */
export interface IdempotencyScope {
  tokenHash: string;
  projectId: string;
  key: string;
}

interface Entry {
  fingerprint: string;
  response: CachedResponse;
}

/** The cache of first responses by scoped key. */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly reading: IdempotencyReading) {}

  /** A digest of the operation and the body: its exact text, or its canonical JSON. */
  fingerprint(route: string, rawBody: string, body: unknown): string {
    const compared = this.reading === 'json' ? canonicalJson(body) : rawBody;
    return createHash('sha256').update(route).update('\n').update(compared).digest('hex');
  }

  /** The cached response to replay, undefined for a new key, or 409 for a different request. */
  lookup(scope: IdempotencyScope, fingerprint: string): CachedResponse | undefined {
    const entry = this.entries.get(scopeKey(scope));
    if (entry === undefined) return undefined;
    if (entry.fingerprint !== fingerprint) {
      throw new SimError(
        409,
        'idempotency_conflict',
        'this Idempotency-Key was already used with a different request',
      );
    }
    return entry.response;
  }

  /** Caches the first response under the key. */
  remember(scope: IdempotencyScope, fingerprint: string, response: CachedResponse): void {
    this.entries.set(scopeKey(scope), { fingerprint, response });
  }

  /** How many keys are cached. */
  get size(): number {
    return this.entries.size;
  }
}

function scopeKey(scope: IdempotencyScope): string {
  return JSON.stringify([scope.tokenHash, scope.projectId, scope.key]);
}

/** JSON text with every object's keys sorted, so equal values give equal text. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return inner;
      const entries = Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries);
    }) ?? ''
  );
}
