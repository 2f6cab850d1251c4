/**
 * A change to the mirror, as any source states it: a pass, a realtime event, a record fetched on a
 * hint, or the service's answer to an outbox item. The mirror's writer is the one place that turns
 * these into rows; every source only says what it learned.
 */

import type { Project, Task } from './records.js';
import type { CheckedRecord } from './validate.js';

/** The per-project lists: members, resources and dependencies. */
export type ListType = 'member' | 'resource' | 'dependency';

/** A record the writer can put: a project, a task, or one record of a list. */
export type PutType = 'project' | 'task' | ListType;

/**
 * One thing learned about the service's state. Its records are checked where they entered (the
 * remote client, `checkEvent`, the outbox's answers); the writer trusts these types.
 */
export type RecordChange =
  | { op: 'put'; type: 'project'; projectId: string; record: Project }
  | { op: 'put'; type: 'task'; projectId: string; record: Task }
  | { op: 'put'; type: ListType; projectId: string; record: CheckedRecord }
  | { op: 'remove'; type: 'task' | ListType; projectId: string; id: string }
  | { op: 'replace'; type: ListType; projectId: string; records: readonly CheckedRecord[] }
  | { op: 'assignees'; projectId: string; taskId: string; assigneeIds: readonly string[] };
