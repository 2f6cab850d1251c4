/**
 * The daemon's change-rate estimates, per project, kept in the mirror (`change_rates`) after each
 * pass and loaded at start, so a restart keeps them; the plan reads them pooled
 * (`ChangeRates.pooledRates`). Two estimates per project:
 *
 * - **every change** (key: the project id), which the poll plan allocates by while realtime is
 *   down. While polling, a pass is a censored look: it found a change when it wrote a row, or
 *   when a change the mirror learned of by itself (an outbox answer) fell in its interval. While
 *   realtime is connected, the changes are counted exactly instead, over the time connected: each
 *   event that changed the mirror, each record a hint fetched that did, and each pass that wrote
 *   a row (one change: at least one happened). Outbox answers are then left to their events
 *   (`answered`).
 * - **changes no event announced** (key: `unannouncedKey`), which the reconcile plan allocates by
 *   while realtime is connected: a reconcile that wrote a row found one.
 *
 * No change counts twice. A change reaches the mirror once, by one writer: whatever wrote it
 * first counts it, and an event, answer or pass that finds the mirror equal counts nothing (an
 * event echoing an outbox answer, a pass after an event). A pass that a hint asked for (or that
 * covers the time realtime was down) finds announced changes: it counts them as such and is no
 * look for the unannounced estimate, whose interval starts again. Dropping those intervals leaves
 * that estimate unbiased, as its changes are taken to come independently of the announced ones.
 */
import type { Logger } from 'pino';
import { ChangeRates } from '../budget/index.js';
import { errorLine, isDiskFull, type Clock } from '../domain/index.js';
import type { ProjectSyncResult } from '../mirror/index.js';
import type { StatePort } from '../store/port.js';

/** The suffix of a project's unannounced-changes key in `change_rates`. */
const UNANNOUNCED_SUFFIX = '#unannounced';
/** While realtime is connected, the time counted for each project's events is kept this often. */
const EXPOSURE_FLUSH_MS = 3_600_000;

/** The key of `projectId`'s changes that no event announced, in `change_rates`. */
export function unannouncedKey(projectId: string): string {
  return projectId + UNANNOUNCED_SUFFIX;
}

/** The project a `change_rates` key belongs to. */
function projectOf(key: string): string {
  return key.endsWith(UNANNOUNCED_SUFFIX) ? key.slice(0, -UNANNOUNCED_SUFFIX.length) : key;
}

/** Each project's change rates, learned from its passes, events and answers, kept in the mirror. */
export class PollRates {
  private readonly rates: ChangeRates;
  private readonly unannounced: ChangeRates;
  private readonly clock: Clock;
  private readonly state: StatePort;
  private readonly logger: Logger;
  /** Keys observed since the last save. */
  private readonly dirty = new Set<string>();
  /** Passes noted: a poll and a refresh that joined one pass share its result, counted once. */
  private readonly noted = new WeakSet<ProjectSyncResult>();
  /** While realtime is connected: since when each project's events are not yet counted. */
  private readonly exposureFrom = new Map<string, number>();
  private connectedAt: number | undefined;
  private flushedAt = 0;
  /** While polling: projects with a change known since their last look (an outbox answer). */
  private readonly knownSinceLook = new Set<string>();
  /** While connected: projects whose next pass finds what a hint announced. */
  private readonly hinted = new Set<string>();
  /** While connected: projects not passed since realtime connected (the pass covers the gap). */
  private readonly gap = new Set<string>();

  constructor(clock: Clock, state: StatePort, logger: Logger) {
    this.clock = clock;
    this.state = state;
    this.logger = logger;
    this.rates = new ChangeRates(clock);
    this.unannounced = new ChangeRates(clock);
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
    return this.read((projectId) => wanted.has(projectId));
  }

  private async read(keep: (projectId: string) => boolean): Promise<void> {
    try {
      const rows = (await this.state.changeRates()).filter((row) => keep(projectOf(row.key)));
      this.rates.load(rows.filter((row) => !row.key.endsWith(UNANNOUNCED_SUFFIX)));
      this.unannounced.load(rows.filter((row) => row.key.endsWith(UNANNOUNCED_SUFFIX)));
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not read the change-rate estimates');
    }
  }

  /**
   * Realtime connected: from now on each project's changes are counted exactly, and its next pass
   * covers the time it was down.
   */
  connected(projectIds: readonly string[]): void {
    const now = this.clock.now();
    this.connectedAt = now;
    this.flushedAt = now;
    for (const projectId of projectIds) {
      this.exposureFrom.set(projectId, now);
      this.gap.add(projectId);
    }
  }

  /** Realtime is down: the time connected is counted, and polls look at the projects again. */
  disconnected(): void {
    if (this.connectedAt === undefined) return;
    this.flushExposure();
    for (const projectId of this.exposureFrom.keys()) this.rates.looked(projectId);
    this.exposureFrom.clear();
    this.hinted.clear();
    this.gap.clear();
    this.connectedAt = undefined;
  }

  /**
   * The mirror learned of a change of `projectId` by itself, and wrote it: an event, a record a
   * hint fetched, an outbox answer. Counted exactly while realtime is connected; while polling,
   * the project's next pass counts as having found a change.
   */
  announced(projectId: string): void {
    if (this.connectedAt === undefined) {
      this.knownSinceLook.add(projectId);
      return;
    }
    this.countChanges(projectId, 1);
  }

