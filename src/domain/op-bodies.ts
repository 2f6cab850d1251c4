/**
 * Body checks of the outbox ops. They refuse what can never succeed (a create without a name, a
 * date that is not YYYY-MM-DD, a wrong type) and pass unknown fields through untouched, since the
 * service ignores fields it does not know.
 */
import { isCalendarDate, type JsonObject } from './index.js';

/** The outcome of a body check: the value to send (undefined: no body), or the problem. */
export type BodyCheck = { ok: true; value: unknown } | { ok: false; problem: string };

const ok = (value: unknown): BodyCheck => ({ ok: true, value });
const bad = (problem: string): BodyCheck => ({ ok: false, problem });

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function isIdList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isNonEmptyString);
}

/** Checks the task fields the service documents, wherever they appear. */
function taskFieldProblem(body: JsonObject): string | undefined {
  if ('name' in body && !isNonEmptyString(body['name'])) return 'name must be a non-empty string';
  for (const field of ['startDate', 'endDate']) {
    if (field in body && !isCalendarDate(body[field])) {
      return `${field} must be a calendar date YYYY-MM-DD, not ${JSON.stringify(body[field])}`;
    }
  }
  const { startDate, endDate, status, progress } = body;
  if (typeof startDate === 'string' && typeof endDate === 'string' && endDate < startDate) {
    return `endDate ${endDate} is before startDate ${startDate}`;
  }
  if ('status' in body && !isNonEmptyString(status)) return 'status must be a non-empty string';
  if (
    'progress' in body &&
    (typeof progress !== 'number' || !Number.isFinite(progress) || progress < 0 || progress > 100)
  ) {
    return 'progress must be a number from 0 to 100';
  }
  if ('assigneeIds' in body && !isIdList(body['assigneeIds'])) {
    return 'assigneeIds must be an array of member ids';
  }
  return undefined;
}

/** The task fields a create must carry (spec 4.1: only `assigneeIds` is optional). */
const CREATE_FIELDS = ['name', 'startDate', 'endDate', 'status'];
/** The task fields an update may set; it must set at least one. */
const UPDATE_FIELDS = ['name', 'startDate', 'endDate', 'status', 'progress', 'assigneeIds'];

/** task.create needs name, dates and status; task.update at least one known field. */
export function checkTaskFields(body: unknown, mode: 'create' | 'update'): BodyCheck {
  if (!isObject(body)) return bad('must be a JSON object');
  if (mode === 'create') {
    const missing = CREATE_FIELDS.filter((field) => !(field in body));
    if (missing.length > 0) return bad(`a new task needs ${missing.join(', ')}`);
  } else if (!UPDATE_FIELDS.some((field) => field in body)) {
    return bad(`nothing to update: set one of ${UPDATE_FIELDS.join(', ')}`);
  }
  const problem = taskFieldProblem(body);
  return problem === undefined ? ok(body) : bad(problem);
}

/** `{"<field>": ["id", ...]}`, as set assignees and reorder tasks take. */
export function checkIdList(body: unknown, field: 'assigneeIds' | 'taskIds'): BodyCheck {
  if (!isObject(body) || !isIdList(body[field])) {
    return bad(`must be {"${field}": [...]} with an array of ids`);
  }
  if (field === 'taskIds' && body[field].length === 0) return bad('taskIds names no task');
  return ok(body);
}

function dependencyProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'a dependency must be a JSON object';
  if (!isNonEmptyString(value['predecessorId']) || !isNonEmptyString(value['successorId'])) {
    return 'a dependency needs predecessorId and successorId task ids';
  }
  if (value['predecessorId'] === value['successorId']) {
    return 'a task cannot depend on itself';
  }
  if ('type' in value && !isNonEmptyString(value['type'])) return 'type must be a string';
  return undefined;
}

/** dependency.add: `{predecessorId, successorId, type?}`. */
export function checkDependency(body: unknown): BodyCheck {
  const problem = dependencyProblem(body);
  return problem === undefined ? ok(body) : bad(problem);
}

/** dependency.set: the project's whole list of dependencies. */
export function checkDependencyList(body: unknown): BodyCheck {
  if (!Array.isArray(body)) return bad('must be a JSON array of dependencies');
  for (const [index, entry] of body.entries()) {
    const problem = dependencyProblem(entry);
    if (problem !== undefined) return bad(`entry ${index}: ${problem}`);
  }
  return ok(body);
}

/** resource.create needs a name; resource.update at least one field. */
export function checkResource(body: unknown, mode: 'create' | 'update'): BodyCheck {
  if (!isObject(body)) return bad('must be a JSON object');
  if (mode === 'create' && !('name' in body)) return bad('a new resource needs a name');
  if (mode === 'update' && Object.keys(body).length === 0) return bad('nothing to update');
  if ('name' in body && !isNonEmptyString(body['name'])) {
    return bad('name must be a non-empty string');
  }
  return ok(body);
}

/** Deletes send no body: only `{}` (the column's default) is accepted. */
export function checkNoBody(body: unknown): BodyCheck {
  if (isObject(body) && Object.keys(body).length === 0) return ok(undefined);
  return bad('takes no body (use {})');
}
