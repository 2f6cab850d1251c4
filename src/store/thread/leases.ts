/**
 * The projects this process holds when daemons share a PostgreSQL mirror: it registers, renews
 * its heartbeat and its leases every third of the lease time, takes every free lease of the
 * projects its tokens list (so a daemon that dies has its projects taken over once their leases
 * expire), and gives projects back to a daemon holding fewer that lists them too, so that the
 * daemons share them out. Leases are judged on the
 * database's clock and renewed on real time, whatever clock the rest of the daemon runs on.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { errorLine, NotHeldError, type Leases, type ProjectFence } from '../../domain/index.js';
import type { Coordination, DaemonIdentity } from '../postgres/coordination.js';

/** How long a lease lasts unless renewed, in ms: a dead daemon's projects move after this. */
export const DEFAULT_LEASE_MS = 30_000;

/** What `LeaseKeeper.mine()` reads, as it can be copied to another thread. */
export interface LeaseSnapshot {
  held: string[];
  /** When the leases were last renewed (ms since the epoch). */
  renewedAt: number;
  leaseMs: number;
}

/** True when `held` holds `projectId` and leases renewed at `renewedAt` have not run out. */
export function heldIn(
  leases: { held: ReadonlySet<string>; renewedAt: number; leaseMs: number },
  projectId: string,
  now: number,
): boolean {
  return now - leases.renewedAt < leases.leaseMs && leases.held.has(projectId);
}
/** A daemon silent for this many lease times is forgotten (its row deleted from `daemons`). */
const STALE_LEASES = 3;

/** What the keeper needs. */
export interface LeaseKeeperOptions {
  /** The leases' rows in the mirror. */
  coordination: Coordination;
  /** The labels of this process's tokens, shown by `status`. */
  tokens: readonly string[];
  /** This installation's version, shown by `status`. */
  version: string;
  logger: Logger;
  leaseMs?: number;
  /** Renew on a timer every third of the lease time (default); false: only by `heartbeat()`. */
  autoRenew?: boolean;
  /**
   * How the keeper's own work (its heartbeats) joins the connection's line of units, so that it
   * never runs inside a unit's transaction (`SerialQueue.run`). At once when not given.
   */
  serially?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** This process's identity: host, pid and a random suffix (two runs never share one). */
export function daemonIdentity(tokens: readonly string[], version: string): DaemonIdentity {
  const host = hostname();
  const suffix = randomBytes(3).toString('hex');
  return { id: `${host}:${process.pid}:${suffix}`, host, pid: process.pid, tokens, version };
}

/** Holds, renews and takes over leases; see the module comment. */
export class LeaseKeeper implements ProjectFence {
  readonly identity: DaemonIdentity;
  private readonly coordination: Coordination;
  private readonly logger: Logger;
  /** How long a lease lasts unless renewed, in ms. */
  readonly leaseMs: number;
  private held = new Set<string>();
  /**
   * When the leases in `held` were last renewed (Date.now() before the renewal began, so never
   * later than the database's view): past the lease time, none is.
   */
  private renewedAt = 0;
  private visible: string[] = [];
  /** True once `advertise()` was called: others may then hand this process projects. */
  private advertised = false;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private heartbeatQueued = false;
  /** Projects given back to share them out, and until when (Date.now()) not to take them again. */
  private readonly givenBack = new Map<string, number>();
  private readonly acquiredListeners = new Set<(projectIds: string[]) => void>();
  private readonly heartbeatListeners = new Set<() => void>();
  /** Runs work on the connection's line (`LeaseKeeperOptions.serially`): see `leasesOf`. */
  readonly serially: <T>(work: () => Promise<T>) => Promise<T>;

  private constructor(options: LeaseKeeperOptions) {
    this.coordination = options.coordination;
    this.logger = options.logger;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.identity = daemonIdentity(options.tokens, options.version);
    this.serially = options.serially ?? ((work) => work());
  }