  /**
   * An outbox answer of `projectId` was written. While polling it is a change known (as
   * `announced`). While realtime is connected it is not counted: the service's event for the same
   * write is, when it reaches the mirror first (an answer written first makes that event find the
   * mirror equal, and our own edit goes uncounted, which costs nothing: it never waits for a
   * reconcile). Counting both would count the write twice whenever the event comes first.
   */
  answered(projectId: string): void {
    if (this.connectedAt === undefined) this.knownSinceLook.add(projectId);
  }

  /** A hint asked for a pass of `projectId` (or every project): that pass finds announced changes. */
  hint(projectIds: readonly string[]): void {
    if (this.connectedAt === undefined) return;
    for (const projectId of projectIds) this.hinted.add(projectId);
  }

  /**
   * Notes a pass: a consistent one that is not a backfill looked at the project and found a
   * change when it wrote a row; a backfill only starts the project's clocks.
   */
  passed(result: ProjectSyncResult): void {
    if (!result.ok || this.noted.has(result)) return;
    this.noted.add(result);
    const { projectId } = result;
    const found = result.rowsWritten > 0;
    this.dirty.add(projectId);
    this.dirty.add(unannouncedKey(projectId));
    if (result.backfill) {
      this.rates.looked(projectId);
      this.unannounced.looked(unannouncedKey(projectId));
    } else if (this.connectedAt === undefined) {
      this.rates.observePoll(projectId, found || this.knownSinceLook.has(projectId));
    } else if (this.gap.has(projectId)) {
      // Its changes were made while realtime was down: a poll's evidence of every change.
      this.rates.observePoll(projectId, found || this.knownSinceLook.has(projectId));
      this.unannounced.looked(unannouncedKey(projectId));
      this.exposureFrom.set(projectId, this.clock.now());
    } else if (this.hinted.has(projectId)) {
      if (found) this.countChanges(projectId, 1);
      this.unannounced.looked(unannouncedKey(projectId));
    } else {
      this.unannounced.observePoll(unannouncedKey(projectId), found);
      if (found) this.countChanges(projectId, 1);
    }
    this.knownSinceLook.delete(projectId);
    this.hinted.delete(projectId);
    this.gap.delete(projectId);
  }

  /** Forgets the estimates of projects gone from the mirror, here and in `change_rates`. */
  async forget(projectIds: readonly string[]): Promise<void> {
    if (projectIds.length === 0) return;
    const gone = new Set(projectIds);
    this.rates.retain((key) => !gone.has(key));
    this.unannounced.retain((key) => !gone.has(projectOf(key)));
    const keys = projectIds.flatMap((id) => [id, unannouncedKey(id)]);
    for (const key of keys) this.dirty.delete(key);
    for (const id of projectIds) this.exposureFrom.delete(id);
    try {
      await this.state.deleteChangeRates(keys);
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not forget change-rate estimates');
    }
  }

  /** Each project's rate of every change, per ms, pooled toward the projects' common rate. */
  pooled(projectIds: readonly string[]): Map<string, number> {
    // The time connected since each project's last change counts too (kept at the next flush).
    this.countExposure(false);
    return this.rates.pooledRates(projectIds);
  }

  /** Each project's rate of changes no event announced, per ms, pooled likewise. */
  pooledUnannounced(projectIds: readonly string[]): Map<string, number> {
    const pooled = this.unannounced.pooledRates(projectIds.map(unannouncedKey));
    return new Map(projectIds.map((id) => [id, pooled.get(unannouncedKey(id)) ?? 0]));
  }

  /** Keeps the estimates observed since the last save; a failure is logged and tried again later. */
  async save(): Promise<void> {
    if (this.connectedAt !== undefined && this.clock.now() - this.flushedAt >= EXPOSURE_FLUSH_MS) {
      this.flushExposure();
    }
    if (this.dirty.size === 0) return;
    const rows = [...this.dirty].flatMap(
      (key) =>
        (key.endsWith(UNANNOUNCED_SUFFIX) ? this.unannounced : this.rates).keptOne(key) ?? [],
    );
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

  /** Counts `count` changes of `projectId` exactly, over the time since its count was last kept. */
  private countChanges(projectId: string, count: number, keep = true): void {
    const now = this.clock.now();
    const from = this.exposureFrom.get(projectId) ?? this.connectedAt ?? now;
    this.rates.observeEvents(projectId, count, Math.max(0, now - from));
    this.exposureFrom.set(projectId, now);
    if (keep) this.dirty.add(projectId);
  }

  /** Counts every connected project's time so far (with no change): a quiet one is seen quiet. */
  private flushExposure(): void {
    this.countExposure(true);
    this.flushedAt = this.clock.now();
  }

  /** Counts the time connected so far of every project with no change since; `keep`: to save. */
  private countExposure(keep: boolean): void {
    for (const projectId of [...this.exposureFrom.keys()]) {
      // A project not passed since realtime connected: its next pass covers that time.
      if (!this.gap.has(projectId)) this.countChanges(projectId, 0, keep);
    }
  }
}
