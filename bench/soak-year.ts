/**
 * Benchmark 12's year: the daemon's daily units of work, driven directly at compressed time on a
 * manual clock. Each simulated day the service churns, then the daily reconcile passes every
 * project (`mirror.syncAll`), the retention job prunes history and the change feed at their
 * defaults, and the log is checkpointed as the daemon's own schedule does. Polls between
 * reconciles are not run: a poll is the same pass. The store runs on this thread (a store thread
 * stamps rows with its own system clock, which the manual clock cannot reach).
 */
import { existsSync, statSync } from 'node:fs';
import {
  DEFAULT_CHANGES_RETENTION_DAYS,
  DEFAULT_HISTORY_RETENTION_DAYS,
} from '../src/daemon/defaults.js';
import type { SqliteDb } from '../src/store/database.js';
import { benchEngine, tempMirror } from './harness.js';
import { DAY_MS } from './day-workload.js';
import { startSoakWorkload } from './soak-workload.js';

/** Days simulated. */
export const SOAK_DAYS = 365;
/** The days whose peak RSS is reported, besides the last. */
export const SOAK_RSS_DAYS = [1, 30];

/** What the year measured. */
export interface SoakYear {
  days: number;
  /** Peak RSS of each reported day, in bytes, by day number. */
  peakRss: Map<number, number>;
  /** The main file's size at the end (log checkpointed), and its live data (`VACUUM INTO`). */
  fileBytes: number;
  liveBytes: number;
  freePages: number;
  pageBytes: number;
  /** The write-ahead log's largest size seen after a unit of work. */
  walPeakBytes: number;
  /** Changes made on the service, and tasks live at the end. */
  changes: number;
  liveTasks: number;
  historyRows: number;
  /** When the oldest history row kept was observed. */
  oldestHistory: string | null;
  realMs: number;
}

/** Runs the year (or `days` of it). */
export async function soakYear(days = SOAK_DAYS): Promise<SoakYear> {
  const started = performance.now();
  const workload = await startSoakWorkload(false);
  const mirror = tempMirror();
  const { file } = mirror;
  const engine = await benchEngine(workload.sim.baseUrl, workload.sim.token, mirror.db, {
    clock: workload.clock,
    limits: false,
  });
  const peakRss = new Map<number, number>();
  let walPeakBytes = 0;
  let changes = 0;
  const sample = (day: number) => {
    if (SOAK_RSS_DAYS.includes(day) || day === days) {
      peakRss.set(day, Math.max(peakRss.get(day) ?? 0, process.memoryUsage().rss));
    }
    walPeakBytes = Math.max(walPeakBytes, fileSize(`${file}-wal`));
  };
  try {
    try {
      for (let day = 1; day <= days; day++) {
        if (day > 1) changes += workload.churn.apply();
        sample(day);
        const report = await engine.mirror.syncAll();
        if (!report.ok) throw new Error(`day ${day}: reconcile failed: ${report.error ?? ''}`);
        sample(day);
        const now = workload.clock.now();
        await engine.store.facts.pruneHistory(now, DEFAULT_HISTORY_RETENTION_DAYS);
        await engine.store.facts.pruneChanges(now, DEFAULT_CHANGES_RETENTION_DAYS);
        sample(day);
        await engine.store.health.checkpoint();
        sample(day);
        workload.clock.stepTo(now + DAY_MS);
      }
    } finally {
      await engine.close();
    }
    const measured = measureFile(mirror.db, file);
    return { days, peakRss, walPeakBytes, changes, ...measured, realMs: since(started) };
  } finally {
    await workload.sim.close();
    mirror.dispose();
  }
}

/** The mirror's size against a compact copy of it, and what it holds. */
function measureFile(db: SqliteDb, file: string) {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const copy = `${file}.live`;
  db.prepare('VACUUM INTO ?').run(copy);
  const pluck = (sql: string) => db.prepare(sql).pluck().get();
  return {
    fileBytes: fileSize(file),
    liveBytes: fileSize(copy),
    freePages: db.pragma('freelist_count', { simple: true }) as number,
    pageBytes: db.pragma('page_size', { simple: true }) as number,
    liveTasks: pluck('SELECT count(*) FROM tasks') as number,
    historyRows: pluck('SELECT count(*) FROM task_history') as number,
    oldestHistory: pluck('SELECT min(observed_at) FROM task_history') as string | null,
  };
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function since(start: number): number {
  return performance.now() - start;
}
