/**
 * Drives the case's manual clock the way benchmark 6 does: let real I/O (sockets, the mirror) run
 * until nothing moves, then step the clock to the next wake-up, and again. "Nothing moves" is
 * read from deterministic signs, not guessed with sleeps: every request that reached the
 * simulator has been answered, the daemon's store has no unit in hand or waiting, the mirror has
 * no new commit, the set of pending sleeps is unchanged, and the daemon sleeps where it sleeps
 * when idle. During an outage (`outage`), units stuck in the store are no motion to wait for:
 * the clock moves on while the store waits in real time, as it would in production.
 */
import type { ManualClock } from '../../../src/domain/index.js';
import type { Simulator } from '../../../src/sim/index.js';
import type { DaemonHost } from './host.js';

/** One real-time tick between two looks. */
const TICK_MS = 2;
/** Unchanged looks that count as settled when the daemon sleeps in its idle places. */
const QUIET_TICKS = 3;
/** Unchanged looks that count as settled whatever the daemon's sleeps (a start-up, a wait). */
const LONG_QUIET_TICKS = 20;
/** Idle, the daemon sleeps in the poll scheduler, the pusher and the realtime listener. */
const IDLE_SLEEPS = 3;
/** A daemon that has not settled after this long (real time) is stuck or spinning. */
const SETTLE_TIMEOUT_MS = 10_000;
/** Wake-ups allowed without the clock moving, before the daemon counts as spinning. */
const MAX_WAKEUPS_AT_ONE_INSTANT = 500;

/** Settles real I/O and moves simulated time for one case. */
export class ClockDriver {
  private arrivals = 0;
  /** True while the case holds the mirror's lock or cuts the daemons off from it. */
  outage = false;

  constructor(
    private readonly sim: Simulator,
    private readonly clock: ManualClock,
    private readonly host: DaemonHost,
    /** Read through a connection of our own: changes with every commit of others. */
    private readonly mirrorVersion: () => Promise<number | string>,
    /** The real time (`Date.now()`) by which the whole case must have ended. */
    private readonly caseDeadline: number,
  ) {
    this.countArrivals();
  }

  /**
   * Counts requests as they reach the simulator: a delay rule that never matches but sees every
   * routed request. Arm it again after `sim.faults.clear()`.
   */
  countArrivals(): void {
    this.sim.faults.delay({
      route: '*',
      count: Infinity,
      ms: 0,
      when: () => {
        this.arrivals += 1;
        return false;
      },
    });
  }

  /** Waits (real time) until nothing moves; throws when that takes too long. */
  async settle(): Promise<void> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    let last = '';
    let quiet = 0;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
      // Read first: what follows is read at one instant, once the mirror has answered.
      const version = await this.mirrorVersion();
      const answered = this.answered();
      const signature = [
        this.arrivals,
        answered,
        version,
        this.clock.pendingSleeps,
        this.clock.nextWakeAt,
        this.host.pendingSleeps,
        this.host.storeDepth,
      ].join('/');
      const busy = this.arrivals > answered || (this.host.storeDepth > 0 && !this.outage);
      quiet = !busy && signature === last ? quiet + 1 : 0;
      last = signature;
      const idle = this.host.pendingSleeps >= IDLE_SLEEPS;
      if (quiet >= (idle ? QUIET_TICKS : LONG_QUIET_TICKS)) return;
      if (Date.now() > deadline) {
        throw new Error(`the daemon did not settle within ${SETTLE_TIMEOUT_MS} ms: ${signature}`);
      }
      if (Date.now() > this.caseDeadline) throw new Error('the case ran out of (real) time');
    }
  }

  /**
   * Settles, and steps the clock from wake-up to wake-up until `done()` or until the next
   * wake-up lies after `until` (simulated ms). Returns `done()`.
   */
  async runUntil(done: () => boolean | Promise<boolean>, until: number): Promise<boolean> {
    let lastNow = this.clock.now();
    let atOneInstant = 0;
    for (;;) {
      await this.settle();
      if (await done()) return true;
      const next = this.clock.nextWakeAt;
      if (next === undefined || next > until) return false;
      this.clock.stepTo(next);
      atOneInstant = this.clock.now() === lastNow ? atOneInstant + 1 : 0;
      lastNow = this.clock.now();
      if (atOneInstant > MAX_WAKEUPS_AT_ONE_INSTANT) {
        throw new Error(`the daemon spins: ${atOneInstant} wake-ups at one instant`);
      }
    }
  }

  /** Lets `ms` of simulated time pass, waking every sleeper due on the way. */
  async advance(ms: number): Promise<void> {
    const until = this.clock.now() + ms;
    await this.runUntil(() => false, until);
    this.clock.stepTo(until);
    await this.settle();
  }

  /** Drives the clock until `promise` settles, within `horizonMs` of simulated time. */
  async drive(promise: Promise<unknown>, horizonMs: number, what: string): Promise<void> {
    let finished = false;
    const watched = promise.finally(() => (finished = true));
    watched.catch(() => undefined);
    if (!(await this.runUntil(() => finished, this.clock.now() + horizonMs))) {
      throw new Error(`${what} did not finish within ${horizonMs / 1_000} s of simulated time`);
    }
    await watched;
  }

  /** Requests the simulator has answered (or dropped), realtime upgrades aside. */
  private answered(): number {
    return this.sim.requestLog.count({
      where: (entry) => entry.route !== 'realtime' && entry.route !== undefined,
    });
  }
}
