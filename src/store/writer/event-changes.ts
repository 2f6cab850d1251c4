/**
 * What a realtime event says about the mirror, as record changes. An event is trusted no more than
 * a response: its record must check, and must be the one the event names (its `id`, its project),
 * else the whole event is refused as malformed and becomes a hint to refresh what it names.
 */
import {
  MalformedResponseError,
  type JsonObject,
  type ListType,
  type RealtimeEvent,
  type RecordChange,
} from '../../domain/index.js';

/** The list each `*.changed` event is about. */
const LIST_OF_EVENT: Readonly<Record<string, ListType>> = {
  'member.changed': 'member',
  'resource.changed': 'resource',
  'dependency.changed': 'dependency',
};

/**
 * The changes an event carries: its record put, or a task deleted. Throws
 * `MalformedResponseError` when the event carries nothing it can be applied with, or a record
 * whose id is not the event's.
 */
export function eventChanges(event: RealtimeEvent): RecordChange[] {
  const { projectId } = event;
  const context = { route: `event ${event.type}`, projectId };
  if (event.type === 'task.deleted') {
    const id = event.id ?? (event.data === undefined ? undefined : idOf(event.data, context));
    if (id === undefined) throw new MalformedResponseError(context, 'no task id');
    if (event.data !== undefined) withId(event.data, id, context);
    return [{ op: 'remove', type: 'task', projectId, id }];
  }
  if (event.data === undefined) throw new MalformedResponseError(context, 'no data');
  if (event.type === 'project.updated') {
    const record = withId(event.data, projectId, context);
    return [{ op: 'put', type: 'project', projectId, record }];
  }
  const record = event.id === undefined ? event.data : withId(event.data, event.id, context);
  const list = LIST_OF_EVENT[event.type];
  return [{ op: 'put', type: list ?? 'task', projectId, record }];
}

/** `data` with `id` filled in when absent; refused when it names another record. */
function withId(data: JsonObject, id: string, context: { route: string }): JsonObject {
  if (data['id'] === undefined) return { ...data, id };
  return { ...data, id: idOf(data, context, id) };
}

/** The record's id, which must be a string (and `expected`, when given). */
function idOf(data: JsonObject, context: { route: string }, expected?: string): string {
  const id = data['id'];
  if (typeof id !== 'string' || (expected !== undefined && id !== expected)) {
    throw new MalformedResponseError(
      context,
      `data id ${JSON.stringify(id) ?? 'missing'} is not the event's ${expected ?? 'id'}`,
    );
  }
  return id;
}
