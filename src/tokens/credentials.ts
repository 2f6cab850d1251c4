/**
 * The tokens a daemon works with: each a label (shown in logs, `status` and metrics) and a
 * secret (sent as the bearer, never shown). Labels are checked here, once, for every source.
 */
import { UsageError } from '../domain/index.js';

/** A token's scope (spec 5.4), when the configuration states it. */
export type TokenScope = 'project' | 'account';

/** Every token begins with this (spec 5.3); no label may. */
export const TOKEN_PREFIX = 'glt_';

/** The label of a token whose source names none (`PROJMIRROR_TOKEN`, the bare credential). */
export const DEFAULT_TOKEN_LABEL = 'default';

/** What a label may be: it lands in log keys, metric labels and a `daemon_state` key. */
export const TOKEN_LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** One configured token. `secret` goes only to the HTTP client and the realtime listener. */
export interface TokenCredential {
  label: string;
  secret: string;
  /** As the configuration states it; undefined when it does not. */
  scope?: TokenScope | undefined;
}

/** Throws `UsageError` naming a label that is malformed, or that is a token itself. */
export function checkTokenLabel(label: string, source: string): void {
  if (label.startsWith(TOKEN_PREFIX)) {
    throw new UsageError(
      `${source}: a token label must not be a token (it starts with ${TOKEN_PREFIX})`,
    );
  }
  if (!TOKEN_LABEL_PATTERN.test(label)) {
    throw new UsageError(
      `${source}: token label ${JSON.stringify(label)} is not 1 to 64 letters, digits, '.', '_' or '-'`,
    );
  }
}

/**
 * Checks a token set: at least one token, labels well formed and distinct, and no secret given
 * twice (two labels for one token would split its budget). Throws `UsageError` naming the first
 * problem; never the secret.
 */
export function checkTokenSet(tokens: readonly TokenCredential[]): void {
  if (tokens.length === 0) throw new UsageError('no token configured');
  const labels = new Set<string>();
  const secrets = new Map<string, string>();
  for (const token of tokens) {
    checkTokenLabel(token.label, 'tokens');
    if (labels.has(token.label)) {
      throw new UsageError(`token label ${JSON.stringify(token.label)} is given twice`);
    }
    labels.add(token.label);
    const twin = secrets.get(token.secret);
    if (twin !== undefined) {
      throw new UsageError(`tokens ${twin} and ${token.label} hold the same token`);
    }
    secrets.set(token.secret, token.label);
  }
}

/** A set of one token with the default label (tests, the demo, `PROJMIRROR_TOKEN`). */
export function singleToken(secret: string): TokenCredential[] {
  return [{ label: DEFAULT_TOKEN_LABEL, secret }];
}
