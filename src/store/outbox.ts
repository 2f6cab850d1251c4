/** The `outbox` table: local edits waiting to be pushed. Every statement on it lives here. */
import { connectionOf, type MirrorHandle } from './handle.js';
import { isoTime, type Db } from './database.js';
import { dialectOf } from './db.js';

/**
 * The life of an item: pending → sending → done | failed (or back to pending on a retry); a
 * pending item whose fields the service changed since it was queued → conflict, resolved back to
 * pending (keep local) or to discarded (keep remote).
 */
export const OUTBOX_STATES = [
  'pending',
  'sending',
  'done',
  'failed',
  'conflict',
  'discarded',
] as const;

/** One of `OUTBOX_STATES`. */
export type OutboxState = (typeof OUTBOX_STATES)[number];

/** A row of `outbox`. JSON columns are kept as text, exactly as stored. */
export interface OutboxItem {
  id: number;
  op: string;
  projectId: string;
  targetId: string | null;
  body: string;
  idempotencyKey: string;
  state: OutboxState;
  attempts: number;
  lastError: string | null;
  result: string | null;
  /** The exact body sent, fixed at the first attempt ('' for a bodiless request). */
  requestBody: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The label of the token it is sent with: chosen when queued, else fixed at its first attempt. */
  tokenLabel: string | null;
  /** JSON: the mirror's values of the fields it changes, when queued (`store/outbox-queue/conflict.ts`). */
  base: string | null;
  /** JSON `{fields, base, local, remote}` while it waits in `conflict`. */
  conflict: string | null;
}

/** An edit to append: `body` is the JSON text of the op's body. */
export interface NewOutboxItem {
  op: string;
  projectId: string;
  targetId: string | null;
  body: string;
  /** The token to send it with (`enqueue --token`); null lets the first attempt choose. */
  tokenLabel?: string | null;
}

/** Counts by state and the age of the oldest item not yet pushed. */
export interface OutboxSummary {
  counts: Record<OutboxState, number>;
  /** When the oldest pending (or sending) item was queued; null when there is none. */
  oldestPendingAt: string | null;
  /** Its age in milliseconds at `now`; null when there is none. */
  oldestPendingAgeMs: number | null;
}

/** How an item goes back to `pending` after a try that did not finish it. */
export interface Requeue {
  /** Kept as `last_error`; null keeps the one there. */
  error: string | null;
  /** When it may be tried again; null for at once. */
  dueAt: number | null;
  /** Takes back the try's attempt (the service refused it before looking: 429, budget). */
  uncount: boolean;
}

const ITEM_COLUMNS = `id, op, project_id, target_id, body, idempotency_key, state, attempts,
  last_error, result, request_body, next_attempt_at, created_at, updated_at, token_label, base,
  conflict`;

const UNFINISHED = `state IN ('pending', 'sending')`;

/**
 * An item `i` waits behind an earlier conflict of its project only when both touch the same
 * record: the same target, or both the project's own lists (no target: creates, reorder, set).
 */
const NOT_BEHIND_CONFLICT = `NOT EXISTS (
  SELECT 1 FROM outbox AS c WHERE c.project_id = i.project_id AND c.id < i.id
    AND c.state = 'conflict'
    AND (c.target_id = i.target_id OR (c.target_id IS NULL AND i.target_id IS NULL)))`;

interface ItemRow {
  id: number;
  op: string;
  project_id: string;
  target_id: string | null;
  body: string;
  idempotency_key: string;
  state: OutboxState;
  attempts: number;
  last_error: string | null;
  result: string | null;
  request_body: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  token_label: string | null;
  base: string | null;
  conflict: string | null;
}

function rowToItem(row: ItemRow): OutboxItem {
  return {
    id: row.id,
    op: row.op,
    projectId: row.project_id,
    targetId: row.target_id,
    body: row.body,
    idempotencyKey: row.idempotency_key,
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error,
    result: row.result,
    requestBody: row.request_body,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    tokenLabel: row.token_label,
    base: row.base,
    conflict: row.conflict,
  };
}

