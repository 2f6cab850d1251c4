/**
 * The one validator of the service's records, whether they come in a response or in a realtime
 * event: each is a JSON object with a non-empty string `id`, and every field we type is of its
 * type when present. Unknown fields are kept as they come, within bounds: no string over
 * `MAX_FIELD_CHARS`, no record over `MAX_RECORD_CHARS`, no nesting past `MAX_NESTING_DEPTH` (a
 * 50 MB name would otherwise be stored four times over, and a deep value overflow the stack of
 * whatever serializes it). Pure: it throws `MalformedResponseError` naming the route (or event)
 * and the record.
 */
import { MalformedResponseError, printable, type RemoteContext } from './errors.js';
import { MAX_NESTING_DEPTH } from './json-bounds.js';
import type { JsonObject, Project, Task } from './records.js';

/** The longest string (or key) accepted anywhere in a record, in characters. */
export const MAX_FIELD_CHARS = 64 * 1024;
/** The most text in one record, in characters: its strings and keys, plus one per other value. */
export const MAX_RECORD_CHARS = 1024 * 1024;

type FieldCheck = (value: unknown) => boolean;

const isString: FieldCheck = (value) => typeof value === 'string';
const isBoolean: FieldCheck = (value) => typeof value === 'boolean';
const isNumber: FieldCheck = (value) => typeof value === 'number' && Number.isFinite(value);
const isStringOrNull: FieldCheck = (value) => value === null || typeof value === 'string';
const isStringArray: FieldCheck = (value) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The typed fields of each record kind, with their checks; `id` is always a required string. */
const FIELDS = {
  project: { name: isString, active: isBoolean, readOnlyReason: isStringOrNull },
  task: {
    name: isString,
    startDate: isString,
    endDate: isString,
    status: isString,
    progress: isNumber,
    assigneeIds: isStringArray,
    updatedAt: isString,
  },
  member: { name: isString, kind: isString },
  resource: { name: isString },
  dependency: { predecessorId: isString, successorId: isString, type: isString },
} satisfies Record<string, Record<string, FieldCheck>>;

/** The kinds of record the service returns. */
export type RecordType = keyof typeof FIELDS;

/** `FIELDS` as lists, made once: checking a record allocates nothing for them. */
const FIELD_CHECKS = new Map(
  Object.entries(FIELDS).map(([kind, checks]) => [
    kind,
    Object.entries(checks as Record<string, FieldCheck>),
  ]),
);

/** A record of any kind once checked: a JSON object with a non-empty string id. */
export type CheckedRecord = JsonObject & { id: string };

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks one record of `kind`; `where` says which ("row 3") in the error. With `expectedId`, the
 * record's id must be that one (an event's `id`, a project asked for by id).
 */
export function checkRecord(
  value: unknown,
  kind: RecordType,
  context: RemoteContext,
  where = 'body',
  expectedId?: string,
): CheckedRecord {
  if (!isJsonObject(value)) {
    throw new MalformedResponseError(context, `${where} is ${describeType(value)}, not a ${kind}`);
  }
  const id = value['id'];
  if (typeof id !== 'string' || id === '') {
    throw new MalformedResponseError(context, `${where}: ${kind} without a string id`);
  }
  if (expectedId !== undefined && id !== expectedId) {
    throw new MalformedResponseError(
      context,
      `${where}: ${kind} id ${printable(id)}, expected ${printable(expectedId)}`,
    );
  }
  const checks = FIELD_CHECKS.get(kind) ?? [];
  for (let i = 0; i < checks.length; i++) {
    const [field, check] = checks[i]!;
    const fieldValue = value[field];
    if (fieldValue !== undefined && !check(fieldValue)) {
      throw new MalformedResponseError(
        context,
        `${where}: ${kind} ${printable(id)} has ${field} of type ${describeType(fieldValue)}`,
      );
    }
  }
  const problem = flatWithinBounds(value) ? undefined : boundsProblem(value);
  if (problem !== undefined) {
    throw new MalformedResponseError(context, `${where}: ${kind} ${printable(id)} ${problem}`);
  }
  return value as CheckedRecord;
}

/**
 * True when `record` holds only strings, numbers, booleans, nulls and arrays of those (a task, a
 * project: nearly every record) and is within every bound, counted as `boundsProblem` counts;
 * false when it nests deeper or may not be, for `boundsProblem` to walk and name the problem.
 * No stack and no list of keys: a page's checks allocated more than its parse did.
 */
