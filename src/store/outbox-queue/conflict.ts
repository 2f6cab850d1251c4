/**
 * The check before sending (issue 21): an item's base (the mirror's values of the fields it
 * changes, recorded when it was queued by the trigger `outbox_base` in schema.sql) against the
 * mirror's present values. A field the service changed since, to something else than the item
 * would set, is a conflict; fields the item does not touch never are. Pure: the present record
 * comes in as the mirror holds it.
 */
import type { TargetRecord } from '../outbox-targets.js';
import type { OutboxItem } from '../outbox.js';
import type { Base } from './item-texts.js';

export { parseBase, type Base } from './item-texts.js';

/** The ops whose items carry a base and are checked before sending. */
export const CHECKED_OPS = [
  'task.update',
  'task.set_assignees',
  'resource.update',
  'dependency.set',
] as const;

/**
 * The task fields an update may change, in the order the trigger lists them. The one definition:
 * the triggers of `schema.sql`, `schema.pg.sql` and `schema.pg.upgrades.sql` list the same, which
 * `test/outbox/base-fields.test.ts` checks, with `CHECKED_OPS`.
 */
export const TASK_FIELDS = ['name', 'startDate', 'endDate', 'status', 'progress', 'assigneeIds'];

/** One field the service changed since the item was queued. */
export interface FieldConflict {
  field: string;
  base: unknown;
  /** What the item would set; undefined for a derived field whose value the service decides. */
  local: unknown;
  remote: unknown;
}

/** What the check found: nothing, conflicting fields, or the target deleted on the service. */
export type CheckResult =
  { kind: 'clear' } | { kind: 'conflict'; fields: FieldConflict[] } | { kind: 'deleted' };

/** The conflict as the `conflict` column keeps it (SQL reads it through v_outbox_conflicts). */
export interface ConflictRecord {
  /** The fields, comma-separated (`record` when the target was deleted). */
  fields: string;
  base: Record<string, unknown>;
  local: Record<string, unknown>;
  /** The service's values; null when it deleted the record. */
  remote: Record<string, unknown> | null;
}

/** True for an op whose items carry a base. */
export function isCheckedOp(op: string): boolean {
  return (CHECKED_OPS as readonly string[]).includes(op);
}

/** The fields an item changes, as the trigger chose them (the base's keys). */
export function touchedFields(op: string, body: unknown): string[] {
  if (op === 'task.set_assignees') return ['assigneeIds'];
  if (op === 'dependency.set') return ['dependencies'];
  if (!isObject(body)) return [];
  if (op === 'resource.update') return Object.keys(body);
  return TASK_FIELDS.filter(
    (field) =>
      field in body ||
      (field === 'status' && 'progress' in body) ||
      (field === 'progress' && 'status' in body),
  );
}

/** The values an item sets (derived ones where the spec's rule fixes them), by field. */
export function localValues(op: string, body: unknown): Record<string, unknown> {
  if (op === 'dependency.set') return { dependencies: body };
  if (!isObject(body)) return {};
  const values: Record<string, unknown> = {};
  for (const field of touchedFields(op, body)) {
    if (field in body) values[field] = body[field];
  }
  if (op === 'task.update') {
    if ('status' in body && !('progress' in body)) {
      const progress = progressFor(body['status']);
      if (progress !== undefined) values['progress'] = progress;
    }
    if ('progress' in body && !('status' in body)) {
      const status = statusFor(body['progress']);
      if (status !== undefined) values['status'] = status;
    }
  }
  return values;
}

/** The present values of `fields` in the mirror's record (the dependencies: the project's list). */
export function presentValues(fields: readonly string[], data: unknown): Record<string, unknown> {
  const record = isObject(data) ? data : {};
  return Object.fromEntries(fields.map((field) => [field, record[field] ?? null]));
}

/**
 * Compares the base with the present record. A field conflicts when the service changed it
 * (present differs from base) to something other than what the item sets; a derived field whose
 * value the service decides (progress of `InProgress`) conflicts only when the field the item
 * sets does too.
 */
