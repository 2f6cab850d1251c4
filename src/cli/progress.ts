/**
 * Progress of a sync for people: a bar on a terminal (cli-progress), JSON log lines otherwise;
 * and the terminal's log lines, which go around the bar, never into its line.
 */
import { clearLine, cursorTo } from 'node:readline';
import cliProgress from 'cli-progress';
import type { DestinationStream, Logger } from 'pino';
import type { SyncProgress } from '../mirror/index.js';
import { plural } from './plural.js';

/** Log a progress line every this many pages when not on a terminal. */
export const LOG_EVERY_PAGES = 20;

/** Receives the engine's page events; `stop()` clears the bar. */
export interface ProgressView {
  update(progress: SyncProgress): void;
  stop(): void;
}

/** The VT100 escape that saves the cursor's position (DECSC), as cli-progress does at start. */
const SAVE_CURSOR = '\x1b7';

/** A bar drawn on a terminal, as log lines see it. */
interface DrawnBar {
  /** Empties the bar's line and puts the cursor at its start. */
  clear(): void;
  /** Draws the bar again on the cursor's line. */
  redraw(): void;
}

/**
 * The logger's destination on a terminal: lines go to `out`; while a bar is drawn, each line
 * first clears the bar's line, takes it, and the bar is redrawn on the next one.
 */
export class TerminalLogLines implements DestinationStream {
  private bar: DrawnBar | undefined;

  constructor(private readonly out: NodeJS.WritableStream = process.stdout) {}

  write(line: string): void {
    this.bar?.clear();
    this.out.write(line);
    this.bar?.redraw();
  }

  /** Sets (or, with undefined, forgets) the bar the lines must go around. */
  around(bar: DrawnBar | undefined): void {
    this.bar = bar;
  }
}

/**
 * A bar on `stream` when it is a terminal, else periodic log lines. Log lines written through
 * `lines` meanwhile go around the bar.
 */
export function createProgressView(
  stream: NodeJS.WriteStream,
  logger: Logger,
  quotaRemaining: () => number | undefined,
  lines?: TerminalLogLines,
): ProgressView {
  return stream.isTTY ? new BarView(stream, quotaRemaining, lines) : new LogView(logger);
}

/**
 * One bar per read of a project (a repeated read gets a new one), finished (drawn whole, its
 * line ended) at the read's last page, so that no pass leaves a line half drawn.
 */
class BarView implements ProgressView {
  private readonly bar: cliProgress.SingleBar;
  /** The read the bar shows, `projectId#attempt`; undefined when no bar is drawn. */
  private read: string | undefined;
  private project: string | undefined;
  private pages = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly quotaRemaining: () => number | undefined,
    private readonly lines: TerminalLogLines | undefined,
  ) {
    this.bar = new cliProgress.SingleBar(
      {
        stream,
        format: '{project} [{bar}] {value}/{total} tasks | {pages} | quota left {quota}',
        hideCursor: true,
        clearOnComplete: false,
        // A log line clears the bar's line: redraw it even when its text has not changed.
        forceRedraw: true,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  update(progress: SyncProgress): void {
    const read = `${progress.projectId}#${progress.attempt}`;
    if (read !== this.read) this.begin(read, progress);
    this.pages += 1;
    if (progress.totalCount !== undefined) this.bar.setTotal(Math.max(1, progress.totalCount));
    this.bar.update(progress.tasksRead, this.payload());
    const complete = progress.totalCount !== undefined && progress.tasksRead >= progress.totalCount;
    if (complete) this.stop();
  }

  stop(): void {
    this.lines?.around(undefined);
    if (this.read !== undefined) this.bar.stop();
    this.read = undefined;
  }

  private begin(read: string, progress: SyncProgress): void {
    this.stop();
    this.read = read;
    this.project = progress.projectId;
    this.pages = 0;
    this.bar.start(progress.totalCount ?? 0, 0, this.payload());
    this.lines?.around({
      clear: () => {
        cursorTo(this.stream, 0);
        clearLine(this.stream, 0);
      },
      redraw: () => {
        // The bar returns to its saved cursor position when it stops (DECSC/DECRC): save
        // the new line's, or the bar's last drawing lands on a line a log line took.
        this.stream.write(SAVE_CURSOR);
        this.bar.render();
      },
    });
  }

  private payload() {
    return {
      project: this.project,
      pages: plural(this.pages, 'page'),
      quota: this.quotaRemaining() ?? '?',
    };
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
