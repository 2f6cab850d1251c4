/**
 * The port through which a confirmed edit reaches the mirror: the service's answer to an item,
 * stated as record changes for the mirror's one writer. The pusher calls it inside the
 * transaction that marks the item done, so the mirror and the outbox never disagree about
 * whether an edit took effect.
 */
import {
  checkList,
  checkRecord,
  checkTask,
  MalformedResponseError,
  taskOfProject,
  type ListType,
  type RecordChange,
  type JsonObject,
  type RemoteContext,
  type WriteResponse,
} from '../../domain/index.js';
import type { OutboxItem } from '../outbox.js';
import { isOutboxOp } from '../../domain/outbox-ops.js';

/**
 * Writes the service's answer to `item` into the mirror, inside the transaction that marks the
 * item done (a savepoint of it); rejecting (say `MalformedResponseError`) rolls the write back.
 */
export type ApplyResult = (item: OutboxItem, response: WriteResponse) => Promise<void>;

/** The mirror's write path for confirmed edits (the mirror's `MirrorWriter` is one). */
export interface ConfirmedWriter {
  /** Writes `changes` of one project, nesting in the caller's transaction. */
  applyChanges(
    projectId: string,
    changes: readonly RecordChange[],
    route: string,
  ): Promise<unknown>;
}

/** The `ApplyResult` that writes each answer through `writer`. */
export function answersInto(writer: ConfirmedWriter): ApplyResult {
  return async (item, response) => {
    await writer.applyChanges(item.projectId, outboxChanges(item, response), item.op);
  };
}

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
 * What the service's answer to `item` says about the mirror, as record changes for the mirror's
 * writer: the task, resource or dependency returned put, or the target removed; a list set whole
 * replaced. The answer's records are checked here, once (the writer trusts them). Throws
 * `MalformedResponseError` when an answer that must carry a record does not, or it does not check.
 */
function outboxChanges(item: OutboxItem, response: WriteResponse): RecordChange[] {
  const projectId = item.projectId;
  const id = item.targetId ?? '';
  if (!isOutboxOp(item.op)) return [];
  const context: RemoteContext = { route: item.op, projectId };
  const task = (record: unknown): RecordChange => ({
    op: 'put',
    type: 'task',
    projectId,
    record: taskOfProject(checkTask(record, context, 'record'), projectId, context),
  });
  const put = (type: 'task' | ListType, what: string): RecordChange[] => {
    const record = recordOf(item, response, what);
    if (type === 'task') return [task(record)];
    return [{ op: 'put', type, projectId, record: checkRecord(record, type, context, 'record') }];
  };
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
      return (recordsOf(response.body) ?? []).map(task);
    case 'task.delete':
      return [{ op: 'remove', type: 'task', projectId, id }];
    case 'dependency.add':
      return put('dependency', 'dependency');
    case 'dependency.set': {
      const records = recordsOf(response.body);
      return records === undefined
        ? []
        : [
            {
              op: 'replace',
              type: 'dependency',
              projectId,
              records: checkList(records, 'dependency', context),
            },
          ];
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
