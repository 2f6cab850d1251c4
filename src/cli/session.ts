/**
 * What every networked command opens: checked settings, the logger, the mirror file and the
 * wired engine, closed together.
 */
import type { Logger } from 'pino';
import { createLogger } from '../daemon/logger.js';
import { wireEngine, type Engine, type EngineOptions } from '../daemon/wiring.js';
import { openDatabase, type Db } from '../store/database.js';
import { resolveRemoteSettings, type RemoteSettings } from './options.js';

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
  const logger = createLogger({
    level: String(args['logLevel'] ?? 'info'),
    secret: settings.token,
  });
  const db = openDatabase(String(args['db']));
  let engine: Engine;
  try {
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
