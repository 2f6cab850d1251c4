/** Opening the mirror for a command that writes it. */
import { StoreError } from '../domain/index.js';
import { openDatabase, type SqliteDb } from './database.js';
import { connectionOf, type MirrorHandle } from './handle.js';

/**
 * Opens the mirror file for writing. Fails with one line naming the file when it cannot be
 * written (a read-only file, directory or mount, which SQLite opens read-only without a word),
 * so that `sync`, `push` and `run` stop at once instead of failing every write.
 */
export function openMirrorFile(file: string): SqliteDb {
  const db = openDatabase(file);
  try {
    assertWritable(db, file);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The probe writes nothing: a DELETE that matches no row still needs a write transaction. A lock
 * held by another writer is not read-only: the command's own writes wait for it as usual.
 */
function assertWritable(db: SqliteDb, file: string): void {
  try {
    db.prepare('DELETE FROM daemon_state WHERE 0').run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_READONLY')) {
      throw new StoreError(`database ${file} is read-only: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY')) throw error;
  }
}

/**
 * A probe of `mirror` as a writer would meet it: each call takes and gives back the write lock
 * (waiting, as writes do, while another writer holds it), and writes nothing. A DELETE that
 * matches no row still takes the lock (and, on PostgreSQL, a round trip).
 */
export function writeProbe(mirror: MirrorHandle): () => Promise<void> {
  const db = connectionOf(mirror);
  const probe = db.prepare('DELETE FROM daemon_state WHERE 0 = 1');
  return () =>
    db.transaction(async () => {
      await probe.run();
    }, 'immediate');
}
