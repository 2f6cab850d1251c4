/**
 * How several daemons share one PostgreSQL mirror: each registers in `daemons` and renews its
 * heartbeat; each project is mirrored by the one daemon holding its row in `project_leases`,
 * taken and renewed in transactions and judged on the database's clock, so that a daemon that
 * dies loses its projects when their leases expire and a daemon that can see them takes over.
 * Every statement on those tables lives here.
 */
import { connectionOf, type MirrorHandle } from '../handle.js';
import type { Db } from '../db.js';

/** Who a daemon is, as `status` shows it. */
export interface DaemonIdentity {
  id: string;
  host: string;
  pid: number;
  /** The labels of its tokens. */
  tokens: readonly string[];
  version: string;
}

/** A daemon as `status` shows it, with the projects it holds. */
export interface DaemonRow {
  id: string;
  host: string;
  pid: number;
  tokens: string[];
  version: string;
  startedAt: string;
  heartbeatAt: string;
  /** The projects it holds a live lease on. */
  projects: string[];
}

/** A live daemon: the projects its tokens list, and how many leases it holds. */
export interface DaemonLoad {
  id: string;
  listed: string[];
  held: number;
}

/** What one round of taking leases did. */
export interface Acquired {
  /** Projects whose lease this daemon did not hold before this round. */
  acquired: string[];
  /** Every project it holds now. */
  held: string[];
}

/** The database's own clock, plus `ms`. */
const LATER = `now() + make_interval(secs => ?::float8 / 1000)`;

/**
 * The fence, as SQL: true when `holder` (a parameter) holds `projectId`'s lease, its row then
 * locked FOR SHARE so that it cannot change hands before the statement's transaction ends. Every
 * check of a lease before a write is this one (`holds`, and statements that write on their own).
 */
export function leaseHeld(projectId: string, holder: string): string {
  return `EXISTS (SELECT 1 FROM project_leases
    WHERE project_id = ${projectId} AND daemon_id = ${holder} AND expires_at > now() FOR SHARE)`;
}

