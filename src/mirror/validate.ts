/** Shape checks on what the service returned, before any of it reaches the mirror. */
import {
  MalformedResponseError,
  type JsonObject,
  type Project,
  type RemoteContext,
  type Task,
} from '../domain/index.js';
import type { IdentifiedRecord } from '../store/project-records.js';

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasId(value: unknown): value is IdentifiedRecord {
  return isJsonObject(value) && typeof value['id'] === 'string' && value['id'] !== '';
}

/** A list of records each with a string id, no id twice; throws `MalformedResponseError`. */
export function checkRecords(list: unknown, context: RemoteContext): IdentifiedRecord[] {
  if (!Array.isArray(list)) throw new MalformedResponseError(context, 'expected a JSON array');
  const ids = new Set<string>();
  list.forEach((record: unknown, index) => {
    if (!hasId(record)) {
      throw new MalformedResponseError(context, `item ${index} is not an object with a string id`);
    }
    if (ids.has(record.id)) throw new MalformedResponseError(context, `id ${record.id} twice`);
    ids.add(record.id);
  });
  return list as IdentifiedRecord[];
}

/** One page of tasks: at most `pageSize` records with distinct string ids. */
export function checkTaskPage(rows: unknown, pageSize: number, context: RemoteContext): Task[] {
  if (Array.isArray(rows) && rows.length > pageSize) {
    throw new MalformedResponseError(context, `${rows.length} rows for a pageSize of ${pageSize}`);
  }
  return checkRecords(rows, context) as Task[];
}

/** One task record. */
export function checkTask(task: unknown, context: RemoteContext): Task {
  if (!hasId(task))
    throw new MalformedResponseError(context, 'task is not an object with a string id');
  return task as Task;
}

/** One project record, whose id must be `projectId` when given. */
export function checkProject(
  project: unknown,
  context: RemoteContext,
  projectId?: string,
): Project {
  if (!hasId(project)) {
    throw new MalformedResponseError(context, 'project is not an object with a string id');
  }
  if (projectId !== undefined && project.id !== projectId) {
    throw new MalformedResponseError(context, `project id ${project.id}, expected ${projectId}`);
  }
  return project as Project;
}

/** `X-Total-Count`: a non-negative integer. */
export function checkTotalCount(total: unknown, context: RemoteContext): number {
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0) {
    throw new MalformedResponseError(context, `X-Total-Count ${String(total)} is not a count`);
  }
  return total;
}
