/**
 * The update-like ops with a base, each against a record deleted on the service after the item
 * was queued (issue 21, point 4): what to queue, what the service deletes, and the conflict the
 * item must be held in instead of a 404. Shared by the push and daemon tests.
 */
import type { Simulator } from '../../src/sim/index.js';

/** The records of the project the cases queue against, made before the mirror is synced. */
export interface Records {
  projectId: string;
  task: string;
  other: string;
  resource: string;
  dependency: string;
}

/** One op's case. */
export interface DeletedTarget {
  op: string;
  target: (r: Records) => string | null;
  body: (r: Records) => unknown;
  /** Deletes what the item updates, on the service (as a colleague in the application would). */
  remove: (sim: Simulator, r: Records) => void;
  /** The item's `last_error` once held. */
  lastError: (r: Records) => string;
  /** The `conflict` column's `fields`. */
  fields: string;
  /** The route a re-read of the target takes. */
  reread: 'getTask' | 'listResources' | 'listDependencies';
  /** The mirrored table and id of the row the deletion removes. */
  row: (r: Records) => readonly [table: string, id: string];
}

/** Makes the records on the service (one resource, one dependency) and names them. */
export function makeRecords(sim: Simulator): Records {
  const projectId = sim.service.listProjects()[0]!.id;
  const [task, other] = sim.service.listTasks(projectId).map((t) => t.id) as [string, string];
  const resource = sim.service.createResource(projectId, { name: 'Crane' }).id;
  const dependency = sim.service.addDependency(projectId, {
    predecessorId: task,
    successorId: other,
    type: 'FS',
  }).id;
  return { projectId, task, other, resource, dependency };
}

const deleted = (kind: string, id: string) =>
  `conflict: ${kind} ${id} was deleted on the service after the item was queued`;

export const DELETED_TARGETS: readonly DeletedTarget[] = [
  {
    op: 'task.update',
    target: (r) => r.task,
    body: () => ({ name: 'Too late' }),
    remove: (sim, r) => sim.service.deleteTask(r.task),
    lastError: (r) => deleted('task', r.task),
    fields: 'record',
    reread: 'getTask',
    row: (r) => ['tasks', r.task],
  },
  {
    op: 'task.set_assignees',
    target: (r) => r.task,
    body: () => ({ assigneeIds: [] }),
    remove: (sim, r) => sim.service.deleteTask(r.task),
    lastError: (r) => deleted('task', r.task),
    fields: 'record',
    reread: 'getTask',
    row: (r) => ['tasks', r.task],
  },
  {
    op: 'resource.update',
    target: (r) => r.resource,
    body: () => ({ name: 'Tower crane' }),
    remove: (sim, r) => sim.service.deleteResource(r.resource),
    lastError: (r) => deleted('resource', r.resource),
    fields: 'record',
    reread: 'listResources',
    row: (r) => ['resources', r.resource],
  },
  {
    // The project's list is the record: the dependency the item changes was deleted from it.
    op: 'dependency.set',
    target: () => null,
    body: (r) => [{ predecessorId: r.task, successorId: r.other, type: 'SS' }],
    remove: (sim, r) => sim.service.removeDependency(r.dependency),
    lastError: (r) =>
      `conflict: dependencies was [{"predecessorId":"${r.task}","successorId":"${r.other}","type":"FS"}] when queued, is [] on the service`,
    fields: 'dependencies',
    reread: 'listDependencies',
    row: (r) => ['dependencies', r.dependency],
  },
];
