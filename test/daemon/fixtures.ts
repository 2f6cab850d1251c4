/** A daemon wired to a test simulator over real sockets, stopped when the test ends. */
import pino from 'pino';
import { onTestFinished } from 'vitest';
import { createDaemon, type DaemonOptions } from '../../src/daemon/compose.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import { openEngine, type EngineOptions } from '../../src/daemon/wiring.js';
import type { Clock } from '../../src/domain/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { tempDatabase } from '../fixtures/db.js';
import { singleToken } from '../../src/tokens/index.js';

export interface TestDaemon {
  daemon: Daemon;
  db: ReturnType<typeof tempDatabase>['db'];
}

/** Wires and starts a daemon against `sim` with its first token. */
export async function startTestDaemon(
  sim: Simulator,
  options: {
    clock?: Clock;
    realtime?: boolean;
    engine?: Partial<Omit<EngineOptions, 'db' | 'logger'>>;
    daemon?: Partial<DaemonOptions>;
    /** Runs on the new mirror before the engine opens it (a cap on its size, say). */
    beforeStart?: (db: TestDaemon['db']) => void;
  } = {},
): Promise<TestDaemon> {
  const { db } = tempDatabase();
  options.beforeStart?.(db);
  const logger = pino({ level: 'silent' });
  const engine = await openEngine(
    { baseUrl: new URL(sim.baseUrl), tokens: singleToken(sim.token) },
    { db, logger, ...(options.clock ? { clock: options.clock } : {}), ...options.engine },
  );
  const daemon = createDaemon({
    engine,
    logger,
    ...(options.realtime === false
      ? {}
      : { realtime: { url: new URL(sim.realtimeUrl), tokens: singleToken(sim.token) } }),
    ...options.daemon,
  });
  onTestFinished(async () => {
    await daemon.stop();
    await engine.close();
  });
  await daemon.start();
  return { daemon, db };
}

/**
 * Waits (real time) until the daemon's requests are answered and `sleepers` loops sleep again:
 * three looks `lookMs` apart find nothing new.
 */
export async function settle(
  clock: { pendingSleeps: number },
  sim: Simulator,
  sleepers: number,
  lookMs = 4,
): Promise<void> {
  let last = -1;
  let stable = 0;
  while (stable < 3) {
    await new Promise((resolve) => setTimeout(resolve, lookMs));
    const count = sim.requestLog.count();
    stable = count === last && clock.pendingSleeps >= sleepers ? stable + 1 : 0;
    last = count;
  }
}

/** Polls `check` every 10 ms (real time) until it returns true, or fails after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
