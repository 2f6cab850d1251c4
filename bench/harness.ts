/**
 * What every benchmark shares: a simulator in its own process, a mirror file in a temporary
 * directory, the engine wired as the commands wire it, and small statistics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { openEngine, type Engine, type EngineOptions } from '../src/daemon/wiring.js';
import { openDatabase, type SqliteDb } from '../src/store/database.js';
import { singleToken } from '../src/tokens/index.js';

/** How long a simulator child may take to seed and print its address. */
export const SIMULATOR_START_TIMEOUT_MS = 120_000;

/** A logger that writes nothing: benchmarks print their own lines. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** The repository root (the folder holding package.json), from source or from `dist/`. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above bench/');
    dir = parent;
  }
  return dir;
}

/** A sibling module of the running benchmark, compiled (`.js`) or from source (`.ts`). */
export function siblingModule(name: string): string {
  const js = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  return existsSync(js) ? js : js.replace(/\.js$/, '.ts');
}

/** A simulator running in a child process (`projmirror simulate`), so it does not share our CPU. */
export interface SimulatorProcess {
  baseUrl: string;
  realtimeUrl: string;
  token: string;
  /** The child's pid, to read its memory. */
  pid: number;
  close(): Promise<void>;
}

/** Starts `projmirror simulate ...args` (the built CLI) and waits for its JSON line. */
export async function spawnSimulator(args: string[]): Promise<SimulatorProcess> {
  const bin = join(repoRoot(), 'bin', 'projmirror.js');
  const child = spawn(process.execPath, [bin, 'simulate', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const closed = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const line = await firstLine(child);
    const info = JSON.parse(line) as { baseUrl: string; realtimeUrl: string; tokens: string[] };
    return {
      baseUrl: info.baseUrl,
      realtimeUrl: info.realtimeUrl,
      token: info.tokens[0] ?? '',
      pid: child.pid ?? 0,
      close: async () => {
        child.kill('SIGTERM');
        await closed;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      reject(new Error('the simulator did not start in time'));
    }, SIMULATOR_START_TIMEOUT_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited with code ${String(code)} before listening`));
    });
  });
}

/** A new mirror file in its own temporary directory, and a way to remove both. */
export interface TempMirror {
  db: SqliteDb;
  file: string;
  dispose(): void;
}

/** Opens a fresh mirror as the commands open it (WAL, schema applied). */
export function tempMirror(): TempMirror {
  const dir = mkdtempSync(join(tmpdir(), 'projmirror-bench-'));
  const file = join(dir, 'mirror.sqlite');
  const db = openDatabase(file);
  return {
    db,
    file,
    dispose: () => {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A request window so large that it never holds a request back ("limits off"). */
export const UNLIMITED_WINDOW = Number.MAX_SAFE_INTEGER;

/**
 * The engine of `projmirror sync`/`run` (governor, HTTP remote, mirror) against `baseUrl`, over
 * `db` (an open mirror, or a path or `postgres://` URL the engine opens and closes). With
 * `limits: false` the governor's burst and per-IP windows are opened too, to match a simulator
 * run with `--no-limits`.
 */
export function benchEngine(
  baseUrl: string,
  token: string,
  db: EngineOptions['db'],
  options: Omit<EngineOptions, 'db' | 'logger'> & { limits?: boolean } = {},
): Promise<Engine> {
  const { limits = true, ...engineOptions } = options;
  const governor = limits
    ? engineOptions.governor
    : { ...engineOptions.governor, burstLimit: UNLIMITED_WINDOW, ipLimit: UNLIMITED_WINDOW };
  return openEngine(
    { baseUrl: new URL(baseUrl), tokens: singleToken(token) },
    { ...engineOptions, ...(governor ? { governor } : {}), db, logger: silentLogger },
  );
}

/** The `q`-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return performance.now() - start;
}

/** Resolves after `ms` of real time. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs a full garbage collection when node runs with --expose-gc (npm run bench does). */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