export function checkItem(
  op: string,
  body: unknown,
  base: Base,
  present: TargetRecord,
): CheckResult {
  if (base.record === 'absent') return { kind: 'clear' };
  if (present.record === 'absent') return { kind: 'deleted' };
  const fields = Object.keys(base.values);
  const now = presentValues(fields, present.data);
  const local = localValues(op, body);
  const changed = fields.filter((field) => !same(field, base.values[field], now[field]));
  const conflicts: FieldConflict[] = [];
  for (const field of changed) {
    if (field in local) {
      if (same(field, local[field], now[field])) continue;
    } else if (
      !changed.some(
        (other) => other !== field && other in local && !same(other, local[other], now[other]),
      )
    ) {
      // A derived field the service sets from a field whose present value is already ours.
      continue;
    }
    conflicts.push({ field, base: base.values[field], local: local[field], remote: now[field] });
  }
  return conflicts.length === 0 ? { kind: 'clear' } : { kind: 'conflict', fields: conflicts };
}

/** The one-line `last_error` of a conflict. */
export function conflictLine(
  item: Pick<OutboxItem, 'op' | 'targetId'>,
  result: CheckResult,
): string {
  if (result.kind === 'deleted') {
    return `conflict: ${recordName(item)} was deleted on the service after the item was queued`;
  }
  if (result.kind === 'clear') return '';
  const parts = result.fields.map(
    (f) => `${f.field} was ${shown(f.base)} when queued, is ${shown(f.remote)} on the service`,
  );
  return `conflict: ${parts.join('; ')}`;
}

/** The `conflict` column's record of a check that found one. */
export function conflictRecord(
  op: string,
  body: unknown,
  base: Base,
  result: CheckResult,
): ConflictRecord | undefined {
  if (result.kind === 'clear') return undefined;
  const values = base.record === 'present' ? base.values : {};
  const local = localValues(op, body);
  if (result.kind === 'deleted') return { fields: 'record', base: values, local, remote: null };
  const pick = (key: 'base' | 'local' | 'remote') =>
    Object.fromEntries(result.fields.map((f) => [f.field, f[key] ?? null]));
  return {
    fields: result.fields.map((f) => f.field).join(','),
    base: pick('base'),
    local: pick('local'),
    remote: pick('remote'),
  };
}

function recordName(item: Pick<OutboxItem, 'op' | 'targetId'>): string {
  const kind = item.op.split('.')[0] ?? 'record';
  return item.targetId === null ? `the project's ${kind} list` : `${kind} ${item.targetId}`;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** Equal as the field means it: assignee lists and dependency lists as sets. */
function same(field: string, a: unknown, b: unknown): boolean {
  return canonical(field, a) === canonical(field, b);
}

function canonical(field: string, value: unknown): string {
  if (field === 'assigneeIds' && Array.isArray(value)) {
    return JSON.stringify(value.map(String).sort());
  }
  if (field === 'dependencies' && Array.isArray(value)) {
    const keys = value.map((entry) => {
      const d = isObject(entry) ? entry : {};
      return JSON.stringify([
        d['predecessorId'] ?? null,
        d['successorId'] ?? null,
        d['type'] ?? null,
      ]);
    });
    return JSON.stringify(keys.sort());
  }
  return stableJson(value ?? null);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Spec 3: 100 is Done, 0 NotStarted; 1 to 99 InProgress. */
function statusFor(progress: unknown): string | undefined {
  if (typeof progress !== 'number') return undefined;
  return progress >= 100 ? 'Done' : progress <= 0 ? 'NotStarted' : 'InProgress';
}

/** Done is 100 and NotStarted 0; InProgress keeps a progress the service chooses. */
function progressFor(status: unknown): number | undefined {
  return status === 'Done' ? 100 : status === 'NotStarted' ? 0 : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The base of a later item on the same record once `done` took effect: the fields `done` changed
 * now hold our own values, not the service's changes, so they take the present values. Undefined
 * when nothing changes.
 */
export function rebased(
  base: Base | undefined,
  doneFields: readonly string[],
  present: TargetRecord,
): Base | undefined {
  if (base === undefined || base.record === 'absent' || present.record === 'absent')
    return undefined;
  const shared = Object.keys(base.values).filter((field) => doneFields.includes(field));
  if (shared.length === 0) return undefined;
  return { record: 'present', values: { ...base.values, ...presentValues(shared, present.data) } };
}

/** The fields an item's body changes (its base's keys), from the row's JSON text. */
export function touchedFieldsOf(op: string, bodyText: string): string[] {
  try {
    return touchedFields(op, JSON.parse(bodyText));
  } catch {
    return [];
  }
}
