/** One outbox row as the code sees it, and how it is read from the table. */
import type { Db } from '../store/database.js';

/** The life of an item: pending → sending → done | failed (or back to pending on a retry). */
export const OUTBOX_STATES = ['pending', 'sending', 'done', 'failed'] as const;

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
}

/** The column list that `rowToItem` reads. */
export const ITEM_COLUMNS = `id, op, project_id, target_id, body, idempotency_key, state, attempts,
  last_error, result, request_body, next_attempt_at, created_at, updated_at`;

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
}

/** Converts a row selected with `ITEM_COLUMNS`. */
export function rowToItem(row: ItemRow): OutboxItem {
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
  };
}

/** The item with this id, or undefined. */
export function getOutboxItem(db: Db, id: number): OutboxItem | undefined {
  const row = db.prepare(`SELECT ${ITEM_COLUMNS} FROM outbox WHERE id = ?`).get(id) as
    ItemRow | undefined;
  return row === undefined ? undefined : rowToItem(row);
}

/** Items in queue order, optionally of one state; `limit` bounds the count. */
export function listOutbox(
  db: Db,
  filter: { state?: OutboxState; limit?: number } = {},
): OutboxItem[] {
  const where = filter.state === undefined ? '' : 'WHERE state = @state';
  const limit = filter.limit === undefined ? '' : 'LIMIT @limit';
  const rows = db
    .prepare(`SELECT ${ITEM_COLUMNS} FROM outbox ${where} ORDER BY id ${limit}`)
    .all({ state: filter.state, limit: filter.limit }) as ItemRow[];
  return rows.map(rowToItem);
}

/** Items still to push (pending or sending), in queue order. */
export function listUnfinished(db: Db): OutboxItem[] {
  const rows = db
    .prepare(`SELECT ${ITEM_COLUMNS} FROM outbox WHERE state IN ('pending', 'sending') ORDER BY id`)
    .all() as ItemRow[];
  return rows.map(rowToItem);
}
