/**
 * The daemon's life on one mirror, as `run` lives it: started (wired as `run` wires it, its
 * mirror on a store thread of its own, on the case's manual clock), stopped and started again, or
 * killed. A kill is an abandonment in this process: the store thread is abandoned (the unit in
 * hand ends, nothing more reaches the mirror; on PostgreSQL its session ends and its lease
 * heartbeat stops, the leases staying until they expire), the realtime socket is dropped and the
 * daemon is told to stop (its loops end; the requests in flight are abandoned); a new daemon
 * then starts on the same mirror.
 */
import pino from 'pino';
import { createDaemon } from '../../../src/daemon/compose.js';
import type { Daemon } from '../../../src/daemon/daemon.js';
import { openEngine, type Engine } from '../../../src/daemon/wiring.js';
import type { Clock, ManualClock } from '../../../src/domain/index.js';
import type { Simulator } from '../../../src/sim/index.js';
import type { Db } from '../../../src/store/db.js';
import { singleToken } from '../../../src/tokens/index.js';
import { sqliteFileMirror, type CaseMirror } from './mirror.js';

/** How often the idle pusher looks for items inserted by SQL (simulated time). */
export const OUTBOX_IDLE_MS = 10_000;
/**
 * How long a unit is tried again while another connection holds a SQLite mirror's lock (on
 * PostgreSQL, the session's `lock_timeout`), in ms of real time: `run`'s 5 s (10 s) shortened,
 * so that a held lock outlasts it within the property's time.
 */
export const STORE_BUSY_WAIT_MS = 300;
/**
 * How often the daemon probes its store, in ms of real time (`run`: 2 s): the probe is how it
 * learns the store is back, and the case's clock does not wait for real seconds.
 */
export const STORE_PROBE_MS = 50;
/**
 * The page size the daemons read tasks with: four, so that a case's projects (up to 25 tasks)
 * take up to seven pages, and a pass's pages, the writes of several at once (two a statement in
 * a PostgreSQL backfill), the 304s of kept pages and the rows a change shifts from page to page play against
 * every other step, as a project of many thousand tasks would at the service's 500.
 */
export const DAEMON_PAGE_SIZE = 4;
/** How long cleanup waits (real time) for each stop and close. */
const CLOSE_TIMEOUT_MS = 2_000;
/** How often a wait for leases looks at them (real time). */
const LEASE_LOOK_MS = 25;

/**
 * The daemons' logger: silent, or every line at debug level appended to the file
 * `PROJMIRROR_PROPERTY_LOG` names (to see what a daemon did in a counterexample replayed).
 */
function daemonLogger(): pino.Logger {
  const file = process.env['PROJMIRROR_PROPERTY_LOG'];
  if (file === undefined || file === '') return pino({ level: 'silent' });
  logFile ??= pino.destination({ dest: file, sync: true, append: true });
  return pino({ level: 'debug' }, logFile);
}

/** The file of `PROJMIRROR_PROPERTY_LOG`, opened once for every daemon of the run. */
let logFile: ReturnType<typeof pino.destination> | undefined;

/**
 * A clock for one daemon over the case's manual clock, counting the daemon's pending sleeps.
 * Once its daemon is killed, its sleeps end on the next real tick (or at once on abort), so the
 * abandoned daemon winds down without moving the case's clock.
 */
export class KillableClock implements Clock {
  private killed = false;
  private sleeping = 0;

  constructor(private readonly inner: ManualClock) {}

  now(): number {
    return this.inner.now();
  }

  monotonic(): number {
    return this.inner.monotonic();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.killed) return nextTick(signal);
    this.sleeping += 1;
    return this.inner.sleep(ms, signal).finally(() => (this.sleeping -= 1));
  }

  /** Sleeps of this daemon now pending (idle, the daemon sleeps in three or more places). */
  get pendingSleeps(): number {
    return this.killed ? 0 : this.sleeping;
  }

  get isKilled(): boolean {
    return this.killed;
  }

  kill(): void {
    this.killed = true;
  }
}

function nextTick(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    setTimeout(resolve, 0);
  });
}

interface Running {
  daemon: Daemon;
  engine: Engine;
  clock: KillableClock;
  /** `daemon.start()`, which may wait on the clock (faults, budget): never awaited bare. */
  started: Promise<void>;
  /** After a kill: the abandoned daemon's loops winding down, and its store's end. */
  stopping?: Promise<void>;
}

/** The daemons of one case, one at a time, on one mirror. */
export class DaemonHost {
  private current: Running | undefined;
  /** A daemon's store thread opening (`start()` not yet done). */
  private opening: Promise<unknown> | undefined;
  private readonly abandoned: Running[] = [];
  /** Where the daemons' mirror is (a string: a SQLite file). */
  private readonly mirror: CaseMirror;
  /** Errors thrown by `start()`, `stop()` or a reconcile: a daemon must not throw them. */
  readonly errors: string[] = [];
  starts = 0;

  constructor(
    private readonly sim: Simulator,
    private readonly clock: ManualClock,
    mirror: CaseMirror | string,
    /** The page size the daemons read tasks with. */
    readonly pageSize = DAEMON_PAGE_SIZE,
  ) {
    this.mirror = typeof mirror === 'string' ? sqliteFileMirror(mirror) : mirror;
  }

