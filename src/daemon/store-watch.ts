/**
 * Health by progress, for the store: a write probe asked every `probeMs` (it waits, as writes do,
 * while another connection holds the lock or the database is away), and a judgement: unhealthy
 * while no write has completed for `stallMs`, healthy again as soon as one does, without a restart. When the store answers again after trouble, `onBack`
 * is told (the daemon then passes the projects whose events it could not write).
 */
import type { Logger } from 'pino';
import { errorLine } from '../domain/index.js';
import type { Store } from '../store/port.js';

/**
 * How long without a completed write probe before the store counts as stalled (the reason keeps
 * the words issue 23 gave it: "no unit of work completed").
 */
export const DEFAULT_STORE_STALL_MS = 10_000;
/** How often the write probe is asked. */
export const DEFAULT_STORE_PROBE_MS = 2_000;

/** The store's health as `/healthz` and the watchdog read it. */
export interface StoreHealth {
  ok: boolean;
  /** Why not, in words (`no unit of work completed for 12 s`: no write probe for that long). */
  reason?: string;
}

export interface StoreWatchOptions {
  store: Store;
  logger: Logger;
  stallMs?: number;
  probeMs?: number;
  /** Told when the store answers after a failed or stalled probe. */
  onBack: () => void;
  /** The time, in ms; `Date.now` by default (the probe runs and completes in wall time). */
  now?: () => number;
}

/** Watches the store; see the module comment. */
export class StoreWatch {
  private readonly options: StoreWatchOptions;
  private readonly stallMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private troubled = false;
  /** When a write probe last succeeded (ms): the measure of health. */
  private lastWriteAt: number;

  constructor(options: StoreWatchOptions) {
    this.options = options;
    this.stallMs = options.stallMs ?? DEFAULT_STORE_STALL_MS;
    this.now = options.now ?? Date.now;
    this.lastWriteAt = this.now();
  }

  /** Starts the probes; `stop()` ends them. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(
      () => void this.probe(),
      this.options.probeMs ?? DEFAULT_STORE_PROBE_MS,
    );
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Notes that a unit failed for the database's sake (the next good probe counts as a return). */
  troubleSeen(): void {
    this.troubled = true;
  }

  /**
   * Unhealthy once no write probe has completed for longer than the bound. Writes, not any unit:
   * beside another connection holding SQLite's write lock, reads go on completing (WAL) while no
   * write can; a failed unit is no progress either.
   */
  health(): StoreHealth {
    const idleMs = this.now() - this.lastWriteAt;
    if (idleMs <= this.stallMs) return { ok: true };
    return { ok: false, reason: `no unit of work completed for ${Math.round(idleMs / 1000)} s` };
  }

  /** One probe, unless the last one is still waiting. */
  async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    const askedAt = this.now();
    try {
      await this.options.store.health.probeWrite();
      this.lastWriteAt = this.now();
      if (this.now() - askedAt > this.stallMs || this.troubled) {
        this.troubled = false;
        this.options.logger.info('the database answers again');
        this.options.onBack();
      }
    } catch (error) {
      if (!this.troubled) {
        this.options.logger.warn({ err: errorLine(error) }, 'the database does not answer');
      }
      this.troubled = true;
    } finally {
      this.probing = false;
    }
  }
}
