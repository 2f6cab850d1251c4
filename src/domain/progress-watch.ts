/**
 * Progress as a one-shot command sees it, so that it can tell a stall from a slow but healthy
 * run: the engines report what advanced (a whole answer read, a page written, an item settled),
 * what they wait for on purpose (the budget's pacing, a `Retry-After`), and what they are waiting
 * on the service for; the command stops when nothing advanced for its bound.
 */
import type { Clock } from './clock.js';

/** What the engines tell the watch; every method is cheap and never throws. */
export interface ProgressSignal {
  /** Something advanced: a whole answer came, a page was written, an item settled. */
  advanced(): void;
  /** An expected wait (budget pacing, `Retry-After`) begins; silence is no stall until `end()`. */
  waiting(): { end(): void };
  /** A request named `what` goes out; it is what stalled, if nothing comes until `end()`. */
  pending(what: string): { end(): void };
}

const ENDED = { end: () => undefined };

/** A signal nobody watches: the daemon's, and every engine's default. */
export const UNWATCHED: ProgressSignal = {
  advanced: () => undefined,
  waiting: () => ENDED,
  pending: () => ENDED,
};

/** Watches one command's progress on an injected clock. */
export class ProgressWatch implements ProgressSignal {
  private lastAt: number;
  private waits = 0;
  private readonly inFlight = new Map<number, string>();
  private nextId = 0;

  constructor(private readonly clock: Clock) {
    this.lastAt = clock.now();
  }

  advanced(): void {
    this.lastAt = this.clock.now();
  }

  waiting(): { end(): void } {
    this.waits += 1;
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        this.waits -= 1;
        // The silence after an expected wait is measured from its end.
        this.advanced();
      },
    };
  }

  pending(what: string): { end(): void } {
    const id = this.nextId++;
    this.inFlight.set(id, what);
    return { end: () => this.inFlight.delete(id) };
  }

  /** How long nothing has advanced, in ms: 0 while an expected wait is open. */
  silentMs(): number {
    return this.waits > 0 ? 0 : Math.max(0, this.clock.now() - this.lastAt);
  }

  /** What the command waits on the service for, the oldest first; undefined when nothing. */
  stalledOn(): string | undefined {
    return this.inFlight.values().next().value;
  }
}
