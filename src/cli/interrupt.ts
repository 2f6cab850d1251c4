/**
 * When a one-shot command stops: SIGINT, SIGTERM, a stall (nothing advanced for `--stall-ms`), or
 * its overall deadline (`--deadline-ms`, off by default), as one AbortSignal, so that the work in
 * hand stops cleanly (the mirror keeps its last consistent state) however the network behaves.
 */
import { ProjmirrorError, type ProgressWatch } from '../domain/index.js';

/** A one-shot command (sync, push) stops once nothing has advanced for this long. */
export const DEFAULT_STALL_MS = 2 * 60 * 1000;
/** No overall deadline unless asked: a command that makes progress runs to its end. */
export const DEFAULT_DEADLINE_MS = 0;
/** How often the stall bound is checked at most, in ms (a quarter of the bound when shorter). */
const STALL_CHECK_MAX_MS = 1000;
/** How often the stall bound is checked at least, in ms. */
const STALL_CHECK_MIN_MS = 10;

const MEANS = 'the mirror keeps its last consistent state';

/** The reason a command's signal aborts at its deadline. */
export class DeadlineError extends ProjmirrorError {
  constructor(readonly deadlineMs: number) {
    super(
      'deadline',
      `stopped at the overall deadline of ${seconds(deadlineMs)} (--deadline-ms ${deadlineMs}); ${MEANS}`,
    );
  }
}

/** The reason a command's signal aborts when nothing advanced for its stall bound. */
export class StallError extends ProjmirrorError {
  constructor(
    readonly stallMs: number,
    stalledOn: string | undefined,
  ) {
    const on = stalledOn === undefined ? 'with no request in flight' : `waiting for ${stalledOn}`;
    super(
      'stalled',
      `stopped: nothing advanced for ${seconds(stallMs)} (--stall-ms ${stallMs}), ${on}; ${MEANS}`,
    );
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1)).toString()} s`;
}

/** The stop signal of a one-shot command. */
export interface Interrupt {
  signal: AbortSignal;
  /** Why it stopped when a bound (stall or deadline) stopped it, rather than a signal. */
  readonly bound: DeadlineError | StallError | undefined;
  dispose(): void;
}

/** The bounds of a one-shot command; 0 turns one off. */
export interface InterruptBounds {
  deadlineMs?: number;
  startedAt?: number;
  /** Stop once `watch` has seen nothing advance for this long. */
  stallMs?: number;
  watch?: ProgressWatch;
}

/**
 * An AbortSignal that aborts on SIGINT or SIGTERM, at the overall deadline (`deadlineMs` after
 * `startedAt`), or once `watch` has been silent for `stallMs`, until `dispose()`.
 */
export function abortOnSignals(bounds: InterruptBounds = {}): Interrupt {
  const { deadlineMs = 0, startedAt = Date.now(), stallMs = 0, watch } = bounds;
  const controller = new AbortController();
  // The silence is counted from the start of the work, not from opening the mirror.
  watch?.advanced();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  let bound: DeadlineError | StallError | undefined;
  const end = (reason: DeadlineError | StallError) => {
    if (controller.signal.aborted) return;
    bound = reason;
    controller.abort(reason);
  };
  const deadline =
    deadlineMs > 0
      ? setTimeout(
          () => end(new DeadlineError(deadlineMs)),
          Math.max(0, startedAt + deadlineMs - Date.now()),
        )
      : undefined;
  const everyMs = Math.max(STALL_CHECK_MIN_MS, Math.min(STALL_CHECK_MAX_MS, stallMs / 4));
  const stall =
    stallMs > 0 && watch
      ? setInterval(() => {
          if (watch.silentMs() >= stallMs) end(new StallError(stallMs, watch.stalledOn()));
        }, everyMs)
      : undefined;
  return {
    signal: controller.signal,
    get bound() {
      return bound;
    },
    dispose: () => {
      clearTimeout(deadline);
      clearInterval(stall);
      process.off('SIGINT', stop).off('SIGTERM', stop);
    },
  };
}
