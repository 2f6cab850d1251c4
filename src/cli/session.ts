/**
 * What every networked command opens: checked settings, the logger, and the wired engine over
 * the mirror file, closed together.
 */
import type { Logger } from 'pino';
import { createLogger } from '../daemon/logger.js';
import { wireEngine, type Engine, type EngineOptions } from '../daemon/wiring.js';
import { resolveRemoteSettings, type RemoteSettings } from './options.js';

/** An open command session. */
export interface Session {
  settings: RemoteSettings;
  logger: Logger;
  engine: Engine;
  close(): Promise<void>;
}

/** Checks the options (usage errors before any I/O), then opens the logger and the engine. */
export function openSession(
  args: Record<string, unknown>,
  engineOptions: Omit<EngineOptions, 'db' | 'logger'> = {},
): Session {
  const settings = resolveRemoteSettings(args);
  const logger = createLogger({
    level: String(args['logLevel'] ?? 'info'),
    secret: settings.token,
  });
  const engine = wireEngine(
    {
      baseUrl: settings.baseUrl,
      token: settings.token,
      caFile: settings.caFile,
      routes: args['routes'],
    },
    { ...engineOptions, db: String(args['db']), logger },
  );
  return { settings, logger, engine, close: () => engine.close() };
}
