/**
 * Adding items to the outbox and managing them by hand: enqueue, retry, drop, and the summary
 * that `status` shows.
 */
import { UsageError } from '../../domain/index.js';
import type { MirrorHandle } from '../handle.js';
import { OutboxRepository } from '../outbox.js';
import { OutboxTargets } from '../outbox-targets.js';
import { parseBase, presentValues, type Base } from './conflict.js';
import { buildRequest } from '../../domain/outbox-ops.js';

export type { EnqueueInput, Enqueued } from '../port.js';
import type { EnqueueInput, Enqueued } from '../port.js';

/**
 * Checks an edit (op, target, body) as `enqueue` does, without a database: a command refuses bad
 * input with it before it opens (or creates) the mirror. Throws `UsageError` naming the problem.
 */
export function checkEnqueueInput(input: EnqueueInput): void {
  if (input.projectId.trim() === '') throw new UsageError('an outbox item needs a project id');
  const body = JSON.stringify(input.body ?? {});
  const targetId = input.targetId ?? null;
  const checked = buildRequest({ ...input, targetId, body, idempotencyKey: '' });
  if (!checked.ok) throw new UsageError(checked.message);
}

/**
 * Checks an edit (op, target, body) and appends it to the queue of its project. Bad input throws
 * `UsageError` naming the problem; nothing is queued then.
 */
export async function enqueue(
  mirror: MirrorHandle,
  input: EnqueueInput,
  now: number,
): Promise<Enqueued> {
  checkEnqueueInput(input);
  const body = JSON.stringify(input.body ?? {});
  const targetId = input.targetId ?? null;
  return new OutboxRepository(mirror).insert({ ...input, targetId, body }, now);
}

/**
 * Puts a failed item back in the queue (attempts kept), or makes a pending item in backoff due
 * now. Items sending or done are refused.
 */
export function retryOutboxItem(mirror: MirrorHandle, id: number, now: number): Promise<void> {
  const outbox = new OutboxRepository(mirror);
  return outbox.transaction(async () => {
    await refuseUnlessSettled(outbox, id, 'retry');
    await outbox.makeDue(id, now);
  });
}

/** Removes a pending or failed item; one being sent (or done) is refused. */
export function dropOutboxItem(mirror: MirrorHandle, id: number): Promise<void> {
  const outbox = new OutboxRepository(mirror);
  return outbox.transaction(async () => {
    await refuseUnlessSettled(outbox, id, 'drop');
    await outbox.remove(id);
  });
}

async function refuseUnlessSettled(
  outbox: OutboxRepository,
  id: number,
  action: string,
): Promise<void> {
  const item = await outbox.get(id);
  if (item === undefined) throw new UsageError(`no outbox item ${id}`);
  if (item.state !== 'failed' && item.state !== 'pending') {
    throw new UsageError(
      `outbox item ${id} is ${item.state}; only failed or pending items ${action}`,
    );
  }
}

/** How a conflict is resolved: send the item as queued, or keep the service's values. */
export type Resolution = 'keep-local' | 'keep-remote';

/**
 * Resolves an item in `conflict`. `keep-local`: pending again, its base the mirror's present
 * values, so it goes out as queued unless the service changes those fields once more.
 * `keep-remote`: `discarded`, never sent, the reason in `last_error`. Returns that line.
 */
export function resolveOutboxItem(
  mirror: MirrorHandle,
  id: number,
  resolution: Resolution,
  now: number,
): Promise<string> {
  const outbox = new OutboxRepository(mirror);
  return outbox.transaction(async () => {
    const item = await outbox.get(id);
    if (item === undefined) throw new UsageError(`no outbox item ${id}`);
    if (item.state !== 'conflict') {
      throw new UsageError(`outbox item ${id} is ${item.state}; only items in conflict resolve`);
    }
    const was = item.lastError ?? 'conflict';
    if (resolution === 'keep-remote') {
      const reason = `discarded (--keep-remote): the service's values kept; ${was}`;
      await outbox.discard(id, reason, now);
      return reason;
    }
    const base = await presentBase(mirror, item.op, item.projectId, item.targetId, item.base);
    const note = `resolved --keep-local; ${was}`;
    await outbox.keepLocal(id, base === undefined ? null : JSON.stringify(base), note, now);
    return note;
  });
}

/** The base an item would record now: the mirror's present values of the fields it had. */
async function presentBase(
  mirror: MirrorHandle,
  op: string,
  projectId: string,
  targetId: string | null,
  recorded: string | null,
): Promise<Base | undefined> {
  const old = parseBase(recorded);
  if (old === undefined || old.record === 'absent') return old;
  const present = await new OutboxTargets(mirror).read(op, projectId, targetId);
  if (present.record === 'absent') return { record: 'absent' };
  return { record: 'present', values: presentValues(Object.keys(old.values), present.data) };
}