  /** The running daemon's start-up (resolves once its loops run). */
  get started(): Promise<void> {
    const opening = this.opening ?? Promise.resolve();
    return opening.then(() => this.current?.started);
  }

  /** Units of the running daemon's store in hand or waiting (one more while it opens). */
  get storeDepth(): number {
    const opening = this.opening === undefined ? 0 : 1;
    return opening + (this.current?.engine.store.progress().depth ?? 0);
  }

  /** Sleeps pending in the running daemon. */
  get pendingSleeps(): number {
    return this.current?.clock.pendingSleeps ?? 0;
  }

  /** Opens the mirror and starts a daemon on it (not waiting for its start-up). */
  async start(): Promise<void> {
    if (this.current !== undefined || this.opening !== undefined) {
      throw new Error('a daemon is already running');
    }
    const logger = daemonLogger();
    const clock = new KillableClock(this.clock);
    const { leaseMs, location } = this.mirror;
    const opening = openEngine(
      { baseUrl: new URL(this.sim.baseUrl), tokens: singleToken(this.sim.token) },
      {
        db: location,
        logger,
        clock,
        storeBusyWaitMs: STORE_BUSY_WAIT_MS,
        pageSize: this.pageSize,
        ...(leaseMs === undefined ? {} : { leaseMs }),
      },
    );
    this.opening = opening;
    const engine = await opening.finally(() => (this.opening = undefined));
    const daemon = createDaemon({
      engine,
      logger,
      realtime: { url: new URL(this.sim.realtimeUrl), tokens: singleToken(this.sim.token) },
      outboxIdleMs: OUTBOX_IDLE_MS,
      storeProbeMs: STORE_PROBE_MS,
    });
    this.starts += 1;
    const started = daemon.start().catch((error: unknown) => {
      if (!clock.isKilled) this.note('start', error);
    });
    this.current = { daemon, engine, clock, started };
  }

  /** Stops the running daemon as SIGTERM would (`stop()`, then the engine and the mirror). */
  async stop(): Promise<void> {
    const running = this.current;
    if (running === undefined) return;
    this.current = undefined;
    try {
      await running.daemon.stop();
      await running.engine.close();
    } catch (error) {
      this.note('stop', error);
    }
  }

  /** Abandons the running daemon at this instant, as SIGKILL would (see the module comment). */
  kill(): void {
    const running = this.current;
    if (running === undefined) return;
    this.current = undefined;
    running.clock.kill();
    // The process is gone: its store thread is abandoned (the leases it held are not given
    // back, their heartbeat ends with the thread), and the requests in flight with it.
    const storeGone = running.engine.close({ abandon: true });
    this.sim.realtime.dropAll();
    // Its loops must end, or they would spin on the closed store; what they still try to write
    // fails on it, so nothing more reaches the mirror, as after a real kill.
    const loopsGone = running.daemon.stop();
    running.stopping = Promise.allSettled([storeGone, loopsGone]).then(() => undefined);
    this.abandoned.push(running);
  }

  /**
   * Waits (real time) until the leases a killed daemon left have expired and the running daemon
   * holds every project it listed: on PostgreSQL a kill costs up to one lease time of real time,
   * whatever the case's clock says. Nothing to wait for on SQLite.
   */
  async handedOver(db: Db): Promise<void> {
    const { leaseMs } = this.mirror;
    if (leaseMs === undefined) return;
    const boundMs = 2 * leaseMs + CLOSE_TIMEOUT_MS;
    const deadline = Date.now() + boundMs;
    while (!(await this.mirror.handedOver(db, this.current?.engine.leases?.holder))) {
      if (Date.now() > deadline) {
        throw new Error(`the leases were not handed over within ${boundMs} ms (real time)`);
      }
      await new Promise((resolve) => setTimeout(resolve, LEASE_LOOK_MS));
    }
  }

  /** One reconcile of every project by the running daemon (the property's "one reconcile"). */
  async reconcile(): Promise<void> {
    const running = this.current;
    if (running === undefined) throw new Error('no daemon is running');
    await running.started;
    await running.daemon
      .reconcile(new AbortController().signal)
      .catch((error: unknown) => this.note('reconcile', error));
  }

  /**
   * Stops everything this host started, moving the clock meanwhile (a stop may wait on it);
   * abandoned daemons get a bounded chance to wind down.
   */
  async close(): Promise<void> {
    const pump = setInterval(() => this.clock.stepTo(this.clock.nextWakeAt ?? this.clock.now()), 5);
    try {
      await withinRealTime(this.stop(), CLOSE_TIMEOUT_MS);
      for (const zombie of this.abandoned.splice(0)) {
        await withinRealTime(zombie.stopping ?? Promise.resolve(), CLOSE_TIMEOUT_MS);
        await withinRealTime(zombie.engine.close(), CLOSE_TIMEOUT_MS);
      }
    } finally {
      clearInterval(pump);
    }
  }

  private note(what: string, error: unknown): void {
    this.errors.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `work`, or a resolved promise once `ms` of real time have passed; never rejects. */
async function withinRealTime(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}
