/**
 * Three tokens against one simulator: two project tokens with overlapping grants (`a` sees p_1
 * and p_2, `b` sees p_2 and p_3) and the seeded user's account token (`c`, every project).
 */
import pino from 'pino';
import { onTestFinished } from 'vitest';
import { openEngine, type Engine, type EngineOptions } from '../../src/daemon/wiring.js';
import { hashToken, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import type { TokenCredential } from '../../src/tokens/index.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

/** The account token's value (`c`). */
export const ACCOUNT_TOKEN = 'glt_test_tokens_account';

/** The simulator and the three tokens, by label. */
export interface ThreeTokens {
  sim: Simulator;
  tokens: TokenCredential[];
  /** A token's value by label. */
  secret(label: string): string;
}

/** Starts a simulator of four projects (`options` may change the rest) and issues the tokens. */
export async function threeTokens(options: SimulatorOptions = {}): Promise<ThreeTokens> {
  const sim = await startTestSimulator({
    projects: 4,
    tasks: 30,
    tokens: [ACCOUNT_TOKEN],
    ...options,
  });
  const a = sim.service.createToken({
    projects: ['p_1', 'p_2'],
    label: 'Client A',
    value: 'glt_test_tokens_a',
  });
  const b = sim.service.createToken({
    projects: ['p_2', 'p_3'],
    label: 'Client B',
    value: 'glt_test_tokens_b',
  });
  const tokens: TokenCredential[] = [
    { label: 'a', secret: a, scope: 'project' },
    { label: 'b', secret: b },
    { label: 'c', secret: ACCOUNT_TOKEN, scope: 'account' },
  ];
  const secret = (label: string) => tokens.find((token) => token.label === label)!.secret;
  return { sim, tokens, secret };
}

/** The engine with every token over `options.db` or a fresh mirror, closed when the test ends. */
export async function tokensEngine(
  setup: ThreeTokens,
  options: Omit<EngineOptions, 'db' | 'logger'> & { db?: SqliteDb } = {},
): Promise<Engine & { db: SqliteDb }> {
  const { db = tempDatabase().db, ...rest } = options;
  const engine = await openEngine(
    { baseUrl: new URL(setup.sim.baseUrl), tokens: setup.tokens },
    { db, logger: pino({ level: 'silent' }), ...rest },
  );
  onTestFinished(() => engine.close());
  return Object.assign(engine, { db });
}

/** The labels of the tokens whose requests of `route` named `projectId`, in order. */
export function tokensUsed(setup: ThreeTokens, route: string, projectId: string): string[] {
  const byHash = new Map(setup.tokens.map((token) => [hashToken(token.secret), token.label]));
  const path = new RegExp(`/projects/${projectId}(/|\\?|$)`);
  return setup.sim.requestLog
    .filter({ where: (entry) => entry.route === route && path.test(entry.path) })
    .map((entry) => byHash.get(entry.tokenHash ?? '') ?? '?');
}
