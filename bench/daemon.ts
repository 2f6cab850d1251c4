/** The daemon as `projmirror run` wires it, against a simulator, for benchmarks 4 and 6. */
import { createDaemon, type DaemonOptions } from '../src/daemon/compose.js';
import type { Daemon } from '../src/daemon/daemon.js';
import type { Engine } from '../src/daemon/wiring.js';
import type { Clock } from '../src/domain/index.js';
import type { Simulator } from '../src/sim/index.js';
import { benchEngine, silentLogger, tempMirror, type TempMirror } from './harness.js';
import { singleToken } from '../src/tokens/index.js';

/** A started daemon with its mirror; `stop()` ends both. */
export interface BenchDaemon {
  daemon: Daemon;
  engine: Engine;
  mirror: TempMirror;
  /** How many times the realtime channel dropped after connecting. */
  disconnects(): number;
  stop(): Promise<void>;
}

/** How a benchmark wants its daemon: its clock, whether it listens on realtime, other options. */
export interface BenchDaemonOptions {
  clock?: Clock;
  realtime: boolean;
  daemon?: Partial<DaemonOptions>;
}

/** Wires and starts a daemon on a fresh mirror of `sim`, with or without realtime. */
export async function startBenchDaemon(
  sim: Simulator,
  options: BenchDaemonOptions,
): Promise<BenchDaemon> {
  const bench = await createBenchDaemon(sim, options);
  await bench.daemon.start();
  return bench;
}

/**
 * Wires a daemon on a fresh mirror of `sim` without starting it: on a manual clock the caller
 * must step time while `daemon.start()` runs its first sync.
 */
export async function createBenchDaemon(
  sim: Simulator,
  options: BenchDaemonOptions,
): Promise<BenchDaemon> {
  const mirror = tempMirror();
  const engine = await benchEngine(sim.baseUrl, sim.token, mirror.db, {
    ...(options.clock ? { clock: options.clock } : {}),
  });
  let connected = false;
  let disconnects = 0;
  const daemon = createDaemon({
    engine,
    logger: silentLogger,
    ...(options.realtime
      ? { realtime: { url: new URL(sim.realtimeUrl), tokens: singleToken(sim.token) } }
      : {}),
    onRealtimeStatus: (up) => {
      if (connected && !up) disconnects += 1;
      connected = up;
    },
    ...options.daemon,
  });
  return {
    daemon,
    engine,
    mirror,
    disconnects: () => disconnects,
    stop: async () => {
      await daemon.stop();
      await engine.close();
      mirror.dispose();
    },
  };
}
