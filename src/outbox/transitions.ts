/**
 * The state changes of one item during a push, each one transaction: claim (pending → sending,
 * body fixed), done (with the mirror write), failed, and back to pending.
 */
import { errorLine, type WriteRequest, type WriteResponse } from '../domain/index.js';
import { isoTime, type Db } from '../store/database.js';
import type { ApplyResult } from './apply.js';
import { getOutboxItem, type OutboxItem } from './item.js';
import { buildRequest } from './ops.js';

/** What claiming an item led to. */
export type Claim =
  | { kind: 'send'; item: OutboxItem; request: WriteRequest }
  | { kind: 'failed'; item: OutboxItem; error: string }
  | { kind: 'gone' };

/** Why an item can never be sent, as stored in `last_error`: `code: message`. */
export function errorText(code: string, message: string): string {
  return `${code}: ${message}`;
}

/**
 * Moves a pending item to `sending` (attempts + 1) and fixes its request body at the first
 * attempt; an invalid row or a read-only project fails it instead, without a request.
 */
export function claimItem(
  db: Db,
  id: number,
  now: number,
  readOnlyReason: (projectId: string) => string | null,
): Claim {
  return db
    .transaction((): Claim => {
      const item = getOutboxItem(db, id);
      if (item === undefined || item.state !== 'pending') return { kind: 'gone' };
      const reason = readOnlyReason(item.projectId);
      if (reason !== null) {
        const error = errorText(
          'project_read_only',
          `project ${item.projectId} is read-only (${reason})`,
        );
        return { kind: 'failed', item: markFailed(db, item, error, now), error };
      }
      // A row's body is checked once; later tries rebuild only the route from the fixed text.
      const fixed = item.requestBody;
      const body = fixed === null ? item.body : fixed === '' ? '{}' : fixed;
      const built = buildRequest({ ...item, body });
      if (!built.ok) {
        const error = errorText(built.code, built.message);
        return { kind: 'failed', item: markFailed(db, item, error, now), error };
      }
      const request = built.request;
      const requestBody = fixed ?? request.body ?? '';
      if (requestBody === '') delete request.body;
      else request.body = requestBody;
      db.prepare(
        `UPDATE outbox SET state = 'sending', attempts = attempts + 1, request_body = ?,
           next_attempt_at = NULL, updated_at = ? WHERE id = ?`,
      ).run(requestBody, isoTime(now), id);
      return {
        kind: 'send',
        item: { ...item, state: 'sending', attempts: item.attempts + 1, requestBody },
        request,
      };
    })
    .immediate();
}

/** Marks an item failed for good, with `error` as its `last_error`. */
export function markFailed(db: Db, item: OutboxItem, error: string, now: number): OutboxItem {
  const updatedAt = isoTime(now);
  db.prepare(
    `UPDATE outbox SET state = 'failed', last_error = ?, next_attempt_at = NULL, updated_at = ?
     WHERE id = ?`,
  ).run(error, updatedAt, item.id);
  return { ...item, state: 'failed', lastError: error, nextAttemptAt: null, updatedAt };
}

/**
 * Writes the service's answer into the mirror and marks the item done, in one transaction. The
 * edit took effect on the service whatever its answer looks like: an answer that cannot be
 * mirrored (its writes rolled back) still marks the item done, with a note in `last_error`, and
 * the next pass brings the mirror up to date. Returns that note, if any.
 */
export function markDone(
  db: Db,
  item: OutboxItem,
  response: WriteResponse,
  now: number,
  applyResult: ApplyResult | undefined,
): string | undefined {
  return db
    .transaction(() => {
      let note: string | undefined;
      try {
        if (applyResult) db.transaction(() => applyResult(db, item, response))();
      } catch (error) {
        note = `done; the answer was not mirrored (the next pass will): ${errorLine(error)}`;
      }
      const result = response.body === null ? null : JSON.stringify(response.body);
      db.prepare(
        `UPDATE outbox SET state = 'done', result = ?, last_error = ?, next_attempt_at = NULL,
         updated_at = ? WHERE id = ?`,
      ).run(result ?? null, note ?? null, isoTime(now), item.id);
      return note;
    })
    .immediate();
}

/**
 * Puts an item back in the queue, due at `dueAt`. `uncount` takes back the attempt when the
 * request was refused before the service looked at it (429, budget), so it is no failure.
 */
export function reschedule(
  db: Db,
  item: OutboxItem,
  options: { error: string | null; dueAt: number | null; uncount: boolean; now: number },
): void {
  db.prepare(
    `UPDATE outbox SET state = 'pending', last_error = coalesce(?, last_error),
       next_attempt_at = ?, attempts = max(0, attempts - ?), updated_at = ?
     WHERE id = ? AND state = 'sending'`,
  ).run(
    options.error,
    options.dueAt === null ? null : isoTime(options.dueAt),
    options.uncount ? 1 : 0,
    isoTime(options.now),
    item.id,
  );
}
