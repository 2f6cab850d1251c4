/**
 * Progress of a sync for people: a bar on a terminal (cli-progress), JSON log lines otherwise.
 */
import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { SyncProgress } from '../mirror/index.js';

/** Log a progress line every this many pages when not on a terminal. */
export const LOG_EVERY_PAGES = 20;

/** Receives the engine's page events; `stop()` clears the bar. */
export interface ProgressView {
  update(progress: SyncProgress): void;
  stop(): void;
}

/** A bar on `stream` when it is a terminal, else periodic log lines. */
export function createProgressView(
  stream: NodeJS.WriteStream,
  logger: Logger,
  quotaRemaining: () => number | undefined,
): ProgressView {
  return stream.isTTY ? new BarView(stream, quotaRemaining) : new LogView(logger);
}

class BarView implements ProgressView {
  private readonly bar: cliProgress.SingleBar;
  private project: string | undefined;
  private pages = 0;

  constructor(
    stream: NodeJS.WriteStream,
    private readonly quotaRemaining: () => number | undefined,
  ) {
    this.bar = new cliProgress.SingleBar(
      {
        stream,
        format: '{project} [{bar}] {value}/{total} tasks | {pages} pages | quota left {quota}',
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  update(progress: SyncProgress): void {
    if (progress.projectId !== this.project) {
      if (this.project !== undefined) this.bar.stop();
      this.project = progress.projectId;
      this.pages = 0;
      this.bar.start(progress.totalCount ?? 0, 0, this.payload());
    }
    this.pages += 1;
    if (progress.totalCount !== undefined) this.bar.setTotal(Math.max(1, progress.totalCount));
    this.bar.update(progress.tasksRead, this.payload());
  }

  stop(): void {
    if (this.project !== undefined) this.bar.stop();
    this.project = undefined;
  }

  private payload() {
    return { project: this.project, pages: this.pages, quota: this.quotaRemaining() ?? '?' };
  }
}

class LogView implements ProgressView {
  private readonly pages = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  update(progress: SyncProgress): void {
    const pages = (this.pages.get(progress.projectId) ?? 0) + 1;
    this.pages.set(progress.projectId, pages);
    const done = progress.totalCount !== undefined && progress.tasksRead >= progress.totalCount;
    if (pages % LOG_EVERY_PAGES === 0 || done) {
      this.logger.info(
        {
          projectId: progress.projectId,
          pages,
          tasksRead: progress.tasksRead,
          totalCount: progress.totalCount,
        },
        'sync progress',
      );
    }
  }

  stop(): void {}
}