  /** Registers the daemon and starts renewing its leases (every third of a lease). */
  static async start(options: LeaseKeeperOptions): Promise<LeaseKeeper> {
    const keeper = new LeaseKeeper(options);
    await keeper.serially(() => keeper.coordination.register(keeper.identity));
    keeper.renewedAt = Date.now();
    keeper.running = true;
    if (options.autoRenew ?? true) {
      const every = Math.max(1, Math.floor(keeper.leaseMs / 3));
      keeper.timer = setInterval(() => keeper.queueHeartbeat(), every);
      keeper.timer.unref();
    }
    return keeper;
  }

  /**
   * A timer's heartbeat, in the connection's line of units. One waits there at most: while the
   * line is held up (a stalled database), ticks do not pile up behind it. One that comes to run
   * after `stop()` does nothing, so that a stopped daemon takes no lease back.
   */
  private queueHeartbeat(): void {
    if (this.heartbeatQueued) return;
    this.heartbeatQueued = true;
    void this.serially(async () => {
      this.heartbeatQueued = false;
      await this.heartbeat();
    });
  }

  /** Calls `listener` with the projects taken over by a heartbeat (to pass them and push). */
  /** Told after every heartbeat, whatever it renewed (for a copy of `snapshot()` elsewhere). */
  onHeartbeat(listener: () => void): void {
    this.heartbeatListeners.add(listener);
  }

  /** What `mine()` reads: the projects held, and when their leases were last renewed. */
  snapshot(): LeaseSnapshot {
    return { held: [...this.held], renewedAt: this.renewedAt, leaseMs: this.leaseMs };
  }

  onAcquired(listener: (projectIds: string[]) => void): void {
    this.acquiredListeners.add(listener);
  }

  get holder(): string {
    return this.identity.id;
  }

  mine(projectId: string): boolean {
    const { held, renewedAt, leaseMs } = this;
    return heldIn({ held, renewedAt, leaseMs }, projectId, Date.now());
  }

  async fence(projectId: string): Promise<void> {
    if (await this.coordination.holds(this.identity.id, projectId)) return;
    this.held.delete(projectId);
    throw new NotHeldError(projectId);
  }

  /**
   * An incomplete listing (one of several tokens failed) adds to what the daemon lists and drops
   * nothing: a project only the failing token sees must not look unseen to the other daemons,
   * which would remove it from the mirror.
   */
  async listed(projectIds: readonly string[], complete = true): Promise<string[]> {
    this.visible = complete ? [...projectIds] : [...new Set([...this.visible, ...projectIds])];
    if (this.advertised) await this.coordination.publishVisible(this.identity.id, this.visible);
    await this.take(this.visible);
    return this.visible.filter((projectId) => this.mine(projectId));
  }

  /**
   * Tells the others what this process's tokens list, from now on: they then count it when they
   * share the projects out, and may give it some. A long-running daemon advertises; a one-shot
   * `sync` or `push` does not, so that no project is handed to a process about to exit.
   */
  async advertise(): Promise<void> {
    this.advertised = true;
    if (this.visible.length > 0) {
      await this.coordination.publishVisible(this.identity.id, this.visible);
    }
  }

  removable(projectIds: readonly string[]): Promise<string[]> {
    return this.coordination.unseenByOthers(this.identity.id, projectIds, this.leaseMs);
  }

  /** Takes the free leases of `projectIds` (a `push` of their items); returns those held. */
  async claim(projectIds: readonly string[]): Promise<string[]> {
    await this.take(projectIds);
    return projectIds.filter((projectId) => this.mine(projectId));
  }

