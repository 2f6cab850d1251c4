/**
 * Noticing that the wall clock stepped (NTP, a VM resumed after a suspension): the wall reading
 * moved away from the monotonic one. Nothing signals a step, so a sleep towards a wall-clock
 * instant is cut into slices of at most `DEFAULT_WALL_CHECK_MS`, re-planned after each.
 */
import type { Clock } from './clock.js';

/** The longest monotonic sleep towards a wall-clock instant: a step is acted on within this. */
export const DEFAULT_WALL_CHECK_MS = 5 * 60_000;
/** A drift between the two readings smaller than this is slewing, not a step. */
export const DEFAULT_WALL_STEP_TOLERANCE_MS = 2_000;

/** Measures the steps of the wall clock against the monotonic one since it last looked. */
export class WallStepWatch {
  private offsetMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly toleranceMs = DEFAULT_WALL_STEP_TOLERANCE_MS,
  ) {
    this.offsetMs = clock.now() - clock.monotonic();
  }

  /** How far the wall clock stepped since the last step seen (negative: back); 0 for none. */
  step(): number {
    const offsetMs = this.clock.now() - this.clock.monotonic();
    const stepMs = offsetMs - this.offsetMs;
    if (Math.abs(stepMs) < this.toleranceMs) return 0;
    this.offsetMs = offsetMs;
    return stepMs;
  }
}
