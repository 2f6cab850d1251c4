/**
 * `push --dry-run`: what a push would do with each unfinished item, in the order it would take
 * them, and the requests that would cost; nothing is sent and nothing changes. It runs in the
 * store as one read, with the mirror as it is: a real push first re-reads the target of each
 * checked item, so a change the mirror has not seen yet is predicted only by the push itself.
 */
import type { OutboxItem } from '../outbox.js';
import { checkItem, conflictLine, parseBase, touchedFieldsOf, type Base } from './conflict.js';
import type { TargetRecord } from '../outbox-targets.js';
import type { DryRunStep, OnConflict } from '../port.js';
import { prepareRequest } from './transitions.js';

export type { DryRunStep } from '../port.js';

/** What the dry run reads: the queue, the mirror's targets, read-only projects. */
export interface DryRunInput {
  items: readonly OutboxItem[];
  readOnlyReason: (projectId: string) => Promise<string | null>;
  target: (op: string, projectId: string, targetId: string | null) => Promise<TargetRecord>;
  onConflict: OnConflict;
  /** Items already in conflict, which the items of their record wait behind. */
  conflicts: readonly OutboxItem[];
}

/** The steps of a push, in its order: each round takes the next item of every project. */
export async function dryRun(input: DryRunInput): Promise<DryRunStep[]> {
  const queues = new Map<string, OutboxItem[]>();
  for (const item of input.items) {
    const queue = queues.get(item.projectId);
    if (queue === undefined) queues.set(item.projectId, [item]);
    else queue.push(item);
  }
  const held = new Map<string, number>();
  for (const item of input.conflicts) {
    const key = recordKey(item);
    if (!held.has(key)) held.set(key, item.id);
  }
  const sentFields = new Map<string, Set<string>>();
  const steps: DryRunStep[] = [];
  while ([...queues.values()].some((queue) => queue.length > 0)) {
    const round = [...queues.values()].map((queue) => queue.shift()).filter((x) => x !== undefined);
    for (const item of round.sort((a, b) => a.id - b.id)) {
      steps.push(await step(item, input, held, sentFields));
    }
  }
  return steps;
}

async function step(
  item: OutboxItem,
  input: DryRunInput,
  held: Map<string, number>,
  sentFields: Map<string, Set<string>>,
): Promise<DryRunStep> {
  const head = { id: item.id, op: item.op, projectId: item.projectId, targetId: item.targetId };
  const key = recordKey(item);
  const blocker = held.get(key);
  if (blocker !== undefined && blocker < item.id) {
    return { ...head, action: 'wait', detail: `behind item ${blocker} in conflict`, requests: 0 };
  }
  const built = prepareRequest(item, await input.readOnlyReason(item.projectId));
  if (!built.ok) return { ...head, action: 'fail', detail: built.error, requests: 0 };
  const base =
    input.onConflict === 'hold' ? unsent(parseBase(item.base), sentFields.get(key)) : undefined;
  const reread = base !== undefined && base.record === 'present' ? 1 : 0;
  if (base !== undefined) {
    const body = JSON.parse(item.body) as unknown;
    const result = checkItem(
      item.op,
      body,
      base,
      await input.target(item.op, item.projectId, item.targetId),
    );
    if (result.kind !== 'clear') {
      if (!held.has(key)) held.set(key, item.id);
      return { ...head, action: 'conflict', detail: conflictLine(item, result), requests: reread };
    }
  }
  const fields = sentFields.get(key) ?? new Set<string>();
  for (const field of touchedFieldsOf(item.op, item.body)) fields.add(field);
  sentFields.set(key, fields);
  return { ...head, action: 'send', detail: '', requests: reread + 1 };
}

/** The base without the fields an earlier item of the record sets (a push rebases them). */
function unsent(base: Base | undefined, sent: Set<string> | undefined): Base | undefined {
  if (base === undefined || base.record === 'absent' || sent === undefined) return base;
  const values = Object.fromEntries(
    Object.entries(base.values).filter(([field]) => !sent.has(field)),
  );
  return { record: 'present', values };
}

/** The record an item touches, as the queue's waiting rule names it. */
function recordKey(item: Pick<OutboxItem, 'projectId' | 'targetId'>): string {
  return `${item.projectId}\u0000${item.targetId ?? ''}`;
}
