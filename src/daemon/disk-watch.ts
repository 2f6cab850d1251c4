/**
 * A full disk is a state, like a locked database: it begins when a write is refused for it
 * (`isDiskFull`), and ends when a pass commits or the outbox records an answer (`wrote`): a
 * nearly full disk takes an event's few pages and refuses larger writes, so only such a commit
 * says there is room again; every project whose write was refused is passed again within
 * `DISK_FULL_RETRY_MS`. One warning when it begins, at most one a minute while it lasts (with the
 * writes refused meanwhile, and counting a disk that fills again within the minute as the same
 * trouble), one line when it ends; `/healthz`
 * answers 503 with `"disk": "full"` meanwhile, and a metric counts the writes refused.
 */
import type { Logger } from 'pino';
import { errorLine, isDiskFull, type Clock } from '../domain/index.js';

/** A disk full again within this long of having room is the same episode: no new warning. */
export const DISK_FULL_LOG_MS = 60_000;
/**
 * While the disk stays full, a reminder at most this often: the passes are retried each minute,
 * and a line a minute would be a line per attempt (contract section 7.8).
 */
export const DISK_STILL_FULL_LOG_MS = 3_600_000;
/**
 * While the disk is full, a project whose write it refused is passed again after this long (not
 * at the store's next answer: the write probe writes nothing, so it answers on a full disk too).
 */
export const DISK_FULL_RETRY_MS = 60_000;

/** Watches for a full disk; see the module comment. */
export class DiskWatch {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private fullSince: number | undefined;
  private lastWarnAt: number | undefined;
  private episodeLogged = false;
  private refusedSinceWarn = 0;
  /** Writes refused for a full disk since the daemon started. */
  refusedTotal = 0;

  constructor(clock: Clock, logger: Logger) {
    this.clock = clock;
    this.logger = logger;
  }

  /** True while the last write met a full disk. */
  get full(): boolean {
    return this.fullSince !== undefined;
  }

  /** A write was refused for a full disk (`error`). */
  refused(error: unknown): void {
    const now = this.clock.now();
    this.refusedTotal += 1;
    this.refusedSinceWarn += 1;
    if (this.fullSince === undefined) {
      this.fullSince = now;
      // A disk that fills again within the minute (a pass fitted, a larger write did not) is
      // the same trouble: its lines keep to one a minute too.
      this.episodeLogged =
        this.lastWarnAt === undefined || now - this.lastWarnAt >= DISK_FULL_LOG_MS;
      if (this.episodeLogged) {
        this.warn(now, error, 'the disk is full: writes are refused and tried again each minute');
      }
    } else if (now - (this.lastWarnAt ?? now) >= DISK_STILL_FULL_LOG_MS) {
      this.warn(now, error, 'the disk is still full');
    }
  }

  /**
   * True when `error` is a full disk (`isDiskFull`), counted as a refused write: this watch logs
   * it, so the caller does not.
   */
  absorbs(error: unknown): boolean {
    if (!isDiskFull(error)) return false;
    this.refused(error);
    return true;
  }

  /** A pass committed: the disk has room again, if it had none. */
  wrote(): void {
    if (this.fullSince === undefined) return;
    const fullMs = this.clock.now() - this.fullSince;
    this.fullSince = undefined;
    const fields = { fullMs, refused: this.refusedSinceWarn };
    if (this.episodeLogged) this.logger.info(fields, 'the disk has room again');
    else this.logger.debug(fields, 'the disk has room again');
    this.refusedSinceWarn = 0;
  }

  private warn(now: number, error: unknown, message: string): void {
    this.logger.warn({ err: errorLine(error), refused: this.refusedSinceWarn }, message);
    this.lastWarnAt = now;
    this.refusedSinceWarn = 0;
    this.episodeLogged = true;
  }
}
