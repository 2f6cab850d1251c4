/**
 * Runs a `ServiceChange` against the simulator's scripted API (`SimService`): picks are resolved
 * against what exists now, and a change the service refuses (a duplicate dependency, say) or one
 * with nothing to act on is skipped. Returns one line saying what happened, for the case's trace.
 */
import type { Task } from '../../../src/domain/index.js';
import type { SimService } from '../../../src/sim/index.js';
import type { ServiceChange, TaskField } from './steps.js';

/**
 * Records a change may not rename or delete: the first task of each project (the target of
 * outbox updates, whose progress and status no change sets either) and the records outbox
 * creates made (counted by their unique names).
 */
export interface ChangeContext {
  service: SimService;
  pinnedTasks: ReadonlySet<string>;
  /** A fresh name each call (unique within the case). */
  newName: (prefix: string) => string;
}

const STATUSES = ['NotStarted', 'InProgress', 'Done', 'Blocked'];

/** Names given by outbox creates start with this; such records keep their names. */
export const OUTBOX_NAME_PREFIX = 'outbox-';

/** Applies `change`; returns what it did, or why it was skipped. */
export function applyServiceChange(change: ServiceChange, context: ChangeContext): string {
  const project = pickOf(context.service.listProjects(), change.project);
  if (project === undefined) return `${change.kind}: skipped (no project)`;
  try {
    return `${change.kind} ${project.id}: ${run(change, project.id, context)}`;
  } catch (error) {
    return `${change.kind} ${project.id}: refused by the service (${(error as Error).message})`;
  }
}

function run(change: ServiceChange, projectId: string, context: ChangeContext): string {
  const { service } = context;
  const tasks = service.listTasks(projectId);
  switch (change.kind) {
    case 'createTask': {
      const members = service.listMembers(projectId);
      const assigneeIds = distinct(change.assignees.map((p) => pickOf(members, p)?.id));
      const task = service.createTask(projectId, { name: context.newName('task'), assigneeIds });
      return `${task.id} created`;
    }
    case 'updateTask': {
      // A pinned task's progress (or the status it may derive from) changed after an outbox
      // update was queued would hold that item in conflict, as the contract says it must.
      const targets = change.field === 'dates' ? tasks : mutable(tasks, context);
      return withTask(pickOf(targets, change.task), (task) =>
        updateTask(service, task, change.field, change.value, context),
      );
    }
    case 'deleteTask': {
      return withTask(pickOf(mutable(tasks, context), change.task), (task) => {
        service.deleteTask(task.id);
        return `${task.id} deleted`;
      });
    }
    case 'setAssignees': {
      const members = service.listMembers(projectId);
      const ids = distinct(change.members.map((p) => pickOf(members, p)?.id));
      return withTask(pickOf(tasks, change.task), (task) => {
        service.setAssignees(task.id, ids);
        return `${task.id} assigned [${ids.join(', ')}]`;
      });
    }
    case 'reorder': {
      if (tasks.length < 2) return 'skipped (fewer than two tasks)';
      const shift = change.shift % tasks.length;
      const ids = [...tasks.slice(shift), ...tasks.slice(0, shift)].map((task) => task.id);
      service.reorderTasks(projectId, ids);
      return `rotated by ${shift}`;
    }
    default:
      return runListChange(change, projectId, tasks, context);
  }
}

