/**
 * Benchmark 8 (issue 15): the cold sync of benchmark 1 (one 100,000-task project, the simulator
 * in its own process with limits off, the engine wired as `sync` wires it) into a fresh SQLite
 * file and into a fresh PostgreSQL database of a server the benchmark starts on loopback, as a
 * ratio, with where PostgreSQL's time goes; the unchanged second pass on PostgreSQL as a check.
 * 8b: passes that commit real work while another process runs a heavy report query in a loop on
 * its own connection; no pass may wait on the reader's locks (see `postgres-readers.ts`).
 */
import { connectionOf } from '../src/store/handle.js';
import { openMirror } from '../src/store/open.js';
import { readFileSync } from 'node:fs';
import type { Db } from '../src/store/db.js';
import { startPgServer } from '../test/fixtures/pg-server.js';
import { timedPass, type Pass } from './cold-sync.js';
import { duration, num, type Figure } from './figure.js';
import { benchEngine, spawnSimulator, tempMirror } from './harness.js';
import {
  PROFILED_SERVER_SETTINGS,
  recordRoundTrips,
  StatementStatistics,
  type RoundTrips,
  type ServerTime,
} from './postgres-profile.js';
import { readerPasses, type ReaderKind, type ReaderPass } from './postgres-readers.js';

/** Tasks in the project, as in benchmark 1. */
export const PG_COLD_SYNC_TASKS = 100_000;
/** A pass with the report reader may take at most this many times one without a reader. */
export const READER_TARGET_RATIO = 1.25;
/** Statement kinds listed in the profile of each pass. */
const PROFILED_STATEMENTS = 6;
const PROJECT_ID = 'p_1';

/** A pass into PostgreSQL and what it cost. */
interface ProfiledPass {
  pass: Pass;
  trips: RoundTrips;
  server: ServerTime;
  held: number;
}

/** Runs benchmarks 8 and 8b; returns their figures. */
export async function postgresBenchmarks(tasks = PG_COLD_SYNC_TASKS): Promise<Figure[]> {
  const sim = await spawnSimulator(['--no-limits', '--projects', '1', '--tasks', String(tasks)]);
  const server = await startPgServer({ settings: PROFILED_SERVER_SETTINGS });
  const mirror = tempMirror();
  try {
    const sqlite = await benchEngine(sim.baseUrl, sim.token, mirror.db, { limits: false });
    const onSqlite = await timedPass(() => sqlite.mirror.syncAll());
    const warmOnSqlite = await timedPass(() => sqlite.mirror.syncAll());
    await sqlite.close();
    const dbUrl = await server.database();
    const statistics = new StatementStatistics(dbUrl);
    const pgDb = connectionOf(await openMirror({ db: dbUrl }, 'write'));
    const engine = Object.assign(
      await benchEngine(sim.baseUrl, sim.token, pgDb, { limits: false }),
      { db: pgDb },
    );
    try {
      const sync = () => engine.mirror.syncAll();
      const cold = await profiledPass(engine.db, statistics, sync);
      printProfile('cold sync', cold, tasks);
      const before = await tasksStamp(engine.db);
      const warm = await profiledPass(engine.db, statistics, sync);
      printProfile('unchanged second pass', warm, tasks);
      const untouched = (await tasksStamp(engine.db)) === before;
      const setting = { engine, baseUrl: sim.baseUrl, token: sim.token, dbUrl };
      const passes = await readerPasses({ ...setting, projectId: PROJECT_ID, taskCount: tasks });
      const loggedWaits = lockWaitsLogged(server.logFile);
      return [
        coldFigure(tasks, [onSqlite, warmOnSqlite], cold, warm, untouched),
        readerFigure(passes, loggedWaits),
      ];
    } finally {
      await engine.close();
      pgDb.close();
    }
  } finally {
    mirror.dispose();
    server.stop();
    await sim.close();
  }
}

async function profiledPass(
  db: Db,
  statistics: StatementStatistics,
  sync: Parameters<typeof timedPass>[0],
): Promise<ProfiledPass> {
  await statistics.reset();
  const recorder = recordRoundTrips();
  let pass: Pass;
  try {
    pass = await timedPass(sync);
  } finally {
    recorder.stop();
  }
  const server = await statistics.read();
  const held = Number(await db.prepare('SELECT count(*) FROM tasks').pluck().get());
  return { pass, trips: recorder.trips, server, held };
}

/** When each task row was last written, summed up: any write changes it. */
async function tasksStamp(db: Db): Promise<string> {
  const sql = 'SELECT count(*), max(synced_at), sum(octet_length(data::text)) FROM tasks';
  return JSON.stringify(await db.prepare(sql).raw().get());
}

/** Lock waits the server logged past `deadlock_timeout` (10 ms) during the whole benchmark. */
function lockWaitsLogged(logFile: string): number {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('still waiting for')).length;
}

/** A pass's time split: the server's execution, the rest of each round trip, the engine. */
function printProfile(label: string, profiled: ProfiledPass, tasks: number): void {
  const { trips, server, pass } = profiled;
  const share = (ms: number) => `${duration(ms)} (${num((100 * ms) / pass.ms)}%)`;
  console.log(
    `    ${label}: ${duration(pass.ms)}, ${num(trips.count)} round trips (${num(trips.count / tasks, 2)} per task), ` +
      `waited ${share(trips.ms)}: server execution ${share(server.execMs)} over ` +
      `${num(server.calls)} statements, transport and driver ${share(trips.ms - server.execMs)}; ` +
      `engine (HTTP, parsing, validation) ${share(pass.ms - trips.ms)}`,
  );
  for (const kind of trips.statements().slice(0, PROFILED_STATEMENTS)) {
    console.log(
      `      ${num(kind.count).padStart(9)} x ${duration(kind.ms).padStart(8)}  ${kind.statement}`,
    );
  }
}

