/** The daemon's work in flight beside its loops (refreshes, events, take-overs, retries). */
import type { Logger } from 'pino';
import { errorLine, isDiskFull } from '../domain/index.js';

/** Tracks promises so that `stop()` can wait for each; a failure is logged, never thrown. */
export class InFlight {
  private readonly work = new Set<Promise<void>>();

  constructor(
    private readonly signal: AbortSignal,
    private readonly logger: Logger,
  ) {}

  /** Keeps `work` until it settles; its failure is a warning unless the daemon is stopping. */
  track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => {
        // A full disk was told to the disk watch (`missed`), which logs it.
        if (!this.signal.aborted && !isDiskFull(error))
          this.logger.warn({ err: errorLine(error) }, 'refresh failed');
      })
      .finally(() => this.work.delete(tracked));
    this.work.add(tracked);
  }

  /** Every piece of work in flight now. */
  pending(): Promise<void>[] {
    return [...this.work];
  }
}
