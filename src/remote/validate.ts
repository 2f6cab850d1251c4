/**
 * Minimal checks of the records the service returns: each is an object with a string `id`, and
 * the fields we type are of their type when present. Unknown fields are kept as they come.
 */
import {
  MalformedResponseError,
  type JsonObject,
  type Project,
  type RemoteContext,
  type Task,
} from '../domain/index.js';

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
export type RecordKind = keyof typeof FIELDS;

/** Checks one record; `where` says which ("row 3") in the error. */
export function checkRecord(
  value: unknown,
  kind: RecordKind,
  context: RemoteContext,
  where = 'body',
): JsonObject & { id: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedResponseError(context, `${where} is ${describeType(value)}, not a ${kind}`);
  }
  const record = value as JsonObject;
  if (typeof record['id'] !== 'string' || record['id'] === '') {
    throw new MalformedResponseError(context, `${where}: ${kind} without a string id`);
  }
  for (const [field, check] of Object.entries(FIELDS[kind] as Record<string, FieldCheck>)) {
    const fieldValue = record[field];
    if (fieldValue !== undefined && !check(fieldValue)) {
      throw new MalformedResponseError(
        context,
        `${where}: ${kind} ${record['id']} has ${field} of type ${describeType(fieldValue)}`,
      );
    }
  }
  return record as JsonObject & { id: string };
}

/** Checks a list body: an array of records of one kind. */
export function checkList(value: unknown, kind: RecordKind, context: RemoteContext): JsonObject[] {
  if (!Array.isArray(value)) {
    throw new MalformedResponseError(context, `body is ${describeType(value)}, not an array`);
  }
  return value.map((item, index) => checkRecord(item, kind, context, `row ${index + 1}`));
}

/** A task (typed for the engines once checked). */
export function checkTask(value: unknown, context: RemoteContext, where?: string): Task {
  return checkRecord(value, 'task', context, where) as Task;
}

/** A project (typed for the engines once checked). */
export function checkProject(value: unknown, context: RemoteContext, where?: string): Project {
  return checkRecord(value, 'project', context, where) as Project;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
