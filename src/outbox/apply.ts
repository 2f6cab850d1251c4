/**
 * The port through which a confirmed edit reaches the mirror, and its implementation over a
 * `MirrorWriter`. The pusher calls it inside the transaction that marks the item done, so the
 * mirror and the outbox never disagree about whether an edit took effect.
 */
import {
  MalformedResponseError,
  type PutType,
  type RecordChange,
  type Dependency,
  type JsonObject,
  type Resource,
  type Task,
  type WriteResponse,
} from '../domain/index.js';
import type { Db } from '../store/database.js';
import type { MirrorStore } from '../store/mirror-store.js';
import type { RecordKind } from '../store/project-records.js';
import type { OutboxItem } from './item.js';
import { isOutboxOp } from './ops.js';
import type { MirrorWriter } from './store-writer.js';

/**
 * Writes the service's answer to `item` into the mirror. Runs inside the pusher's transaction
 * and must be synchronous; throwing (say `MalformedResponseError`) rolls the item back for a retry.
 */
export type ApplyResult = (db: Db, item: OutboxItem, response: WriteResponse) => void;

type IdentifiedRecord = JsonObject & { id: string };

function isRecord(value: unknown): value is IdentifiedRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as JsonObject)['id'] === 'string'
  );
}

function recordOf(item: OutboxItem, response: WriteResponse, what: string): IdentifiedRecord {
  if (isRecord(response.body)) return response.body;
  const got = response.body === null ? 'no body' : JSON.stringify(response.body).slice(0, 80);
  throw new MalformedResponseError(
    { route: item.op, projectId: item.projectId },
    `expected the ${what} with an id, got ${got}`,
  );
}

function recordsOf(body: unknown): IdentifiedRecord[] | undefined {
  return Array.isArray(body) && body.every(isRecord) ? body : undefined;
}

/**
 * The `ApplyResult` of the mirror: upserts the returned task (typed columns, data, assignees,
 * history), dependency or resource, or removes what a delete removed. Lists (resources,
 * dependencies) are rewritten whole through `writer`, from the rows `store` holds.
 */
export function mirrorApplyResult(writer: MirrorWriter, store: MirrorStore): ApplyResult {
  /** The project's list with `record` put in (or `removeId` taken out). */
  const edited = (kind: RecordKind, item: OutboxItem, record?: IdentifiedRecord) => {
    const held = store.records[kind].dataById(item.projectId);
    if (record === undefined) held.delete(item.targetId ?? '');
    else held.set(record.id, JSON.stringify(record));
    return [...held.values()].map((data) => JSON.parse(data) as IdentifiedRecord);
  };
  return (_db, item, response) => {
    const project = item.projectId;
    const target = item.targetId ?? '';
    if (!isOutboxOp(item.op)) return;
    switch (item.op) {
      case 'task.create':
      case 'task.update':
        writer.applyTask(project, recordOf(item, response, 'task') as Task);
        return;
      case 'task.set_assignees':
        applyAssignees(writer, store, item, response);
        return;
      case 'task.reorder':
        for (const task of recordsOf(response.body) ?? []) writer.applyTask(project, task as Task);
        return;
      case 'task.delete':
        writer.removeTask(project, target);
        return;
      case 'dependency.add': {
        const dep = recordOf(item, response, 'dependency');
        writer.replaceDependencies(project, edited('dependencies', item, dep) as Dependency[]);
        return;
      }
      case 'dependency.set': {
        const deps = recordsOf(response.body);
        if (deps !== undefined) writer.replaceDependencies(project, deps as Dependency[]);
        return;
      }
      case 'dependency.remove':
        writer.replaceDependencies(project, edited('dependencies', item) as Dependency[]);
        return;
      case 'resource.create':
      case 'resource.update': {
        const resource = recordOf(item, response, 'resource');
        writer.replaceResources(project, edited('resources', item, resource) as Resource[]);
        return;
      }
      case 'resource.delete':
        writer.replaceResources(project, edited('resources', item) as Resource[]);
        return;
    }
  };
}

/** Set assignees answers with the task when the service sends it; else the list sent is applied. */
function applyAssignees(
  writer: MirrorWriter,
  store: MirrorStore,
  item: OutboxItem,
  response: WriteResponse,
): void {
  if (isRecord(response.body)) {
    writer.applyTask(item.projectId, response.body as Task);
    return;
  }
  const held = store.tasks.find(item.targetId ?? '');
  if (held === undefined) return;
  const sent = JSON.parse(item.requestBody ?? '{}') as { assigneeIds?: string[] };
  const task = { ...(JSON.parse(held.data) as Task), assigneeIds: sent.assigneeIds ?? [] };
  writer.applyTask(item.projectId, task);
}

/**
 * What the service's answer to `item` says about the mirror, as record changes for the mirror's
 * writer: the task, resource or dependency returned put, or the target removed; a list set whole
 * replaced. Throws `MalformedResponseError` when an answer that must carry a record does not.
 */
export function outboxChanges(item: OutboxItem, response: WriteResponse): RecordChange[] {
  const projectId = item.projectId;
  const id = item.targetId ?? '';
  if (!isOutboxOp(item.op)) return [];
  const put = (type: PutType, what: string): RecordChange[] => [
    { op: 'put', type, projectId, record: recordOf(item, response, what) },
  ];
  switch (item.op) {
    case 'task.create':
    case 'task.update':
      return put('task', 'task');
    case 'task.set_assignees': {
      if (isRecord(response.body)) return put('task', 'task');
      const sent = JSON.parse(item.requestBody ?? '{}') as { assigneeIds?: string[] };
      return [{ op: 'assignees', projectId, taskId: id, assigneeIds: sent.assigneeIds ?? [] }];
    }
    case 'task.reorder':
      return (recordsOf(response.body) ?? []).map((record) => ({
        op: 'put',
        type: 'task',
        projectId,
        record,
      }));
    case 'task.delete':
      return [{ op: 'remove', type: 'task', projectId, id }];
    case 'dependency.add':
      return put('dependency', 'dependency');
    case 'dependency.set': {
      const records = recordsOf(response.body);
      return records === undefined
        ? []
        : [{ op: 'replace', type: 'dependency', projectId, records }];
    }
    case 'dependency.remove':
      return [{ op: 'remove', type: 'dependency', projectId, id }];
    case 'resource.create':
    case 'resource.update':
      return put('resource', 'resource');
    case 'resource.delete':
      return [{ op: 'remove', type: 'resource', projectId, id }];
  }
}
