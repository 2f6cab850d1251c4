/**
 * A full disk is a state, like a locked database: it begins when a write is refused for it
 * (`isDiskFull`), and ends when a pass commits (`wrote`): a nearly full disk takes an event's
 * few pages and refuses larger writes, so only a pass's commit says there is room again; every
 * project whose write was refused is passed again within `DISK_FULL_RETRY_MS`. One warning when it begins, at most one a
 * minute while it lasts (with the writes refused meanwhile), one line when it ends; `/healthz`
 * answers 503 with `"disk": "full"` meanwhile, and a metric counts the writes refused.
 */
import type { Logger } from 'pino';
import { errorLine, type Clock } from '../domain/index.js';

/** At most one warning this often while the disk stays full. */
export const DISK_FULL_LOG_MS = 60_000;
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
  private lastWarnAt = 0;
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
      this.warn(now, error, 'the disk is full: writes are refused and tried again each minute');
    } else if (now - this.lastWarnAt >= DISK_FULL_LOG_MS) {
      this.warn(now, error, 'the disk is still full');
    }
  }

  /** A pass committed: the disk has room again, if it had none. */
  wrote(): void {
    if (this.fullSince === undefined) return;
    const fullMs = this.clock.now() - this.fullSince;
    this.fullSince = undefined;
    this.logger.info({ fullMs, refused: this.refusedSinceWarn }, 'the disk has room again');
    this.refusedSinceWarn = 0;
  }

  private warn(now: number, error: unknown, message: string): void {
    this.logger.warn({ err: errorLine(error), refused: this.refusedSinceWarn }, message);
    this.lastWarnAt = now;
    this.refusedSinceWarn = 0;
  }
}
