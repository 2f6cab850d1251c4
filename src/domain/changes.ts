/**
 * A change to the mirror, as any source states it: a pass, a realtime event, a record fetched on a
 * hint, or the service's answer to an outbox item. The mirror's writer is the one place that turns
 * these into rows; every source only says what it learned.
 */

/** The per-project lists: members, resources and dependencies. */
export type ListType = 'member' | 'resource' | 'dependency';

/** A record the writer can put: a project, a task, or one record of a list. */
export type PutType = 'project' | 'task' | ListType;

/** One thing learned about the service's state. Records are unchecked until the writer checks them. */
export type RecordChange =
  | { op: 'put'; type: PutType; projectId: string; record: unknown }
  | { op: 'remove'; type: 'task' | ListType; projectId: string; id: string }
  | { op: 'replace'; type: ListType; projectId: string; records: unknown }
  | { op: 'assignees'; projectId: string; taskId: string; assigneeIds: readonly string[] };