/** Changes of the side lists (dependencies, resources, members) and of the project itself. */
function runListChange(
  change: ServiceChange,
  projectId: string,
  tasks: Task[],
  context: ChangeContext,
): string {
  const { service } = context;
  switch (change.kind) {
    case 'addDependency': {
      const [from, to] = [pickOf(tasks, change.from), pickOf(tasks, change.to)];
      if (from === undefined || to === undefined || from.id === to.id) return 'skipped';
      const added = service.addDependency(projectId, {
        predecessorId: from.id,
        successorId: to.id,
      });
      return `${added.id} ${from.id} -> ${to.id}`;
    }
    case 'removeDependency': {
      const dependency = pickOf(service.listDependencies(projectId), change.dependency);
      if (dependency === undefined) return 'skipped (no dependency)';
      service.removeDependency(dependency.id);
      return `${dependency.id} removed`;
    }
    case 'setDependencies': {
      const items = dependencyPairs(change.pairs, tasks);
      const set = service.setDependencies(projectId, items);
      return `[${set.map((d) => `${d.id} ${d.predecessorId} -> ${d.successorId}`).join(', ')}]`;
    }
    case 'createResource':
      return `${service.createResource(projectId, { name: context.newName('resource') }).id} created`;
    case 'updateResource': {
      const resource = pickOf(mutable(service.listResources(projectId), context), change.resource);
      if (resource === undefined) return 'skipped (no resource)';
      service.updateResource(resource.id, { name: context.newName('resource') });
      return `${resource.id} renamed`;
    }
    case 'deleteResource': {
      const resource = pickOf(mutable(service.listResources(projectId), context), change.resource);
      if (resource === undefined) return 'skipped (no resource)';
      service.deleteResource(resource.id);
      return `${resource.id} deleted`;
    }
    case 'addMember': {
      const kind = change.integration ? 'integration' : 'person';
      return `${service.addMember(projectId, { kind, name: context.newName('member') }).id} added (${kind})`;
    }
    case 'removeMember': {
      const member = pickOf(service.listMembers(projectId), change.member);
      if (member === undefined) return 'skipped (no member)';
      service.removeMember(projectId, member.id);
      return `${member.id} removed`;
    }
    case 'renameProject':
      return `renamed to ${service.updateProject(projectId, { name: context.newName('project') }).name}`;
    default:
      throw new Error(`unknown change ${change.kind}`);
  }
}

function updateTask(
  service: SimService,
  task: Task,
  field: TaskField,
  value: number,
  context: ChangeContext,
): string {
  switch (field) {
    case 'name':
      return `${task.id} name=${service.updateTask(task.id, { name: context.newName('task') }).name}`;
    case 'progress':
      service.updateTask(task.id, { progress: value });
      return `${task.id} progress=${value}`;
    case 'status': {
      const status = STATUSES[value % STATUSES.length] as string;
      service.updateTask(task.id, { status });
      return `${task.id} status=${status}`;
    }
    case 'dates': {
      const day = String(1 + (value % 28)).padStart(2, '0');
      service.updateTask(task.id, { startDate: `2026-12-${day}`, endDate: `2027-01-${day}` });
      return `${task.id} dates from 2026-12-${day}`;
    }
  }
}

/** Distinct predecessor/successor pairs of different tasks. */
function dependencyPairs(pairs: [number, number][], tasks: Task[]) {
  const seen = new Set<string>();
  const items: { predecessorId: string; successorId: string }[] = [];
  for (const [from, to] of pairs) {
    const [a, b] = [pickOf(tasks, from), pickOf(tasks, to)];
    if (a === undefined || b === undefined || a.id === b.id || seen.has(`${a.id}>${b.id}`)) {
      continue;
    }
    seen.add(`${a.id}>${b.id}`);
    items.push({ predecessorId: a.id, successorId: b.id });
  }
  return items;
}

/** The records a change may rename, delete or set the progress of (see `ChangeContext`). */
function mutable<T extends { id: string; name?: string }>(
  records: T[],
  context: ChangeContext,
): T[] {
  return records.filter(
    (record) =>
      !context.pinnedTasks.has(record.id) && !(record.name ?? '').startsWith(OUTBOX_NAME_PREFIX),
  );
}

function withTask(task: Task | undefined, action: (task: Task) => string): string {
  return task === undefined ? 'skipped (no task)' : action(task);
}

/** The element a pick stands for (modulo the length), or undefined when there is none. */
export function pickOf<T>(items: readonly T[], index: number): T | undefined {
  return items.length === 0 ? undefined : items[index % items.length];
}

function distinct(ids: (string | undefined)[]): string[] {
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}
