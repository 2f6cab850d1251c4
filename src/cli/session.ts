/**
 * What every networked command opens: checked settings, the logger, the mirror file and the
 * wired engine, closed together.
 */
import type { Logger } from 'pino';
import { createLogger } from '../daemon/logger.js';
import { StoreError } from '../domain/index.js';
import { wireEngine, type Engine, type EngineOptions } from '../daemon/wiring.js';
import { openDatabase, type Db } from '../store/database.js';
import { recordTimeZone } from '../store/timezone.js';
import { parseTimeZone, resolveRemoteSettings, type RemoteSettings } from './options.js';

/** An open command session. */
export interface Session {
  settings: RemoteSettings;
  logger: Logger;
  db: Db;
  engine: Engine;
  close(): Promise<void>;
}

/** Checks the options (usage errors before any I/O), then opens the logger, database and engine. */
export function openSession(
  args: Record<string, unknown>,
  engineOptions: Omit<EngineOptions, 'db' | 'logger'> = {},
): Session {
  const settings = resolveRemoteSettings(args);
  const timezone = parseTimeZone(args['timezone']);
  const logger = createLogger({
    level: String(args['logLevel'] ?? 'info'),
    secret: settings.token,
  });
  const file = String(args['db']);
  const db = openDatabase(file);
  let engine: Engine;
  try {
    assertWritable(db, file);
    if (timezone !== undefined) recordTimeZone(db, timezone, Date.now());
    engine = wireEngine(
      {
        baseUrl: settings.baseUrl,
        token: settings.token,
        caFile: settings.caFile,
        routes: args['routes'],
      },
      { ...engineOptions, db, logger },
    );
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    settings,
    logger,
    db,
    engine,
    close: async () => {
      await engine.close();
      if (db.open) db.close();
    },
  };
}

/**
 * Fails with one line naming the file when the mirror cannot be written (a read-only file,
 * directory or mount, which SQLite opens read-only without a word), so that `sync`, `push` and
 * `run` stop at once instead of failing every write. The probe writes nothing: a DELETE that
 * matches no row still needs a write transaction. A lock held by another writer is not read-only:
 * the command's own writes wait for it as usual.
 */
export function assertWritable(db: Db, file: string): void {
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
