/**
 * The system under the lease property: up to four daemon slots over one PostgreSQL mirror, each
 * a real `LeaseKeeper` on its own connection (as separate processes would have), and an admin
 * connection that reads the leases and moves the database's clock. Time is simulated on both
 * sides: the keepers' `Date.now()` is vitest's fake clock, and the database's `now()` is moved
 * by shifting every stored timestamp back, so that leases expire without sleeping.
 */
import pino from 'pino';
import { vi } from 'vitest';
import { LeaseKeeper } from '../../../src/store/thread/leases.js';
import { Coordination } from '../../../src/store/postgres/coordination.js';
import type { Db } from '../../../src/store/db.js';
import { openConnection } from '../../fixtures/connection.js';

/** The keepers' lease time, in ms (never waited for: time is simulated). */
export const LEASE_MS = 60_000;

/** The slot of a one-shot `push` process. */
export const PUSH_SLOT = -1;

/** A running daemon: its keeper, its own connection, and what its tokens see. */
export interface Daemon {
  slot: number;
  keeper: LeaseKeeper;
  db: Db;
  visible: string[];
}

/** What a keeper logged that the property needs: its give-backs and its failures. */
interface KeeperLog {
  /** Projects given back, and the keeper's time (Date.now()) when it gave them. */
  givenBack: Array<{ projects: string[]; at: number }>;
  failures: string[];
}

/**
 * Connections to the mirror, kept from case to case (opening one costs a worker thread): a
 * daemon stopped cleanly, or still running when its case ends, hands its connection on to a
 * later daemon; a crashed daemon's connection is closed. No two keepers ever share one.
 */
export class Connections {
  private readonly spare: Db[] = [];

  constructor(private readonly url: string) {}

  /** An open connection no keeper uses. */
  async take(): Promise<Db> {
    return this.spare.pop() ?? (await openConnection({ db: this.url }, 'write'));
  }

  /** Takes back the connection of a keeper that will not use it again. */
  giveBack(db: Db): void {
    this.spare.push(db);
  }

  close(): void {
    this.spare.splice(0).forEach((db) => db.close());
  }
}

/** The leases, the daemons and the clocks of one case. */
export class Cluster {
  /** The running daemon of each slot. */
  readonly running = new Map<number, Daemon>();
  /** Daemons crashed (their connection closed, their keeper abandoned), by slot. */
  readonly crashed: Daemon[] = [];
  private readonly logs = new Map<LeaseKeeper, KeeperLog>();

  private constructor(
    readonly admin: Db,
    private readonly connections: Connections,
  ) {}

  /** A case on `admin`'s mirror, its leases and daemons forgotten. */
  static async open(admin: Db, connections: Connections): Promise<Cluster> {
    await admin.exec('TRUNCATE project_leases, daemons, outbox');
    return new Cluster(admin, connections);
  }

  /** Starts a daemon in `slot` (a new keeper on its own connection) and lists what it sees. */
  async start(slot: number, visible: string[]): Promise<{ daemon: Daemon; listed: string[] }> {
    const daemon = await this.open(slot, visible);
    this.running.set(slot, daemon);
    // As `Daemon.start` does: a long-running daemon lets the others count what it lists.
    await daemon.keeper.advertise();
    return { daemon, listed: await daemon.keeper.listed(visible) };
  }

  /** A one-shot `push` (slot -1): a keeper that lists nothing; it claims its items' projects. */
  openPush(): Promise<Daemon> {
    return this.open(PUSH_SLOT, []);
  }

  /** Ends a push: it stops cleanly, or is killed (its leases stay until they expire). */
  async endPush(push: Daemon, killed: boolean): Promise<void> {
    if (killed) {
      push.db.close();
      this.crashed.push(push);
      return;
    }
    await push.keeper.stop();
    this.connections.giveBack(push.db);
  }

