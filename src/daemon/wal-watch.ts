/**
 * SQLite's write-ahead log on the daemon's own schedule: a checkpoint every `intervalMs` on the
 * store thread (`HealthPort.checkpoint`), PASSIVE while a reader holds a snapshot and TRUNCATE
 * once none does, so the log comes back down within an interval of the last reader leaving. A
 * reader that blocks complete checkpoints for longer than `blockedMs` is warned of once, and
 * `/healthz` says so (a degraded 200: the mirror is current, its disk use is not bounded).
 */
import type { Logger } from 'pino';
import { errorLine } from '../domain/index.js';
import type { Store } from '../store/port.js';
import { DEFAULT_CHECKPOINT_BLOCKED_MINUTES } from './defaults.js';

/**
 * How often the daemon checkpoints the log: every 30 s, or a quarter of the blocked bound when
 * that is shorter (so that the bound is judged within a quarter of itself).
 */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 30_000;
/** How long a reader may block complete checkpoints before it is warned of (`--checkpoint-blocked-minutes`). */
export const DEFAULT_CHECKPOINT_BLOCKED_MS = DEFAULT_CHECKPOINT_BLOCKED_MINUTES * 60_000;

/** What the metrics and `/healthz` read of the log. */
export interface WalState {
  /** The log file's size after the last checkpoint, in bytes. */
  walBytes: number;
  /** How long since a checkpoint last copied every frame, in ms. */
  lastCompleteAgeMs: number;
}

export interface WalWatchOptions {
  store: Store;
  logger: Logger;
  intervalMs?: number;
  blockedMs?: number;
  /** The time, in ms; `Date.now` by default (checkpoints run in wall time, as the store probe). */
  now?: () => number;
}

/** Checkpoints the log and judges it; see the module comment. */
export class WalWatch {
  private readonly options: WalWatchOptions;
  private readonly blockedMs: number;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private warned = false;
  private lastCompleteAt: number;
  private walBytes: number | undefined;

  constructor(options: WalWatchOptions) {
    this.options = options;
    this.blockedMs = options.blockedMs ?? DEFAULT_CHECKPOINT_BLOCKED_MS;
    this.intervalMs =
      options.intervalMs ?? Math.min(DEFAULT_CHECKPOINT_INTERVAL_MS, this.blockedMs / 4);
    this.now = options.now ?? Date.now;
    this.lastCompleteAt = this.now();
  }

  /** Starts the checkpoints; `stop()` ends them. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.checkpoint(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The log as last checkpointed; undefined before the first, and on PostgreSQL. */
  state(): WalState | undefined {
    if (this.walBytes === undefined) return undefined;
    return { walBytes: this.walBytes, lastCompleteAgeMs: this.now() - this.lastCompleteAt };
  }

  /**
   * `checkpoint blocked for 14 min` (`for 40 s` under a minute) once complete checkpoints are
   * blocked past the bound.
   */
  blocked(): string | undefined {
    const ms = this.now() - this.lastCompleteAt;
    if (this.walBytes === undefined || ms < this.blockedMs) return undefined;
    const time = ms < 60_000 ? `${Math.floor(ms / 1000)} s` : `${Math.floor(ms / 60_000)} min`;
    return `checkpoint blocked for ${time}`;
  }

  /** One checkpoint, unless the last one is still running. */
  async checkpoint(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const { logger } = this.options;
    try {
      const result = await this.options.store.health.checkpoint();
      if (result === undefined) return;
      this.walBytes = result.walBytes;
      if (result.complete) {
        if (this.warned) logger.info({ walBytes: result.walBytes }, 'checkpoints complete again');
        this.warned = false;
        this.lastCompleteAt = this.now();
        return;
      }
      const reason = this.blocked();
      if (reason !== undefined && !this.warned) {
        this.warned = true;
        logger.warn(
          { walBytes: result.walBytes },
          `${reason}: a reader holds a read transaction open; the write-ahead log grows until it ends`,
        );
      }
    } catch (error) {
      // The store probe reports a database that does not answer; a checkpoint waits for the next.
      logger.debug({ err: errorLine(error) }, 'checkpoint failed');
    } finally {
      this.running = false;
    }
  }
}
