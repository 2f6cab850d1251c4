/**
 * The port through which a confirmed edit reaches the mirror, and its default implementation.
 * The pusher calls it inside the transaction that marks the item done, so the mirror and the
 * outbox never disagree about whether an edit took effect.
 */
import {
  MalformedResponseError,
  type Dependency,
  type JsonObject,
  type Resource,
  type Task,
  type WriteResponse,
} from '../domain/index.js';
import { isoTime, type Db } from '../store/database.js';
import type { OutboxItem } from './item.js';
import { isOutboxOp, type OutboxOp } from './ops.js';
import {
  deleteProjectRow,
  deleteTask,
  projectIsMirrored,
  replaceDependencies,
  upsertDependency,
  upsertResource,
  upsertTask,
} from './mirror-rows.js';

/**
 * Writes the service's answer to `item` into the mirror. Runs inside the pusher's transaction
 * and must be synchronous; throwing `MalformedResponseError` rolls the item back for a retry.
 */
export type ApplyResult = (db: Db, item: OutboxItem, response: WriteResponse, now: number) => void;

function isRecord(value: unknown): value is JsonObject & { id: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as JsonObject)['id'] === 'string'
  );
}

function recordOf(item: OutboxItem, response: WriteResponse, what: string) {
  if (isRecord(response.body)) return response.body;
  throw new MalformedResponseError(
    { route: item.op, projectId: item.projectId },
    `expected the ${what} with an id, got ${response.body === null ? 'no body' : typeof response.body}`,
  );
}

function recordsOf(body: unknown): (JsonObject & { id: string })[] | undefined {
  return Array.isArray(body) && body.every(isRecord) ? body : undefined;
}

/**
 * The default `ApplyResult`: upserts the returned task (typed columns, data, assignees, history),
 * dependency or resource, or deletes the row a delete removed. A project the mirror does not
 * hold yet is skipped: its first sync brings everything.
 */
export const applyResultToMirror: ApplyResult = (db, item, response, now) => {
  if (!isOutboxOp(item.op)) return;
  const at = isoTime(now);
  const project = item.projectId;
  const target = item.targetId ?? '';
  const op: OutboxOp = item.op;
  if (op === 'task.create' || op === 'task.update') {
    const task = recordOf(item, response, 'task') as Task;
    if (projectIsMirrored(db, project)) upsertTask(db, project, task, at);
  } else if (op === 'task.set_assignees') {
    applyAssignees(db, item, response, at);
  } else if (op === 'task.reorder') {
    const tasks = recordsOf(response.body) as Task[] | undefined;
    if (tasks && projectIsMirrored(db, project)) {
      for (const task of tasks) upsertTask(db, project, task, at);
    }
  } else if (op === 'dependency.add') {
    const dep = recordOf(item, response, 'dependency') as Dependency;
    if (projectIsMirrored(db, project)) upsertDependency(db, project, dep, at);
  } else if (op === 'dependency.set') {
    const deps = recordsOf(response.body) as Dependency[] | undefined;
    if (deps && projectIsMirrored(db, project)) replaceDependencies(db, project, deps, at);
  } else if (op === 'resource.create' || op === 'resource.update') {
    const resource = recordOf(item, response, 'resource') as Resource;
    if (projectIsMirrored(db, project)) upsertResource(db, project, resource, at);
  } else if (op === 'task.delete') {
    deleteTask(db, project, target, at);
  } else if (op === 'dependency.remove') {
    deleteProjectRow(db, 'dependencies', project, target);
  } else {
    deleteProjectRow(db, 'resources', project, target);
  }
};

/** Set assignees answers with the task when the service sends it; else the list sent is applied. */
function applyAssignees(db: Db, item: OutboxItem, response: WriteResponse, at: string): void {
  if (!projectIsMirrored(db, item.projectId)) return;
  if (isRecord(response.body)) {
    upsertTask(db, item.projectId, response.body as Task, at);
    return;
  }
  const data = db
    .prepare('SELECT data FROM tasks WHERE id = ?')
    .pluck()
    .get(item.targetId ?? '') as string | undefined;
  if (data === undefined) return;
  const sent = JSON.parse(item.requestBody ?? '{}') as { assigneeIds?: string[] };
  const task = { ...(JSON.parse(data) as Task), assigneeIds: sent.assigneeIds ?? [] };
  upsertTask(db, item.projectId, task, at);
}
