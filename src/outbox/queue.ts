/**
 * Adding items to the outbox and managing them by hand: enqueue, retry, drop, the summary that
 * `status` shows, and the recovery of items a dead process left in `sending`.
 */
import { UsageError } from '../domain/index.js';
import { isoTime, type Db } from '../store/database.js';
import { getOutboxItem, OUTBOX_STATES, type OutboxState } from './item.js';
import { buildRequest } from './ops.js';

/** An edit to queue. `body` is the JSON value of the op's body (`{}` when it takes none). */
export interface EnqueueInput {
  op: string;
  projectId: string;
  targetId?: string | null;
  body?: unknown;
}

/** The new item's id and the idempotency key its creates will carry. */
export interface Enqueued {
  id: number;
  idempotencyKey: string;
}

/**
 * Checks an edit (op, target, body) and appends it to the queue of its project. Bad input throws
 * `UsageError` naming the problem; nothing is queued then.
 */
export function enqueue(db: Db, input: EnqueueInput, now: number): Enqueued {
  if (input.projectId.trim() === '') throw new UsageError('an outbox item needs a project id');
  const body = JSON.stringify(input.body ?? {});
  const targetId = input.targetId ?? null;
  const checked = buildRequest({ ...input, targetId, body, idempotencyKey: '' });
  if (!checked.ok) throw new UsageError(checked.message);
  const at = isoTime(now);
  const row = db
    .prepare(
      `INSERT INTO outbox (op, project_id, target_id, body, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?) RETURNING id, idempotency_key`,
    )
    .get(input.op, input.projectId, targetId, body, at, at) as {
    id: number;
    idempotency_key: string;
  };
  return { id: row.id, idempotencyKey: row.idempotency_key };
}

/**
 * Puts a failed item back in the queue (attempts kept), or makes a pending item in backoff due
 * now. Items sending or done are refused.
 */
export function retryOutboxItem(db: Db, id: number, now: number): void {
  db.transaction(() => {
    const item = getOutboxItem(db, id);
    if (item === undefined) throw new UsageError(`no outbox item ${id}`);
    if (item.state !== 'failed' && item.state !== 'pending') {
      throw new UsageError(
        `outbox item ${id} is ${item.state}; only failed or pending items retry`,
      );
    }
    db.prepare(
      `UPDATE outbox SET state = 'pending', next_attempt_at = NULL, updated_at = ? WHERE id = ?`,
    ).run(isoTime(now), id);
  }).immediate();
}

/** Removes a pending or failed item; one being sent (or done) is refused. */
export function dropOutboxItem(db: Db, id: number): void {
  db.transaction(() => {
    const item = getOutboxItem(db, id);
    if (item === undefined) throw new UsageError(`no outbox item ${id}`);
    if (item.state !== 'failed' && item.state !== 'pending') {
      throw new UsageError(`outbox item ${id} is ${item.state}; only failed or pending items drop`);
    }
    db.prepare('DELETE FROM outbox WHERE id = ?').run(id);
  }).immediate();
}

/** Returns items left in `sending` by a process that died mid-push to `pending`; their count. */
export function recoverInterrupted(db: Db, now: number): number {
  return db
    .prepare(
      `UPDATE outbox SET state = 'pending', next_attempt_at = NULL, updated_at = ?
       WHERE state = 'sending'`,
    )
    .run(isoTime(now)).changes;
}

/** Counts by state and the age of the oldest item not yet pushed. */
export interface OutboxSummary {
  counts: Record<OutboxState, number>;
  /** When the oldest pending (or sending) item was queued; null when there is none. */
  oldestPendingAt: string | null;
  /** Its age in milliseconds at `now`; null when there is none. */
  oldestPendingAgeMs: number | null;
}

/** The outbox at a glance, for `status` and metrics. */
export function outboxSummary(db: Db, now: number): OutboxSummary {
  const counts = Object.fromEntries(OUTBOX_STATES.map((state) => [state, 0])) as Record<
    OutboxState,
    number
  >;
  const rows = db.prepare('SELECT state, count(*) AS n FROM outbox GROUP BY state').all() as {
    state: OutboxState;
    n: number;
  }[];
  for (const row of rows) counts[row.state] = row.n;
  const oldest = db
    .prepare(`SELECT min(created_at) FROM outbox WHERE state IN ('pending', 'sending')`)
    .pluck()
    .get() as string | null;
  const oldestMs = oldest === null ? Number.NaN : Date.parse(oldest);
  return {
    counts,
    oldestPendingAt: oldest,
    oldestPendingAgeMs: Number.isNaN(oldestMs) ? null : Math.max(0, now - oldestMs),
  };
}
