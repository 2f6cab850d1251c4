/**
 * The write-ahead log on the daemon's own schedule. SQLite's automatic checkpoint copies what it
 * can at a commit, but cannot reset the log while a reader holds an older snapshot (a BI tool
 * inside a transaction), so every write appends and the file grows. This checkpoint copies what
 * it can (PASSIVE: it waits on nobody), and when everything was copied, starts the log over empty
 * (TRUNCATE, with no wait: a reader still in the log makes it give up until the next one).
 */
import { statSync } from 'node:fs';
import { connectionOf, type MirrorHandle } from './handle.js';
import { sqliteOf } from './sqlite-connection.js';

/** What one checkpoint came to. */
export interface CheckpointResult {
  /** The log file's size after it, in bytes. */
  walBytes: number;
  /** Every frame of the log is in the database: no reader held an older snapshot. */
  complete: boolean;
  /** The log was started over empty: no reader was in it either. */
  truncated: boolean;
}

/** The checkpoint of `mirror`; undefined where there is no log of ours (PostgreSQL, memory). */
export function walCheckpoint(mirror: MirrorHandle): (() => CheckpointResult) | undefined {
  const sqlite = sqliteOf(connectionOf(mirror));
  if (sqlite === undefined || sqlite.memory || sqlite.readonly) return undefined;
  const wal = `${sqlite.name}-wal`;
  const size = () => {
    try {
      return statSync(wal).size;
    } catch {
      return 0;
    }
  };
  return () => {
    const [passive] = sqlite.pragma('wal_checkpoint(PASSIVE)') as CheckpointRow[];
    const complete = passive !== undefined && passive.log === passive.checkpointed;
    let truncated = false;
    if (complete) {
      const timeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
      sqlite.pragma('busy_timeout = 0');
      try {
        const [row] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as CheckpointRow[];
        truncated = row !== undefined && row.busy === 0;
      } finally {
        sqlite.pragma(`busy_timeout = ${timeout}`);
      }
    }
    return { walBytes: size(), complete, truncated };
  };
}

/** A row of `PRAGMA wal_checkpoint`: busy 1 when it gave up; frames in the log and copied. */
interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}
