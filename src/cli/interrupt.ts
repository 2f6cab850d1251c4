/**
 * When a one-shot command stops: SIGINT, SIGTERM, or its overall deadline (`--deadline-ms`), as
 * one AbortSignal, so that the work in hand stops cleanly (the mirror keeps its last consistent
 * state) however the network behaves.
 */
import { ProjmirrorError } from '../domain/index.js';

/** A one-shot command (sync, push) ends within this long, whatever the service does. */
export const DEFAULT_DEADLINE_MS = 2 * 60 * 1000;

/** The reason a command's signal aborts at its deadline. */
export class DeadlineError extends ProjmirrorError {
  constructor(readonly deadlineMs: number) {
    super(
      'deadline',
      `stopped at the overall deadline of ${seconds(deadlineMs)} (--deadline-ms ${deadlineMs}); the mirror keeps its last consistent state`,
    );
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1)).toString()} s`;
}

/** The stop signal of a one-shot command. */
export interface Interrupt {
  signal: AbortSignal;
  /** The deadline passed (rather than a signal came). */
  readonly timedOut: boolean;
  dispose(): void;
}

/**
 * An AbortSignal that aborts on SIGINT or SIGTERM, or `deadlineMs` after `startedAt` (when
 * given and not 0), until `dispose()`.
 */
export function abortOnSignals(deadlineMs = 0, startedAt = Date.now()): Interrupt {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  let timedOut = false;
  const timer =
    deadlineMs > 0
      ? setTimeout(
          () => {
            timedOut = true;
            controller.abort(new DeadlineError(deadlineMs));
          },
          Math.max(0, startedAt + deadlineMs - Date.now()),
        )
      : undefined;
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose: () => {
      clearTimeout(timer);
      process.off('SIGINT', stop).off('SIGTERM', stop);
    },
  };
}
