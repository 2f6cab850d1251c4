/**
 * The state changes of one item during a push, each one transaction: claim (pending → sending,
 * body fixed), done (with the mirror write), and failed. Back to pending is `OutboxRepository.requeue`.
 */
import {
  errorLine,
  NotHeldError,
  SOLE_OWNER,
  type ProjectFence,
  type WriteResponse,
} from '../../domain/index.js';
import { isoTime } from '../database.js';
import type { OutboxRepository } from '../outbox.js';
import type { OutboxTargets } from '../outbox-targets.js';
import type { ApplyResult } from './apply.js';
import {
  checkItem,
  conflictLine,
  conflictRecord,
  isCheckedOp,
  parseBase,
  rebased,
  touchedFieldsOf,
} from './conflict.js';
import type { OutboxItem } from '../outbox.js';
import { buildRequest, type Valid } from '../../domain/outbox-ops.js';

export type { Claim } from '../port.js';
import type { Claim } from '../port.js';

import { errorText } from './item-texts.js';

export { errorText } from './item-texts.js';

/**
 * Moves a pending item to `sending` (attempts + 1) and fixes its request body at the first
 * attempt; an invalid row or a read-only project fails it instead, without a request. With
 * `targets`, an item with a base is first checked against the mirror's present values, in the
 * same transaction: one the service changed under it goes to `conflict` instead.
 */
export async function claimItem(
  outbox: OutboxRepository,
  id: number,
  now: number,
  readOnlyReason: (projectId: string) => Promise<string | null>,
  claims: ProjectFence = SOLE_OWNER,
  targets?: OutboxTargets,
): Promise<Claim> {
  return outbox.transaction(async (): Promise<Claim> => {
    const item = await outbox.lockForClaim(id);
    if (item === undefined || item.state !== 'pending') return { kind: 'gone' };
    // On a shared mirror only the project's lease holder sends, and its lease holds until the
    // claim commits; the item's key then settles a second send by a daemon taking over.
    if (!(await holds(claims, item.projectId))) return { kind: 'gone' };
    const built = prepareRequest(item, await readOnlyReason(item.projectId));
    if (!built.ok) {
      return {
        kind: 'failed',
        item: await markFailed(outbox, item, built.error, now),
        error: built.error,
      };
    }
    const conflict =
      targets === undefined ? undefined : await checkConflict(outbox, item, targets, now);
    if (conflict !== undefined) return conflict;
    const request = built.request;
    const requestBody = item.requestBody ?? request.body ?? '';
    if (requestBody === '') delete request.body;
    else request.body = requestBody;
    await outbox.markSending(id, requestBody, now);
    return {
      kind: 'send',
      item: { ...item, state: 'sending', attempts: item.attempts + 1, requestBody },
      request,
    };
  });
}

/**
 * What claiming `item` sends, or the error that fails it without a request (a read-only project,
 * whose `reason` is given, or an invalid row); the dry run asks the same. A row's body is
 * checked once: later tries rebuild only the route from the fixed text.
 */
export function prepareRequest(
  item: OutboxItem,
  reason: string | null,
): Valid | { ok: false; error: string } {
  if (reason !== null) {
    const error = errorText(
      'project_read_only',
      `project ${item.projectId} is read-only (${reason})`,
    );
    return { ok: false, error };
  }
  const fixed = item.requestBody;
  const body = fixed === null ? item.body : fixed === '' ? '{}' : fixed;
  const built = buildRequest({ ...item, body });
  return built.ok ? built : { ok: false, error: errorText(built.code, built.message) };
}

/** The conflict an item's base shows against the mirror, marked in the transaction; or none. */
async function checkConflict(
  outbox: OutboxRepository,
  item: OutboxItem,
  targets: OutboxTargets,
  now: number,
): Promise<Claim | undefined> {
  const base = parseBase(item.base);
  if (base === undefined) return undefined;
  const body = JSON.parse(item.body) as unknown;
  const result = checkItem(
    item.op,
    body,
    base,
    await targets.read(item.op, item.projectId, item.targetId),
  );
  const record = conflictRecord(item.op, body, base, result);
  if (record === undefined) return undefined;
  const error = conflictLine(item, result);
  const conflict = JSON.stringify(record);
  await outbox.markConflict(item.id, error, conflict, now);
  return {
    kind: 'conflict',
    item: { ...item, state: 'conflict', lastError: error, conflict, updatedAt: isoTime(now) },
    error,
  };
}

/** True when this process still holds `projectId` (its lease locked for the transaction). */
async function holds(claims: ProjectFence, projectId: string): Promise<boolean> {
  try {
    await claims.fence(projectId);
    return true;
  } catch (error) {
    if (error instanceof NotHeldError) return false;
    throw error;
  }
}

/** Marks an item failed for good, with `error` as its `last_error`. */
export async function markFailed(
  outbox: OutboxRepository,
  item: OutboxItem,
  error: string,
  now: number,
): Promise<OutboxItem> {
  await outbox.markFailed(item.id, error, now);
  const updatedAt = isoTime(now);
  return { ...item, state: 'failed', lastError: error, nextAttemptAt: null, updatedAt };
}

/**
 * Writes the service's answer into the mirror and marks the item done, in one transaction. The
 * edit took effect on the service whatever its answer looks like: an answer that cannot be
 * mirrored (its writes rolled back) still marks the item done, with a note in `last_error`, and
 * the next pass brings the mirror up to date. Returns that note, if any.
 */
export async function markDone(
  outbox: OutboxRepository,
  item: OutboxItem,
  response: WriteResponse,
  now: number,
  applyResult: ApplyResult | undefined,
  targets?: OutboxTargets,
): Promise<string | undefined> {
  return outbox.transaction(async () => {
    let note: string | undefined;
    try {
      if (applyResult) await outbox.transaction(async () => applyResult(item, response));
    } catch (error) {
      note = `done; the answer was not mirrored (the next pass will): ${errorLine(error)}`;
    }
    const result = response.body === null ? null : JSON.stringify(response.body);
    await outbox.markDone(item.id, result ?? null, note ?? null, now);
    if (targets !== undefined) await rebaseFollowers(outbox, item, targets);
    return note;
  });
}

/**
 * After an item took effect, the later unfinished items on the same record take the present
 * values as the base of the fields it changed: our own edit is not the service's change.
 */
async function rebaseFollowers(
  outbox: OutboxRepository,
  item: OutboxItem,
  targets: OutboxTargets,
): Promise<void> {
  if (!isCheckedOp(item.op)) return;
  const fields = touchedFieldsOf(item.op, item.body);
  if (fields.length === 0) return;
  const followers = (await outbox.followers(item)).filter((later) => later.base !== null);
  if (followers.length === 0) return;
  const present = await targets.read(item.op, item.projectId, item.targetId);
  for (const later of followers) {
    const base = rebased(parseBase(later.base), fields, present);
    if (base !== undefined) await outbox.setBase(later.id, JSON.stringify(base));
  }
}
