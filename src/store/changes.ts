/**
 * The change feed's reading side and retention (`changes`, written by the schema's triggers:
 * schema.sql, schema.pg.sql; docs/changes.md). The same SQL on both engines: each hands JSON back
 * as its text and times as ISO-8601 UTC text.
 */
import { UsageError } from '../domain/index.js';
import { connectionOf, type MirrorHandle } from './handle.js';
import { SCHEMA_VERSION } from './migrations.js';

/** One row of `changes`, `data` and `fields` as JSON text (or null). */
export interface ChangeRow {
  seq: number;
  committedAt: string;
  batch: number;
  entity: string;
  projectId: string;
  entityId: string;
  op: string;
  data: string | null;
  fields: string | null;
}

/** The `daemon_state` key holding the last `seq` retention pruned (0: none yet). */
export const PRUNED_THROUGH_KEY = 'changes.pruned_through';

const DAY_MS = 86_400_000;

/** Reads the feed in `seq` order, and prunes it. */
export class ChangesRepository {
  private readonly afterStmt;
  private readonly prunedStmt;
  private readonly oldestStmt;
  private readonly horizonStmt;
  private readonly pruneStmt;
  private readonly notePrunedStmt;
  private readonly db;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.db = db;
    this.afterStmt = db.prepare<[number, number], ChangeRow>(
      `SELECT seq, committed_at AS "committedAt", batch, entity, project_id AS "projectId",
         entity_id AS "entityId", op, data, fields
       FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    this.prunedStmt = db
      .prepare<[string], string>('SELECT value FROM daemon_state WHERE key = ?')
      .pluck();
    this.oldestStmt = db.prepare<[number], number | null>(
      // seq > 0: PostgreSQL's rows of a transaction in hand wait at or below 0 until it commits.
      'SELECT min(seq) FROM changes WHERE seq > ?',
    );
    this.oldestStmt.pluck();
    this.horizonStmt = db
      .prepare<[string], number | null>('SELECT max(seq) FROM changes WHERE committed_at < ?')
      .pluck();
    this.pruneStmt = db.prepare('DELETE FROM changes WHERE seq > 0 AND seq <= ?');
    this.notePrunedStmt = db.prepare(
      `INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
  }

  /** The changes after `since`, at most `limit`, in `seq` order. */
  async after(since: number, limit: number): Promise<ChangeRow[]> {
    return await this.afterStmt.all(since, limit);
  }

  /** The last `seq` retention has pruned; 0 when it never pruned any. */
  async prunedThrough(): Promise<number> {
    const value = await this.prunedStmt.get(PRUNED_THROUGH_KEY);
    return value === undefined ? 0 : Number(JSON.parse(value));
  }

  /** The oldest `seq` kept, if any is. */
  async oldestKept(): Promise<number | undefined> {
    return (await this.oldestStmt.get(0)) ?? undefined;
  }

  /**
   * Deletes the changes written more than `days` before `now`: every `seq` up to the last such
   * one (a prefix, so that a cursor is expired exactly when it is below what was pruned), and
   * notes how far. Returns the rows removed.
   */
  async prune(now: number, days: number): Promise<number> {
    const cutoff = new Date(now - days * DAY_MS).toISOString();
    return await this.db.transaction(async () => {
      const horizon = await this.horizonStmt.get(cutoff);
      if (horizon === null || horizon === undefined) return 0;
      const { changes } = await this.pruneStmt.run(horizon);
      const at = new Date(now).toISOString();
      await this.notePrunedStmt.run(PRUNED_THROUGH_KEY, JSON.stringify(horizon), at);
      return changes;
    }, 'immediate');
  }
}

/** The feed's reading side, as the `changes` command uses it. */
export type ChangeFeed = Pick<ChangesRepository, 'after' | 'prunedThrough' | 'oldestKept'>;

/**
 * The change feed of `mirror` (named `name` in messages); a usage error when it has none yet (a
 * mirror made by an earlier projmirror, not migrated since).
 */
export async function openChangeFeed(mirror: MirrorHandle, name: string): Promise<ChangeFeed> {
  try {
    await connectionOf(mirror).prepare('SELECT 1 FROM changes WHERE 1 = 0').all();
    return new ChangesRepository(mirror);
  } catch {
    throw new UsageError(
      `--db ${name} has no change feed yet; run projmirror sync once to migrate it to schema version ${SCHEMA_VERSION}`,
    );
  }
}

/** One change as a line of NDJSON: the contract's columns, `data` and `fields` as JSON. */
export function changeLine(row: ChangeRow): string {
  return (
    `{"seq":${row.seq},"committed_at":${JSON.stringify(row.committedAt)},"batch":${row.batch},` +
    `"entity":${JSON.stringify(row.entity)},"project_id":${JSON.stringify(row.projectId)},` +
    `"entity_id":${JSON.stringify(row.entityId)},"op":${JSON.stringify(row.op)},` +
    `"data":${row.data ?? 'null'},"fields":${row.fields ?? 'null'}}\n`
  );
}
