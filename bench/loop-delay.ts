/**
 * Benchmark 9 (issue 23): the daemon's event loop while the store writes. A cold sync of
 * benchmark 1's project (100,000 tasks, simulator in its own process, limits off) through the
 * store thread, into a fresh SQLite file (9) and a fresh PostgreSQL database (9b), with Node's
 * event-loop delay histogram (`perf_hooks.monitorEventLoopDelay`) recording the main thread's
 * stalls: its p99 is what a health probe, a signal or a realtime frame waits at worst, most of the
 * time. 9c: the same PostgreSQL cold sync through a TCP proxy that delays every chunk by 2 ms each
 * way (a database on another machine), as a ratio to loopback; 9d: the unchanged pass after it,
 * the same way (what a daemon's reconcile costs over a network).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startPgServer } from '../test/fixtures/pg-server.js';
import { timedPass, type Pass } from './cold-sync.js';
import { duration, num, type Figure } from './figure.js';
import { benchEngine, siblingModule, spawnSimulator, tempMirror } from './harness.js';

/** Tasks in the project (benchmark 1's). */
export const LOOP_DELAY_TASKS = 100_000;
/** The p99 event-loop delay a cold sync may cause, in ms. */
export const LOOP_DELAY_TARGET_MS = 20;
/** The added latency of the proxy each way, in ms. */
export const PROXY_DELAY_MS = 2;
/** The slowest a cold sync through the proxy may be, as a ratio to loopback. */
export const PROXY_TARGET_RATIO = 1.5;

/**
 * A cold sync into `db` (a file path or URL: the engine opens it on its store thread), then, if
 * asked (`again`), the unchanged pass after it.
 */
async function coldSync(baseUrl: string, token: string, db: string, again = false) {
  const engine = await benchEngine(baseUrl, token, db, { limits: false });
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  try {
    const pass: Pass = await timedPass(() => engine.mirror.syncAll());
    delay.disable();
    const unchanged = again ? await timedPass(() => engine.mirror.syncAll()) : undefined;
    return { pass, again: unchanged, p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 };
  } finally {
    delay.disable();
    await engine.close();
  }
}

/** Runs benchmark 9; returns its figures. */
export async function loopDelayBenchmarks(tasks = LOOP_DELAY_TASKS): Promise<Figure[]> {
  const sim = await spawnSimulator(['--no-limits', '--projects', '1', '--tasks', String(tasks)]);
  const server = await startPgServer();
  const mirror = tempMirror();
  const proxy = await delayingProxy(server.port, PROXY_DELAY_MS);
  try {
    mirror.db.close();
    const sqlite = await coldSync(sim.baseUrl, sim.token, mirror.file);
    const direct = await coldSync(sim.baseUrl, sim.token, await server.database(), true);
    const far = new URL(await server.database());
    far.port = String(proxy.port);
    const proxied = await coldSync(sim.baseUrl, sim.token, far.href, true);
    return [
      loopFigure('9', 'SQLite', sqlite, tasks),
      loopFigure('9b', 'PostgreSQL', direct, tasks),
      proxyFigure(direct.pass, proxied.pass, tasks),
      unchangedFigure(direct.again!, proxied.again!),
    ];
  } finally {
    await proxy.close();
    mirror.dispose();
    server.stop();
    await sim.close();
  }
}

function loopFigure(
  id: string,
  engine: string,
  run: { pass: Pass; p99Ms: number; maxMs: number },
  tasks: number,
): Figure {
  return {
    id,
    title: `Event-loop delay during a cold sync of ${num(tasks)} tasks into ${engine}`,
    value: `p99 ${num(run.p99Ms, 1)} ms, max ${num(run.maxMs, 1)} ms`,
    baseline: `the cold sync itself: ${duration(run.pass.ms)}`,
    target: `p99 < ${LOOP_DELAY_TARGET_MS} ms`,
    met: run.p99Ms < LOOP_DELAY_TARGET_MS,
  };
}

function proxyFigure(direct: Pass, proxied: Pass, tasks: number): Figure {
  const ratio = proxied.ms / direct.ms;
  return {
    id: '9c',
    title: `PostgreSQL cold sync of ${num(tasks)} tasks, ${PROXY_DELAY_MS} ms added each way`,
    value: duration(proxied.ms),
    baseline: `loopback ${duration(direct.ms)}: ratio ${num(ratio, 2)}`,
    target: `ratio <= ${PROXY_TARGET_RATIO}`,
    met: ratio <= PROXY_TARGET_RATIO,
    ...(ratio <= PROXY_TARGET_RATIO
      ? {}
      : {
          note: 'every round trip to the server adds 4 ms, and a pass makes them one at a time',
        }),
  };
}

function unchangedFigure(direct: Pass, proxied: Pass): Figure {
  const { pagesRead, pagesNotModified, rowsWritten } = proxied.project;
  return {
    id: '9d',
    title: `PostgreSQL unchanged second pass of the same project, ${PROXY_DELAY_MS} ms added each way`,
    value: `${duration(proxied.ms)} (${pagesNotModified}/${pagesRead} pages 304, ${rowsWritten} rows written)`,
    baseline: `loopback ${duration(direct.ms)}: ratio ${num(proxied.ms / direct.ms, 2)}`,
    target: 'none (informative)',
    met: true,
  };
}

/** `delay-proxy.ts` in its own process, forwarding to 127.0.0.1:`port` with `delayMs` each way. */
async function delayingProxy(port: number, delayMs: number) {
  const child = spawn(
    process.execPath,
    [...process.execArgv, siblingModule('delay-proxy'), String(port), String(delayMs)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the proxy exited with code ${String(code)}`)));
  });
  return {
    port: Number(line),
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