/** Reads and writes `outbox` rows; times come in as epoch ms and are stored as ISO-8601 UTC. */
export class OutboxRepository {
  private readonly db: Db;
  private readonly insertStmt;
  private readonly getStmt;
  private readonly lockStmt;
  /** On PostgreSQL, what `markSending` records in `claimed_by`; undefined on SQLite (no column). */
  private readonly claimant: string | null | undefined;
  private readonly unfinishedStmt;
  private readonly headsStmt;
  private readonly unfinishedByProjectStmt;
  private readonly countsStmt;
  private readonly oldestStmt;
  private readonly sendingStmt;
  private readonly failedStmt;
  private readonly doneStmt;
  private readonly requeueStmt;
  private readonly makeDueStmt;
  private readonly recoverStmt;
  private readonly deleteStmt;
  private readonly tokenStmt;
  private readonly conflictStmt;
  private readonly keepLocalStmt;
  private readonly discardStmt;
  private readonly followersStmt;
  private readonly baseStmt;

  /**
   * `claimant`: on a PostgreSQL mirror shared by daemons, the daemon sending, recorded in
   * `claimed_by`; rows are then locked for a claim with SKIP LOCKED.
   */
  constructor(mirror: MirrorHandle, claimant?: string) {
    const db = connectionOf(mirror);
    this.db = db;
    const shared = dialectOf(db) === 'postgres';
    this.claimant = shared ? (claimant ?? null) : undefined;
    this.insertStmt = db.prepare<
      [string, string, string | null, string, string | null, string, string],
      { id: number; idempotency_key: string }
    >(
      `INSERT INTO outbox (op, project_id, target_id, body, token_label, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id, idempotency_key`,
    );
    this.getStmt = db.prepare<[number], ItemRow>(`SELECT ${ITEM_COLUMNS} FROM outbox WHERE id = ?`);
    this.unfinishedStmt = db.prepare<[], ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM outbox WHERE ${UNFINISHED} ORDER BY id`,
    );
    this.headsStmt = db.prepare<[], ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM outbox AS o
       WHERE o.${UNFINISHED} AND o.id = (
         SELECT min(i.id) FROM outbox AS i
         WHERE i.project_id = o.project_id AND i.${UNFINISHED} AND ${NOT_BEHIND_CONFLICT})
       ORDER BY o.id`,
    );
    this.conflictStmt = db.prepare(
      `UPDATE outbox SET state = 'conflict', last_error = ?, conflict = ?, next_attempt_at = NULL,
         updated_at = ? WHERE id = ?`,
    );
    this.keepLocalStmt = db.prepare(
      `UPDATE outbox SET state = 'pending', base = ?, conflict = NULL, last_error = ?,
         next_attempt_at = NULL, updated_at = ? WHERE id = ? AND state = 'conflict'`,
    );
    this.followersStmt = db.prepare<[string, number, string | null, string | null], ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM outbox WHERE project_id = ? AND id > ? AND ${UNFINISHED}
         AND (target_id = ? OR (target_id IS NULL AND CAST(? AS text) IS NULL)) ORDER BY id`,
    );
    this.baseStmt = db.prepare('UPDATE outbox SET base = ? WHERE id = ?');
    this.discardStmt = db.prepare(
      `UPDATE outbox SET state = 'discarded', last_error = ?, next_attempt_at = NULL,
         updated_at = ? WHERE id = ?`,
    );
    this.unfinishedByProjectStmt = db.prepare<[], { projectId: string; n: number }>(
      `SELECT project_id AS projectId, count(*) AS n FROM outbox WHERE ${UNFINISHED}
       GROUP BY project_id`,
    );
    this.countsStmt = db.prepare<[], { state: OutboxState; n: number }>(
      'SELECT state, count(*) AS n FROM outbox GROUP BY state',
    );
    this.oldestStmt = db.prepare<[], string | null>(
      `SELECT min(created_at) FROM outbox WHERE ${UNFINISHED}`,
    );
    this.oldestStmt.pluck();
    this.sendingStmt = db.prepare(
      `UPDATE outbox SET state = 'sending', attempts = attempts + 1, request_body = ?,
         next_attempt_at = NULL, updated_at = ?${shared ? ', claimed_by = ?' : ''}
       WHERE id = ?`,
    );
    // Another daemon's claim in progress is skipped, not waited for.
    this.lockStmt = db.prepare<[number], ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM outbox WHERE id = ?${shared ? ' FOR UPDATE SKIP LOCKED' : ''}`,
    );
    this.failedStmt = db.prepare(
      `UPDATE outbox SET state = 'failed', last_error = ?, next_attempt_at = NULL, updated_at = ?
       WHERE id = ?`,
    );
    this.doneStmt = db.prepare(
      `UPDATE outbox SET state = 'done', result = ?, last_error = ?, next_attempt_at = NULL,
         updated_at = ? WHERE id = ?`,
    );
    this.requeueStmt = db.prepare(
      `UPDATE outbox SET state = 'pending', last_error = coalesce(?, last_error),
         next_attempt_at = ?, attempts = attempts - CASE WHEN attempts > 0 THEN ? ELSE 0 END,
         updated_at = ?
       WHERE id = ? AND state = 'sending'`,
    );
    this.makeDueStmt = db.prepare(
      `UPDATE outbox SET state = 'pending', next_attempt_at = NULL, updated_at = ? WHERE id = ?`,
    );
    this.recoverStmt = db.prepare(
      `UPDATE outbox SET state = 'pending', next_attempt_at = NULL, updated_at = ?
       WHERE state = 'sending'`,
    );
    this.deleteStmt = db.prepare('DELETE FROM outbox WHERE id = ?');
    this.tokenStmt = db.prepare('UPDATE outbox SET token_label = ? WHERE id = ?');
  }

  /**
   * Runs `fn` in one write transaction, begun IMMEDIATE; inside another transaction it nests as
   * a savepoint, so a failure in `fn` undoes only what `fn` wrote.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn, 'immediate');
  }

  /** Appends an item to its project's queue; its id and the idempotency key SQL gave it. */
  async insert(item: NewOutboxItem, now: number): Promise<{ id: number; idempotencyKey: string }> {
    const at = isoTime(now);
    const row = await this.insertStmt.get(
      item.op,
      item.projectId,
      item.targetId,
      item.body,
      item.tokenLabel ?? null,
      at,
      at,
    );
    if (row === undefined) throw new Error('INSERT INTO outbox returned no row');
    return { id: row.id, idempotencyKey: row.idempotency_key };
  }

  /** The item with this id, or undefined. */
  async get(id: number): Promise<OutboxItem | undefined> {
    const row = await this.getStmt.get(id);
    return row === undefined ? undefined : rowToItem(row);
  }

  /**
   * Inside the claim's transaction: the item, locked until the transaction ends; undefined when
   * it is gone or another daemon is claiming it right now.
   */
  async lockForClaim(id: number): Promise<OutboxItem | undefined> {
    const row = await this.lockStmt.get(id);
    return row === undefined ? undefined : rowToItem(row);
  }

  /** Items in queue order, optionally of one state; `limit` bounds the count. */
  async list(filter: { state?: OutboxState; limit?: number } = {}): Promise<OutboxItem[]> {
    const where = filter.state === undefined ? '' : 'WHERE state = @state';
    const limit = filter.limit === undefined ? '' : 'LIMIT @limit';
    const rows = await this.db
      .prepare<[{ state?: string; limit?: number }], ItemRow>(
        `SELECT ${ITEM_COLUMNS} FROM outbox ${where} ORDER BY id ${limit}`,
      )
      .all({ state: filter.state, limit: filter.limit });
    return rows.map(rowToItem);
  }

  /** Items still to push (pending or sending), in queue order. */
  async unfinished(): Promise<OutboxItem[]> {
    return (await this.unfinishedStmt.all()).map(rowToItem);
  }

  /** The first unfinished item of each project, in queue order. */
  async heads(): Promise<OutboxItem[]> {
    return (await this.headsStmt.all()).map(rowToItem);
  }

  /** How many items are pending or sending, by project. */
  async unfinishedByProject(): Promise<Map<string, number>> {
    return new Map((await this.unfinishedByProjectStmt.all()).map((row) => [row.projectId, row.n]));
  }

  /** The outbox at a glance, for `status` and metrics. */
  async summary(now: number): Promise<OutboxSummary> {
    const counts = Object.fromEntries(OUTBOX_STATES.map((state) => [state, 0])) as Record<
      OutboxState,
      number
    >;
    for (const row of await this.countsStmt.all()) counts[row.state] = row.n;
    const oldest = (await this.oldestStmt.get()) ?? null;
    const oldestMs = oldest === null ? Number.NaN : Date.parse(oldest);
    return {
      counts,
      oldestPendingAt: oldest,
      oldestPendingAgeMs: Number.isNaN(oldestMs) ? null : Math.max(0, now - oldestMs),
    };
  }

  /** Moves an item to `sending`, counting one more attempt, with the exact body it is sent with. */
  async markSending(id: number, requestBody: string, now: number): Promise<void> {
    const claimedBy = this.claimant === undefined ? [] : [this.claimant];
    await this.sendingStmt.run(requestBody, isoTime(now), ...claimedBy, id);
  }

  /** Marks an item failed for good, with `error` as its `last_error`. */
  async markFailed(id: number, error: string, now: number): Promise<void> {
    await this.failedStmt.run(error, isoTime(now), id);
  }

  /** Marks an item done with the service's answer (JSON text) and an optional note. */
  async markDone(
    id: number,
    result: string | null,
    note: string | null,
    now: number,
  ): Promise<void> {
    await this.doneStmt.run(result, note, isoTime(now), id);
  }

  /** Puts an item that is `sending` back to `pending`, as `requeue` says. */
  async requeue(id: number, requeue: Requeue, now: number): Promise<void> {
    const dueAt = requeue.dueAt === null ? null : isoTime(requeue.dueAt);
    await this.requeueStmt.run(requeue.error, dueAt, requeue.uncount ? 1 : 0, isoTime(now), id);
  }

  /** Makes an item pending and due at once (attempts and last error kept). */
  async makeDue(id: number, now: number): Promise<void> {
    await this.makeDueStmt.run(isoTime(now), id);
  }

  /** Returns every item left in `sending` (by a process that died mid-push) to `pending`. */
  async recoverInterrupted(now: number): Promise<number> {
    return (await this.recoverStmt.run(isoTime(now))).changes;
  }

  /** Records the token an item is sent with, before its request goes out. */
  async setToken(id: number, label: string): Promise<void> {
    await this.tokenStmt.run(label, id);
  }

  /** Puts an item in `conflict`, with its one-line reason and the values (JSON) in `conflict`. */
  async markConflict(id: number, error: string, conflict: string, now: number): Promise<void> {
    await this.conflictStmt.run(error, conflict, isoTime(now), id);
  }

  /** A conflict resolved `--keep-local`: pending again, its base the present values. */
  async keepLocal(id: number, base: string | null, note: string, now: number): Promise<boolean> {
    return (await this.keepLocalStmt.run(base, note, isoTime(now), id)).changes > 0;
  }

  /** The unfinished items after `id` that target the same record, in queue order. */
  async followers(item: Pick<OutboxItem, 'id' | 'projectId' | 'targetId'>): Promise<OutboxItem[]> {
    return (
      await this.followersStmt.all(item.projectId, item.id, item.targetId, item.targetId)
    ).map(rowToItem);
  }

  /** Replaces an item's base (JSON text). */
  async setBase(id: number, base: string): Promise<void> {
    await this.baseStmt.run(base, id);
  }

  /** An item dropped for good, kept as `discarded` with the reason. */
  async discard(id: number, reason: string, now: number): Promise<void> {
    await this.discardStmt.run(reason, isoTime(now), id);
  }

  /** Deletes an item. */
  async remove(id: number): Promise<void> {
    await this.deleteStmt.run(id);
  }
}