  /** Stops renewing and gives every lease back, so that others take over at once. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.timer);
    this.timer = undefined;
    try {
      await this.coordination.release(this.identity.id);
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'could not give the leases back');
    }
    this.held.clear();
  }

  private get staleMs(): number {
    return this.leaseMs * STALE_LEASES;
  }

  /**
   * One heartbeat (every third of the lease time): renew, take what is free among the projects
   * the tokens list, and share out. Never throws: a failure is logged, and the leases lapse.
   * Does nothing once `stop()` gave the leases back.
   */
  async heartbeat(): Promise<void> {
    if (!this.running) return;
    try {
      const startedAt = Date.now();
      const renewed = await this.coordination.heartbeat(
        this.identity,
        this.advertised ? this.visible : [],
        this.leaseMs,
        this.staleMs,
      );
      const lost = [...this.held].filter((projectId) => !renewed.includes(projectId));
      if (lost.length > 0) this.logger.warn({ projects: lost }, 'leases lost to another daemon');
      this.held = new Set(renewed);
      this.renewedAt = startedAt;
      const acquired = await this.take(this.visible);
      await this.rebalance();
      // Told once shared out: a project taken and given back in the same heartbeat is not ours.
      const kept = acquired.filter((projectId) => this.held.has(projectId));
      if (kept.length > 0) this.acquiredListeners.forEach((listener) => listener(kept));
    } catch (error) {
      this.logger.warn({ err: errorLine(error) }, 'lease heartbeat failed');
    }
    this.heartbeatListeners.forEach((listener) => listener());
  }

  /**
   * Takes every free lease among `candidates` but those it gave back lately: a project one of
   * the daemons can see is never left without one. Returns the projects taken.
   */
  private async take(candidates: readonly string[]): Promise<string[]> {
    const now = Date.now();
    const wanted = candidates.filter((projectId) => (this.givenBack.get(projectId) ?? 0) <= now);
    if (wanted.length === 0) return [];
    const result = await this.coordination.acquire(this.identity.id, wanted, this.leaseMs);
    this.held = new Set(result.held);
    // `acquire` renewed every lease held, in a transaction begun after `now`.
    this.renewedAt = now;
    if (result.acquired.length > 0) {
      this.logger.info({ projects: result.acquired }, 'leases taken');
    }
    return result.acquired;
  }

  /**
   * Shares the projects out: gives back a project to a live daemon that lists it and holds at
   * least two fewer (it takes it at its next heartbeat), and does not take it again for two
   * heartbeats. Each give-back narrows the gap, so the daemons settle.
   */
  private async rebalance(): Promise<void> {
    const loads = await this.coordination.liveDaemons(this.leaseMs);
    let mine = this.held.size;
    const released: string[] = [];
    for (const projectId of [...this.held].sort().reverse()) {
      const taker = loads.find(
        (load) =>
          load.id !== this.identity.id && load.listed.includes(projectId) && load.held < mine - 1,
      );
      if (taker === undefined) continue;
      taker.held += 1;
      mine -= 1;
      released.push(projectId);
    }
    if (released.length === 0) return;
    await this.coordination.releaseProjects(this.identity.id, released);
    const until = Date.now() + (2 * this.leaseMs) / 3;
    for (const projectId of released) {
      this.held.delete(projectId);
      this.givenBack.set(projectId, until);
    }
    this.logger.info({ projects: released }, 'leases given back to share the projects');
  }
}

/** The leases' units, on the thread that owns the connection (a PostgreSQL mirror's). */
export class LeaseUnits {
  private readonly keeper: LeaseKeeper | undefined;

  constructor(keeper: LeaseKeeper | undefined) {
    this.keeper = keeper;
  }

  listed(projectIds: readonly string[], complete?: boolean): Promise<string[]> {
    return this.held().listed(projectIds, complete);
  }

  removable(projectIds: readonly string[]): Promise<string[]> {
    return this.held().removable(projectIds);
  }

  claim(projectIds: readonly string[]): Promise<string[]> {
    return this.held().claim(projectIds);
  }

  advertise(): Promise<void> {
    return this.held().advertise();
  }

  stop(): Promise<void> {
    return this.held().stop();
  }

  snapshot(): LeaseSnapshot {
    return this.held().snapshot();
  }