/** The `daemons`, `project_leases` and outbox-claim statements. */
export class Coordination {
  private readonly db: Db;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.db = db;
  }

  /** Adds (or renews) this daemon's row, listing `projectIds` when added; its heartbeat is now. */
  async register(identity: DaemonIdentity, projectIds: readonly string[] = []): Promise<void> {
    await this.db
      .prepare(
        `INSERT INTO daemons (id, host, pid, tokens, version, started_at, heartbeat_at, projects)
         VALUES (?, ?, ?, ?, ?, now(), now(), ?)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      )
      .run(identity.id, identity.host, identity.pid, identity.tokens.join(','), identity.version, [
        ...projectIds,
      ]);
  }

  /**
   * The heartbeat: renews the daemon's row and every lease it still holds for `ttlMs` more, and
   * forgets daemons silent for `staleMs` (their leases expired long before). A daemon that was
   * silent that long itself, and forgotten, is added again with the projects it lists, so that
   * the others count it again. Returns the projects it holds. A lease that expired is not
   * renewed: another daemon may have it now.
   */
  async heartbeat(
    identity: DaemonIdentity,
    listed: readonly string[],
    ttlMs: number,
    staleMs: number,
  ): Promise<string[]> {
    return this.db.transaction(async () => {
      await this.register(identity, listed);
      await this.db
        .prepare(
          `DELETE FROM daemons WHERE heartbeat_at < now() - make_interval(secs => ?::float8 / 1000)`,
        )
        .run(staleMs);
      return this.renew(identity.id, ttlMs);
    }, 'immediate');
  }

  /** Renews the daemon's live leases for `ttlMs`; an expired one may be another's now. */
  private async renew(daemonId: string, ttlMs: number): Promise<string[]> {
    return (await this.db
      .prepare(
        `UPDATE project_leases SET expires_at = ${LATER}
         WHERE daemon_id = ? AND expires_at > now() RETURNING project_id`,
      )
      .pluck()
      .all(ttlMs, daemonId)) as string[];
  }

  /** Records the projects the daemon's tokens list: the ones it may take over. */
  async publishVisible(daemonId: string, projectIds: readonly string[]): Promise<void> {
    await this.db
      .prepare('UPDATE daemons SET projects = ? WHERE id = ?')
      .run([...projectIds], daemonId);
  }

  /**
   * Renews every live lease the daemon holds and takes the leases of `candidates` that are free
   * (no lease, or an expired one), all for `ttlMs`: every lease
   * it holds afterwards lasts `ttlMs` from the round's start. A project taken from another daemon
   * has its items left `sending` by that daemon put back to `pending`, in the same transaction:
   * the new holder sends them again with the same idempotency key, so each takes effect once.
   */
  async acquire(daemonId: string, candidates: readonly string[], ttlMs: number): Promise<Acquired> {
    return this.db.transaction(async (): Promise<Acquired> => {
      const held = new Set(await this.renew(daemonId, ttlMs));
      const wanted = [...new Set(candidates)].filter((projectId) => !held.has(projectId));
      if (wanted.length === 0) return { acquired: [], held: [...held] };
      // One statement for every candidate: a daemon listing many projects held by others
      // pays one round trip a heartbeat, not one per project.
      const acquired = (await this.db
        .prepare(
          `INSERT INTO project_leases AS l (project_id, daemon_id, acquired_at, expires_at)
             SELECT wanted.id, @daemonId, now(), now() + make_interval(secs => @ttlMs::float8 / 1000)
             FROM unnest(@ids::text[]) AS wanted (id)
             ON CONFLICT (project_id) DO UPDATE
               SET daemon_id = excluded.daemon_id, acquired_at = now(), expires_at = excluded.expires_at
               WHERE l.expires_at <= now()
             RETURNING project_id`,
        )
        .pluck()
        .all({ daemonId, ttlMs, ids: wanted })) as string[];
      if (acquired.length > 0) {
        await this.db
          .prepare(
            `UPDATE outbox SET state = 'pending', claimed_by = NULL, next_attempt_at = NULL,
                 updated_at = now()
               WHERE project_id = ANY (@ids::text[]) AND state = 'sending'`,
          )
          .run({ ids: acquired });
      }
      for (const projectId of acquired) held.add(projectId);
      return { acquired, held: [...held] };
    }, 'immediate');
  }

  /**
   * Inside a write transaction: true when `daemonId` still holds `projectId`'s lease, which then
   * cannot change hands until the transaction ends (the row is locked FOR SHARE).
   */
  async holds(daemonId: string, projectId: string): Promise<boolean> {
    const row = await this.db
      .prepare(`SELECT ${leaseHeld('@projectId', '@daemonId')}`)
      .pluck()
      .get({ projectId, daemonId });
    // The session reads booleans as SQLite does: 1 and 0.
    return row === 1;
  }

  /** Of `projectIds`, those no other daemon alive within `aliveMs` lists. */
  async unseenByOthers(
    daemonId: string,
    projectIds: readonly string[],
    aliveMs: number,
  ): Promise<string[]> {
    if (projectIds.length === 0) return [];
    const unseen = (await this.db
      .prepare(
        `SELECT p.id FROM unnest(@ids::text[]) AS p (id)
         WHERE NOT EXISTS (
           SELECT 1 FROM daemons d
           WHERE d.id <> @daemonId AND p.id = ANY (d.projects)
             AND d.heartbeat_at > now() - make_interval(secs => @aliveMs::float8 / 1000))`,
      )
      .pluck()
      .all({ ids: [...projectIds], daemonId, aliveMs })) as string[];
    const kept = new Set(unseen);
    return projectIds.filter((projectId) => kept.has(projectId));
  }

  /** The daemons alive within `aliveMs` (this one included): what each lists and how many it holds. */
  async liveDaemons(aliveMs: number): Promise<DaemonLoad[]> {
    return (await this.db
      .prepare(
        `SELECT d.id, d.projects AS listed,
           (SELECT count(*) FROM project_leases l
            WHERE l.daemon_id = d.id AND l.expires_at > now()) AS held
         FROM daemons d WHERE d.heartbeat_at > now() - make_interval(secs => ?::float8 / 1000)`,
      )
      .all(aliveMs)) as DaemonLoad[];
  }

  /** Gives up the daemon's leases of `projectIds` (to balance the projects among daemons). */
  async releaseProjects(daemonId: string, projectIds: readonly string[]): Promise<void> {
    await this.db
      .prepare(
        'DELETE FROM project_leases WHERE daemon_id = @daemonId AND project_id = ANY (@ids::text[])',
      )
      .run({ daemonId, ids: [...projectIds] });
  }

  /** Gives up the daemon's leases and its row (a clean stop): others take over at once. */
  async release(daemonId: string): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.prepare('DELETE FROM project_leases WHERE daemon_id = ?').run(daemonId);
      await this.db.prepare('DELETE FROM daemons WHERE id = ?').run(daemonId);
    }, 'immediate');
  }

  /** Every registered daemon with the projects it holds, for `status`. */
  async daemons(): Promise<DaemonRow[]> {
    const rows = (await this.db
      .prepare(
        `SELECT d.id, d.host, d.pid, d.tokens, d.version, d.started_at AS startedAt,
           d.heartbeat_at AS heartbeatAt,
           coalesce((SELECT array_agg(l.project_id ORDER BY l.project_id) FROM project_leases l
                     WHERE l.daemon_id = d.id AND l.expires_at > now()), '{}') AS projects
         FROM daemons d ORDER BY d.host, d.pid, d.id`,
      )
      .all()) as Array<Omit<DaemonRow, 'tokens'> & { tokens: string }>;
    return rows.map((row) => ({ ...row, tokens: row.tokens === '' ? [] : row.tokens.split(',') }));
  }
}