/** PostgreSQL's cold sync speed over SQLite's that issue 20 asks for. */
export const POSTGRES_TARGET_RATIO = 0.8;

function coldFigure(
  tasks: number,
  [onSqlite, warmOnSqlite]: [Pass, Pass],
  cold: ProfiledPass,
  { pass: warm }: ProfiledPass,
  untouched: boolean,
): Figure {
  const rate = (pass: Pass) => tasks / (pass.ms / 1_000);
  const ratio = rate(cold.pass) / rate(onSqlite);
  const { pagesRead, pagesNotModified, rowsWritten } = warm.project;
  const warmOk = pagesRead > 0 && pagesRead === pagesNotModified && rowsWritten === 0 && untouched;
  const complete = cold.held === tasks;
  const note = [
    complete ? '' : `PostgreSQL holds ${cold.held} of ${tasks} tasks`,
    warmOk
      ? ''
      : `second pass: ${pagesRead - pagesNotModified} page(s) 200, ${rowsWritten} row(s) written`,
  ].filter(Boolean);
  return {
    id: '8',
    title: `Cold sync, ${num(tasks)} tasks, into PostgreSQL vs SQLite (same machine)`,
    value:
      `PostgreSQL ${num(rate(cold.pass))} tasks/s (${duration(cold.pass.ms)}, ${num(cold.trips.count)} statements); ` +
      `unchanged second pass ${duration(warm.ms)}, ${pagesNotModified}/${pagesRead} pages 304, ${rowsWritten} rows written`,
    baseline: `SQLite ${num(rate(onSqlite))} tasks/s (${duration(onSqlite.ms)}), unchanged second pass ${duration(warmOnSqlite.ms)}: ratio ${num(ratio, 2)}`,
    target: `ratio >= ${POSTGRES_TARGET_RATIO} (issue 20); every task held, second pass all 304 and 0 rows written`,
    met: complete && warmOk && ratio >= POSTGRES_TARGET_RATIO,
    ...(note.length > 0 ? { note: note.join('; ') } : {}),
  };
}

/** The mean time of the passes of `kind`, and the passes themselves. */
function ofKind(passes: readonly ReaderPass[], kind: ReaderKind) {
  const chosen = passes.filter((pass) => pass.kind === kind);
  const meanMs = chosen.reduce((sum, pass) => sum + pass.ms, 0) / chosen.length;
  return { passes: chosen, meanMs };
}

/** The longest of `measure` over `passes`. */
function longest(passes: readonly ReaderPass[], measure: (pass: ReaderPass) => number): number {
  return Math.max(...passes.map(measure));
}

function readerFigure(passes: readonly ReaderPass[], loggedWaits: number): Figure {
  const alone = ofKind(passes, 'none');
  const report = ofKind(passes, 'report');
  const ratio = report.meanMs / alone.meanMs;
  const readers = report.passes.flatMap((pass) => (pass.reader ? [pass.reader] : []));
  const sampled = readers.reduce((sum, reader) => sum + reader.lockWaits, 0);
  const samples = readers.reduce((sum, reader) => sum + reader.samples, 0);
  const queries = readers.reduce((sum, reader) => sum + reader.queries, 0);
  const queryMs = Math.max(...readers.map((reader) => reader.meanQueryMs));
  const commit = (pass: ReaderPass) => pass.longestCommitMs;
  const transaction = (pass: ReaderPass) => pass.longestTransactionMs;
  const rows = Math.min(...passes.map((pass) => pass.rowsWritten));
  const waited = sampled + loggedWaits;
  const waiting = [...new Set(readers.flatMap((reader) => reader.waiting))];
  const note = [
    waited === 0 ? '' : `lock waits: ${waiting.join(' | ') || `${loggedWaits} logged`}`,
    ratio <= READER_TARGET_RATIO ? '' : `passes beside the reader took ${num(ratio, 2)} x as long`,
  ].filter(Boolean);
  return {
    id: '8b',
    title: 'Passes into PostgreSQL while another connection runs a heavy report query in a loop',
    value:
      `pass mean ${duration(report.meanMs)} (${report.passes.length} passes, >= ${num(rows)} rows ` +
      `written each, ${queries} report queries running throughout, ${duration(queryMs)} each at ` +
      `most); longest COMMIT ${duration(longest(report.passes, commit))}, longest transaction ` +
      `${duration(longest(report.passes, transaction))}; lock waits ${waited} (${num(samples)} ` +
      `samples of pg_stat_activity, ${loggedWaits} logged by log_lock_waits)`,
    baseline:
      `no reader: mean ${duration(alone.meanMs)}, longest COMMIT ` +
      `${duration(longest(alone.passes, commit))}, longest transaction ` +
      `${duration(longest(alone.passes, transaction))}: ratio ${num(ratio, 2)}`,
    target: `no lock wait; ratio near 1 (<= ${READER_TARGET_RATIO})`,
    met: waited === 0 && ratio <= READER_TARGET_RATIO,
    ...(note.length > 0 ? { note: note.join('; ') } : {}),
  };
}
