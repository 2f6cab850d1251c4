/**
 * Tokens (spec section 5): only a SHA-256 hash of each `glt_` value is kept. A project token sees
 * the projects it was granted; an account token sees every project of its user.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Every token value begins with this. */
export const TOKEN_PREFIX = 'glt_';
const GENERATED_TOKEN_BYTES = 24;

/** What the simulator knows of a token: never its value. */
export interface TokenRecord {
  hash: string;
  userId: string;
  scope: 'account' | 'project';
  /** The granted projects of a project token (empty for account tokens). */
  projects: Set<string>;
  /** A name for the token, used in its integration identity's member name. */
  label: string;
}

/** The SHA-256 hex digest of a token value, as the request log and the registry key it. */
export function hashToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A fresh random token value. */
export function generateToken(): string {
  return `${TOKEN_PREFIX}sim_${randomBytes(GENERATED_TOKEN_BYTES).toString('base64url')}`;
}

/** The tokens the service has issued, by hash. */
export class TokenRegistry {
  private readonly byHash = new Map<string, TokenRecord>();

  /** Registers a token value; throws if it lacks the prefix or is already registered. */
  register(value: string, record: Omit<TokenRecord, 'hash'>): TokenRecord {
    if (!value.startsWith(TOKEN_PREFIX) || /\s/.test(value) || value === TOKEN_PREFIX) {
      throw new Error(`a token must start with ${TOKEN_PREFIX} and hold no spaces`);
    }
    const hash = hashToken(value);
    if (this.byHash.has(hash)) throw new Error('that token is already registered');
    const full = { ...record, hash };
    this.byHash.set(hash, full);
    return full;
  }

  /** The record of a presented token value, if the service issued it. */
  lookup(value: string): TokenRecord | undefined {
    return this.byHash.get(hashToken(value));
  }

  /** Removes a token by value; returns its record if it existed. */
  revoke(value: string): TokenRecord | undefined {
    const hash = hashToken(value);
    const record = this.byHash.get(hash);
    this.byHash.delete(hash);
    return record;
  }

  /** How many tokens are registered. */
  get size(): number {
    return this.byHash.size;
  }

  /** Every registered token. */
  all(): IterableIterator<TokenRecord> {
    return this.byHash.values();
  }
}
