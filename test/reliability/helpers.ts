/**
 * Shared by the reliability tests: the CLI in a child process that a test can kill, optionally with
 * a storage fault (child/sqlite-fault.mjs); the mirror's integrity; and the mirror compared with
 * the simulator's state.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pino from 'pino';
import { openEngine } from '../../src/daemon/wiring.js';
import type { SyncReport } from '../../src/mirror/index.js';
import type { PushReport } from '../../src/outbox/index.js';
import { Prng, type Simulator } from '../../src/sim/index.js';
import { openDatabase, type SqliteDb } from '../../src/store/database.js';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { singleToken } from '../../src/tokens/index.js';

const SQLITE_FAULT = fileURLToPath(new URL('./child/sqlite-fault.mjs', import.meta.url));

/** A storage fault for the child: a read-only file, or a disk with this many pages left. */
export type StorageFault = 'readonly' | { fullAfterPages: number };

/** How a CLI child ended, and what it printed. */
export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI child: kill it, or await its end. */
export interface CliChild {
  child: ChildProcess;
  exit: Promise<CliExit>;
}

/** Starts `projmirror ...args` from source; PROJMIRROR_* variables are not passed on. */
export function spawnCli(args: string[], fault?: StorageFault): CliChild {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('PROJMIRROR_')),
  );
  if (fault !== undefined) {
    env['RELIABILITY_SQLITE_FAULT'] =
      fault === 'readonly' ? 'readonly' : `full:${fault.fullAfterPages}`;
  }
  const [importFlag, register, entry] = CLI_NODE_ARGS as [string, string, string];
  const child = spawn(
    process.execPath,
    [importFlag, register, '--import', SQLITE_FAULT, entry, ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliExit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exit };
}

/** The remote options of a command against `sim`, its token in a file, logs silenced. */
export function remoteArgs(sim: Simulator, dbFile: string): string[] {
  const tokenFile = join(tempDir('projmirror-token-'), 'token');
  writeFileSync(tokenFile, `${sim.token}\n`, { mode: 0o600 });
  return [
    '--base-url',
    sim.baseUrl,
    '--token-file',
    tokenFile,
    '--db',
    dbFile,
    '--log-level',
    'silent',
  ];
}

/**
 * What `sync` or `push` does, in this process (a restart, without a child's start-up time): the
 * file opened afresh, the engine wired by the composition root, then closed.
 */
export async function inProcess<T extends 'sync' | 'push'>(
  command: T,
  sim: Simulator,
  file: string,
): Promise<T extends 'sync' ? SyncReport : PushReport> {
  const db = openDatabase(file);
  const logger = pino({ level: 'silent' });
  const engine = await openEngine(
    { baseUrl: new URL(sim.baseUrl), tokens: singleToken(sim.token) },
    { db, logger },
  );
  try {
    if (command === 'sync') return (await engine.mirror.syncAll()) as never;
    const pusher = engine.pusher();
    return (await pusher.pushOnce({ ignoreBackoff: true })) as never;
  } finally {
    await engine.close();
    db.close();
  }
}

/** `PRAGMA integrity_check` and `foreign_key_check` of the file, opened as a restart opens it. */
export function checkIntegrity(file: string): { integrity: string; foreignKeyProblems: number } {
  const db = new Database(file);
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    const foreignKeyProblems = (db.pragma('foreign_key_check') as unknown[]).length;
    return { integrity, foreignKeyProblems };
  } finally {
    db.close();
  }
}

/** A sorted, comparable view of one project's tasks. */
export function taskLines(tasks: readonly Record<string, unknown>[]): string[] {
  return tasks
    .map((task) =>
      [task['id'], task['name'], task['status'], task['progress'], task['startDate']].join('|'),
    )
    .sort();
}

/** The project's tasks as the mirror holds them, in `taskLines` form. */
export function mirroredTaskLines(db: SqliteDb, projectId: string): string[] {
  const rows = db
    .prepare(
      `SELECT id, name, status, progress, start_date AS startDate FROM tasks WHERE project_id = ?`,
    )
    .all(projectId) as Record<string, unknown>[];
  return taskLines(rows);
}

/**
 * What differs between the mirror and the simulator for every project of `sim`: tasks (id, name,
 * status, progress, start date), and the ids of members, resources and dependencies. Empty when
 * the mirror has converged.
 */
export function differences(db: SqliteDb, sim: Simulator): string[] {
  const found: string[] = [];
  const ids = (sql: string, projectId: string) =>
    (db.prepare(sql).pluck().all(projectId) as string[]).sort();
  for (const project of sim.service.listProjects()) {
    const id = project.id;
    const tasks = taskLines(sim.service.listTasks(id));
    if (mirroredTaskLines(db, id).join('\n') !== tasks.join('\n')) found.push(`${id} tasks`);
    const lists = [
      ['members', sim.service.listMembers(id)],
      ['resources', sim.service.listResources(id)],
      ['dependencies', sim.service.listDependencies(id)],
    ] as const;
    for (const [table, records] of lists) {
      const expected = records.map((record) => record.id).sort();
      const held = ids(`SELECT id FROM ${table} WHERE project_id = ?`, id);
      if (held.join() !== expected.join()) found.push(`${id} ${table}`);
    }
  }
  return found;
}

/** A seeded PRNG in [0, 1) (the simulator's), so that kill points repeat from run to run. */
export function seededRandom(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

/** Polls `check` every 20 ms (real time) until it returns true; false after `timeoutMs`. */
export async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}