  private async open(slot: number, visible: string[]): Promise<Daemon> {
    const db = await this.connections.take();
    const log: KeeperLog = { givenBack: [], failures: [] };
    const logger = pino({ level: 'info' }, { write: (line: string) => record(log, line) });
    const keeper = await LeaseKeeper.start({
      coordination: new Coordination(db),
      tokens: [`slot-${slot}`],
      version: 'test',
      logger,
      leaseMs: LEASE_MS,
      autoRenew: false,
    });
    this.logs.set(keeper, log);
    return { slot, keeper, db, visible };
  }

  /** Kills the daemon of `slot`: its connection closes, its leases stay until they expire. */
  crash(slot: number): void {
    const daemon = this.running.get(slot);
    if (daemon === undefined) return;
    this.running.delete(slot);
    daemon.db.close();
    this.crashed.push(daemon);
  }

  /** Stops the daemon of `slot` cleanly: it gives its leases back. */
  async stop(slot: number): Promise<void> {
    const daemon = this.running.get(slot);
    if (daemon === undefined) return;
    this.running.delete(slot);
    await daemon.keeper.stop();
    this.connections.giveBack(daemon.db);
  }

  /** Time passes for everyone: the keepers' clock and the database's move on by `ms`. */
  async elapse(ms: number): Promise<void> {
    vi.setSystemTime(Date.now() + ms);
    const back = 'make_interval(secs => ?::float8 / 1000)';
    await this.admin
      .prepare(
        `UPDATE project_leases SET expires_at = expires_at - ${back}, acquired_at = acquired_at - ${back}`,
      )
      .run(ms, ms);
    await this.admin
      .prepare(
        `UPDATE daemons SET heartbeat_at = heartbeat_at - ${back}, started_at = started_at - ${back}`,
      )
      .run(ms, ms);
  }

  /** Time passes for the crashed daemons only: their leases expire, their heartbeat is old. */
  async expireCrashed(): Promise<void> {
    const ids = this.crashed.map((daemon) => daemon.keeper.holder);
    if (ids.length === 0) return;
    await this.admin
      .prepare(
        `UPDATE project_leases SET expires_at = now() - interval '1 millisecond'
         WHERE daemon_id = ANY (?)`,
      )
      .run([ids]);
    await this.admin
      .prepare(
        `UPDATE daemons SET heartbeat_at = now() - make_interval(secs => ?::float8 / 1000)
         WHERE id = ANY (?)`,
      )
      .run(LEASE_MS + 1, ids);
  }

  /** Each project's live lease holder, as the database names it. */
  async holders(): Promise<Map<string, string>> {
    const rows = await this.admin
      .prepare<[], [string, string]>(
        'SELECT project_id, daemon_id FROM project_leases WHERE expires_at > now()',
      )
      .raw()
      .all();
    return new Map(rows);
  }

  /** The daemon ids the database has a row for. */
  async registered(): Promise<Set<string>> {
    return new Set(await this.admin.prepare<[], string>('SELECT id FROM daemons').pluck().all());
  }

  /** The projects `daemon` gave back within `windowMs` of its clock. */
  givenBackWithin(daemon: Daemon, windowMs: number): Set<string> {
    const since = Date.now() - windowMs;
    const events = this.logs.get(daemon.keeper)?.givenBack ?? [];
    return new Set(events.filter((event) => event.at > since).flatMap((event) => event.projects));
  }

  /** The failures (`lease heartbeat failed`, ...) every keeper logged. */
  failures(): string[] {
    return [...this.logs.values()].flatMap((log) => log.failures);
  }

  /** Ends the case: the running daemons are abandoned, their connections handed on. */
  close(): void {
    for (const daemon of this.running.values()) this.connections.giveBack(daemon.db);
    this.running.clear();
  }
}

/** Keeps what the property needs of one pino line. */
function record(log: KeeperLog, line: string): void {
  const entry = JSON.parse(line) as { level: number; msg: string; projects?: string[] };
  if (entry.msg === 'leases given back to share the projects') {
    log.givenBack.push({ projects: entry.projects ?? [], at: Date.now() });
  } else if (entry.level >= 40 && entry.msg !== 'leases lost to another daemon') {
    log.failures.push(line);
  }
}