function flatWithinBounds(record: JsonObject): boolean {
  let chars = 0;
  for (const key in record) {
    const value = record[key];
    if (key.length > MAX_FIELD_CHARS) return false;
    // The key, and the character its place in the record costs.
    chars += key.length + 1;
    if (typeof value === 'string') {
      if (value.length > MAX_FIELD_CHARS) return false;
      chars += value.length;
    } else if (Array.isArray(value)) {
      chars += value.length;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'string') {
          if (item.length > MAX_FIELD_CHARS) return false;
          chars += item.length;
        } else if (typeof item === 'object' && item !== null) {
          return false;
        }
      }
    } else if (typeof value === 'object' && value !== null) {
      return false;
    }
  }
  return chars <= MAX_RECORD_CHARS;
}

/**
 * The first bound `record` passes, or undefined. Walks it with a stack of its own, not by
 * recursion, so that no depth of nesting can overflow the call stack here. Exported for the
 * property that `checkRecord`'s quick path (`flatWithinBounds`) never changes its answer.
 */
export function boundsProblem(record: JsonObject): string | undefined {
  const values: unknown[] = [record];
  const depths: number[] = [1];
  const fields: string[] = [''];
  let chars = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() as number;
    const field = fields.pop() as string;
    if (typeof value === 'string') {
      if (value.length > MAX_FIELD_CHARS) {
        return `has a string of ${value.length} characters in ${printable(field)} (the bound is ${MAX_FIELD_CHARS})`;
      }
      chars += value.length;
    } else if (typeof value === 'object' && value !== null) {
      if (depth > MAX_NESTING_DEPTH) {
        return `nests deeper than ${MAX_NESTING_DEPTH} levels in ${printable(field)}`;
      }
      const items = Array.isArray(value) ? (value as unknown[]) : undefined;
      const keys = items === undefined ? Object.keys(value) : [];
      // Every item costs at least one character: counted before anything is pushed.
      chars += items?.length ?? keys.length;
      if (chars > MAX_RECORD_CHARS) break;
      for (const item of items ?? []) {
        values.push(item);
        depths.push(depth + 1);
        fields.push(field);
      }
      for (const key of keys) {
        if (key.length > MAX_FIELD_CHARS) {
          return `has a key of ${key.length} characters (the bound is ${MAX_FIELD_CHARS})`;
        }
        chars += key.length;
        values.push((value as JsonObject)[key]);
        depths.push(depth + 1);
        fields.push(depth === 1 ? key : field);
      }
    }
    if (chars > MAX_RECORD_CHARS) break;
  }
  return chars > MAX_RECORD_CHARS
    ? `is over ${MAX_RECORD_CHARS} characters (the bound)`
    : undefined;
}

/** Checks a list body: an array of records of one kind, no id twice. */
export function checkList(
  value: unknown,
  kind: RecordType,
  context: RemoteContext,
): CheckedRecord[] {
  if (!Array.isArray(value)) {
    throw new MalformedResponseError(context, `body is ${describeType(value)}, not an array`);
  }
  const ids = new Set<string>();
  return value.map((item: unknown, index) => {
    const record = checkRecord(item, kind, context, `row ${index + 1}`);
    if (ids.has(record.id)) {
      throw new MalformedResponseError(context, `id ${printable(record.id)} twice`);
    }
    ids.add(record.id);
    return record;
  });
}

/** A task (typed for the engines once checked). */
export function checkTask(
  value: unknown,
  context: RemoteContext,
  where?: string,
  expectedId?: string,
): Task {
  return checkRecord(value, 'task', context, where, expectedId) as Task;
}

/** `task` when it names no project or `projectId`; else `MalformedResponseError`. */
export function taskOfProject(task: Task, projectId: string, context: RemoteContext): Task {
  const owner = task['projectId'];
  if (owner !== undefined && owner !== projectId) {
    throw new MalformedResponseError(context, `task ${task.id} of project ${String(owner)}`);
  }
  return task;
}

/** A project (typed for the engines once checked). */
export function checkProject(
  value: unknown,
  context: RemoteContext,
  where?: string,
  expectedId?: string,
): Project {
  return checkRecord(value, 'project', context, where, expectedId) as Project;
}

/**
 * One page of tasks, checked once where it enters (the remote client): at most `pageSize` tasks,
 * each checked, no id twice. The pass trusts what `RemoteApi` returns and walks no page twice.
 */
export function checkTaskPage(rows: unknown, pageSize: number, context: RemoteContext): Task[] {
  if (Array.isArray(rows) && rows.length > pageSize) {
    throw new MalformedResponseError(context, `${rows.length} rows for a pageSize of ${pageSize}`);
  }
  return checkList(rows, 'task', context) as Task[];
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
