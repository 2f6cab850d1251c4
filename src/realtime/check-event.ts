/**
 * Where a realtime event is checked, once: an event is trusted no more than a response. Its record
 * must check with the one validator and be the one the event names (its `id`; a task of its
 * project), else the whole event is refused as malformed and becomes a hint to refresh what it
 * names. What passes is a `CheckedEvent`, whose typed changes the mirror's writer trusts.
 */
import {
  checkProject,
  checkRecord,
  checkTask,
  MalformedResponseError,
  taskOfProject,
  type CheckedEvent,
  type JsonObject,
  type ListType,
  type RealtimeEvent,
  type RecordChange,
  type RemoteContext,
} from '../domain/index.js';

/** The list each `*.changed` event is about. */
const LIST_OF_EVENT: Readonly<Record<string, ListType>> = {
  'member.changed': 'member',
  'resource.changed': 'resource',
  'dependency.changed': 'dependency',
};

/**
 * `event` checked: its record put, or a task deleted. Throws `MalformedResponseError` when the
 * event carries nothing it can be applied with, a record that does not check, or a record that
 * is not the one it names.
 */
export function checkEvent(event: RealtimeEvent): CheckedEvent {
  const { type, projectId } = event;
  return { type, projectId, changes: [eventChange(event)] };
}

function eventChange(event: RealtimeEvent): RecordChange {
  const { projectId } = event;
  const context: RemoteContext = { route: `event ${event.type}`, projectId };
  if (event.type === 'task.deleted') {
    const id = event.id ?? (event.data === undefined ? undefined : idOf(event.data, context));
    if (id === undefined) throw new MalformedResponseError(context, 'no task id');
    if (event.data !== undefined) withId(event.data, id, context);
    return { op: 'remove', type: 'task', projectId, id };
  }
  if (event.data === undefined) throw new MalformedResponseError(context, 'no data');
  if (event.type === 'project.updated') {
    const record = checkProject(withId(event.data, projectId, context), context, 'record');
    return { op: 'put', type: 'project', projectId, record };
  }
  const data = event.id === undefined ? event.data : withId(event.data, event.id, context);
  const list = LIST_OF_EVENT[event.type];
  if (list !== undefined) {
    const record = checkRecord(data, list, context, 'record');
    return { op: 'put', type: list, projectId, record };
  }
  const task = taskOfProject(checkTask(data, context, 'record'), projectId, context);
  return { op: 'put', type: 'task', projectId, record: task };
}

/** `data` with `id` filled in when absent; refused when it names another record. */
function withId(data: JsonObject, id: string, context: RemoteContext): JsonObject {
  if (data['id'] === undefined) return { ...data, id };
  return { ...data, id: idOf(data, context, id) };
}

/** The record's id, which must be a string (and `expected`, when given). */
function idOf(data: JsonObject, context: RemoteContext, expected?: string): string {
  const id = data['id'];
  if (typeof id !== 'string' || (expected !== undefined && id !== expected)) {
    throw new MalformedResponseError(
      context,
      `data id ${JSON.stringify(id) ?? 'missing'} is not the event's ${expected ?? 'id'}`,
    );
  }
  return id;
}
