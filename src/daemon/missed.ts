/**
 * The one place that makes a project due again after work that learned something it could not
 * write or read (issue 34): a failed event write, a failed refresh, a pass the full disk refused.
 */
import type { Logger } from 'pino';
import { isDiskFull, isTransientStoreError, StoreError, type Clock } from '../domain/index.js';
import type { DiskWatch } from './disk-watch.js';
import type { Freshness } from './freshness.js';
import type { PollScheduler } from './poll-scheduler.js';
import type { StoreWatch } from './store-watch.js';

/** What `MissedWork` tells when a project must be passed again. */
export interface MissedWorkOptions {
  clock: Clock;
  logger: Logger;
  /** The daemon's signal: nothing is made due once it stops. */
  signal: AbortSignal;
  freshness: Pick<Freshness, 'stale'>;
  disk: Pick<DiskWatch, 'refused'>;
  scheduler: Pick<PollScheduler, 'dueAt' | 'recordResult'>;
  storeWatch: Pick<StoreWatch, 'troubleSeen'>;
  /** While the disk is full, how long before a refused project is passed again. */
  diskFullRetryMs: number;
}

/** Projects whose work was lost, passed again when the store or the service allows. */
export class MissedWork {
  /** Projects whose event the store could not take: passed once it answers again. */
  private readonly awaitingStore = new Set<string>();

  constructor(private readonly options: MissedWorkOptions) {}

  /**
   * What a unit of work learned but could not write is not lost: each of `projectIds` is passed
   * again, as soon as the store answers when the store refused the write (a lock held too long,
   * the database away), else (a read that failed) with the failed-pass backoff.
   */
  missed(projectIds: readonly string[], error: unknown): void {
    const { freshness, scheduler, storeWatch } = this.options;
    if (this.options.signal.aborted) return;
    for (const projectId of projectIds) freshness.stale(projectId);
    if (isDiskFull(error)) {
      // The write probe writes nothing and answers on a full disk: retried once a minute.
      this.diskRefused(projectIds, error);
      return;
    }
    if (isTransientStoreError(error) || error instanceof StoreError) {
      for (const projectId of projectIds) this.awaitingStore.add(projectId);
      storeWatch.troubleSeen();
    } else {
      for (const projectId of projectIds) scheduler.recordResult(projectId, false);
    }
  }

  /** The disk refused a write of `projectIds`: tried again within a minute, whatever the backoff. */
  diskRefused(projectIds: readonly string[], error: unknown): void {
    this.options.disk.refused(error);
    const at = this.options.clock.now() + this.options.diskFullRetryMs;
    for (const projectId of projectIds) this.options.scheduler.dueAt(projectId, at);
  }

  /** The store answers again: every project whose event it could not take is passed now. */
  storeBack(): void {
    const due = [...this.awaitingStore];
    this.awaitingStore.clear();
    for (const projectId of due) this.options.scheduler.dueAt(projectId, this.options.clock.now());
    if (due.length > 0)
      this.options.logger.info({ projects: due }, 'passing what the store missed');
  }
}
