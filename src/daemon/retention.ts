/** The daily pruning of the history and the change feed past their retention. */
import type { Logger } from 'pino';
import type { Clock } from '../domain/index.js';
import type { Store } from '../store/port.js';
import { DEFAULT_CHANGES_RETENTION_DAYS, DEFAULT_HISTORY_RETENTION_DAYS } from './defaults.js';

/** How long history and changes are kept, in days. */
export interface RetentionOptions {
  historyRetentionDays?: number | undefined;
  changesRetentionDays?: number | undefined;
}

/** Prunes the history and the change feed older than their retention, logging what went. */
export async function pruneRetained(
  facts: Pick<Store['facts'], 'pruneHistory' | 'pruneChanges' | 'reclaimSpace'>,
  clock: Clock,
  logger: Logger,
  options: RetentionOptions,
): Promise<void> {
  const days = options.historyRetentionDays ?? DEFAULT_HISTORY_RETENTION_DAYS;
  const removed = await facts.pruneHistory(clock.now(), days);
  logger.info({ removed, days }, 'history pruned');
  const changesDays = options.changesRetentionDays ?? DEFAULT_CHANGES_RETENTION_DAYS;
  const pruned = await facts.pruneChanges(clock.now(), changesDays);
  logger.info({ removed: pruned, days: changesDays }, 'changes pruned');
  const pages = await facts.reclaimSpace();
  if (pages > 0) logger.info({ pages }, 'free pages given back to the file system');
}
