/**
 * The daemon's change-rate estimates, per project: every pass is a look at the project (it found
 * a change when it wrote a row), the estimates are kept in the mirror (`change_rates`) after each
 * pass and loaded at start, so a restart keeps them, and the plan reads them pooled
 * (`ChangeRates.pooledRates`).
 *
 * A refresh that an event asked for is counted like a poll. While realtime is connected this
 * counts the project's changes more often than a poll at random times would (the refresh comes
 * because something changed); the plan then only reconciles and ignores the rates, and the bias
 * decays with the estimates' half-life once realtime is gone.
 */
import type { Logger } from 'pino';
import { ChangeRates } from '../budget/index.js';
import { errorLine, isDiskFull, type Clock } from '../domain/index.js';
import type { ProjectSyncResult } from '../mirror/index.js';
import type { StatePort } from '../store/port.js';

/** Each project's change rate, learned from its passes and kept in the mirror. */
export class PollRates {
  private readonly rates: ChangeRates;
  private readonly clock: Clock;
  private readonly state: StatePort;
  private readonly logger: Logger;
  /** Projects observed since the last save. */
  private readonly dirty = new Set<string>();
  /** Passes noted: a poll and a refresh that joined one pass share its result, counted once. */
  private readonly noted = new WeakSet<ProjectSyncResult>();

  constructor(clock: Clock, state: StatePort, logger: Logger) {
    this.clock = clock;
    this.state = state;
    this.logger = logger;
    this.rates = new ChangeRates(clock);
  }

  /** Adopts the estimates the mirror keeps; a mirror that cannot be read leaves them at the prior. */
  load(): Promise<void> {
    return this.read(() => true);
  }

  /**
   * Adopts the mirror's estimates of `projectIds`, which another daemon held (on a shared
   * PostgreSQL mirror): theirs are newer than what this one loaded at start.
   */
  adopt(projectIds: readonly string[]): Promise<void> {
    const wanted = new Set(projectIds);
    return this.read((key) => wanted.has(key));
  }

  private async read(keep: (key: string) => boolean): Promise<void> {
    try {
      this.rates.load((await this.state.changeRates()).filter((row) => keep(row.key)));
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not read the change-rate estimates');
    }
  }

  /**
   * Notes a pass: a consistent one that is not a backfill looked at the project and found a
   * change when it wrote a row; a backfill only starts the project's clock.
   */
  passed(result: ProjectSyncResult): void {
    if (!result.ok || this.noted.has(result)) return;
    this.noted.add(result);
    if (result.backfill) {
      this.rates.looked(result.projectId);
    } else {
      this.rates.observePoll(result.projectId, result.rowsWritten > 0);
    }
    this.dirty.add(result.projectId);
  }

  /** Forgets the estimates of projects gone from the mirror, here and in `change_rates`. */
  async forget(projectIds: readonly string[]): Promise<void> {
    if (projectIds.length === 0) return;
    const gone = new Set(projectIds);
    this.rates.retain((key) => !gone.has(key));
    for (const id of projectIds) this.dirty.delete(id);
    try {
      await this.state.deleteChangeRates([...projectIds]);
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not forget change-rate estimates');
    }
  }

  /** Each project's rate, per ms, pooled toward the projects' common rate. */
  pooled(projectIds: readonly string[]): Map<string, number> {
    return this.rates.pooledRates(projectIds);
  }

  /** Keeps the estimates observed since the last save; a failure is logged and tried again later. */
  async save(): Promise<void> {
    if (this.dirty.size === 0) return;
    const rows = [...this.dirty].flatMap((key) => this.rates.keptOne(key) ?? []);
    this.dirty.clear();
    try {
      await this.state.saveChangeRates(rows, new Date(this.clock.now()).toISOString());
    } catch (error) {
      for (const row of rows) this.dirty.add(row.key);
      // A full disk is logged once for all by the daemon's disk watch.
      const level = isDiskFull(error) ? 'debug' : 'warn';
      this.logger[level]({ err: errorLine(error) }, 'could not keep the change-rate estimates');
    }
  }
}