  private held(): LeaseKeeper {
    if (this.keeper === undefined) throw new Error('this mirror has no leases');
    return this.keeper;
  }
}

/** The keeper's actions the engines ask for: its units (`LeaseUnits`), in the connection's line. */
export type LeaseActions = Pick<Leases, 'listed' | 'removable' | 'advertise' | 'claim' | 'stop'>;

/** What the engines' view reads of the leases held: the keeper, or a copy of its snapshot. */
interface HeldLeases {
  readonly leaseMs: number;
  mine(projectId: string): boolean;
}

/**
 * A copy of a keeper's snapshot on another thread, replaced whenever the store thread tells a
 * new one (after every heartbeat, and before each unit's answer and each notice of projects
 * taken: `thread-entry.ts`), so that the main thread never acts on an older copy.
 */
export class LeaseCopy implements HeldLeases {
  private snapshot: LeaseSnapshot;
  /** The snapshot's projects, for `mine`, asked per event and per outbox head. */
  private held: ReadonlySet<string>;

  constructor(snapshot: LeaseSnapshot) {
    this.snapshot = snapshot;
    this.held = new Set(snapshot.held);
  }

  get leaseMs(): number {
    return this.snapshot.leaseMs;
  }

  update(snapshot: LeaseSnapshot): void {
    this.snapshot = snapshot;
    this.held = new Set(snapshot.held);
  }

  mine(projectId: string): boolean {
    const { renewedAt, leaseMs } = this.snapshot;
    return heldIn({ held: this.held, renewedAt, leaseMs }, projectId, Date.now());
  }
}

/**
 * The leases as the engines hold them (`Leases`), wherever the keeper runs: what is held is read
 * from the keeper or from a copy of it (`LeaseCopy`), and every action is one of the keeper's
 * units, asked in the connection's line.
 */
export class LeaseView implements Leases {
  readonly holder: string;
  private readonly held: HeldLeases;
  private readonly units: LeaseActions;
  private readonly listeners = new Set<(projectIds: string[]) => void>();
  private readonly renewedListeners = new Set<() => void>();

  constructor(holder: string, held: HeldLeases, units: LeaseActions) {
    this.holder = holder;
    this.held = held;
    this.units = units;
  }

  get leaseMs(): number {
    return this.held.leaseMs;
  }

  /** What is held may have changed (a heartbeat, a new copy): tells the `onRenewed` listeners. */
  renewed(): void {
    this.renewedListeners.forEach((listener) => listener());
  }

  /** A heartbeat took over `projectIds`: tells the `onAcquired` listeners. */
  acquired(projectIds: string[]): void {
    this.listeners.forEach((listener) => listener(projectIds));
  }

  mine(projectId: string): boolean {
    return this.held.mine(projectId);
  }

  listed(projectIds: readonly string[], complete?: boolean): Promise<string[]> {
    return this.units.listed(projectIds, complete);
  }

  removable(projectIds: readonly string[]): Promise<string[]> {
    return this.units.removable(projectIds);
  }

  onAcquired(listener: (projectIds: string[]) => void): void {
    this.listeners.add(listener);
  }

  /** Told whenever what is held may have changed (after a heartbeat, or a new copy). */
  onRenewed(listener: () => void): void {
    this.renewedListeners.add(listener);
  }

  advertise(): Promise<void> {
    return this.units.advertise();
  }

  claim(projectIds: readonly string[]): Promise<string[]> {
    return this.units.claim(projectIds);
  }

  stop(): Promise<void> {
    return this.units.stop();
  }
}

/**
 * The leases of a keeper on this thread, as the engines hold them: read from the keeper itself,
 * each action on the keeper's own line (the one its renewals take).
 */
export function leasesOf(keeper: LeaseKeeper): Leases {
  const units = new LeaseUnits(keeper);
  const serially = keeper.serially;
  const view = new LeaseView(keeper.holder, keeper, {
    listed: (projectIds, complete) => serially(() => units.listed(projectIds, complete)),
    removable: (projectIds) => serially(() => units.removable(projectIds)),
    advertise: () => serially(() => units.advertise()),
    claim: (projectIds) => serially(() => units.claim(projectIds)),
    stop: () => serially(() => units.stop()),
  });
  keeper.onHeartbeat(() => view.renewed());
  keeper.onAcquired((projectIds) => view.acquired(projectIds));
  return view;
}
