/**
 * Task writes, with the derivation rules of spec section 3 and contract section 4: status alone
 * derives progress, progress alone derives status (by the `statusMapping` reading), both are
 * stored as sent.
 */
import type { ProjectRow, TaskRow } from '../model/rows.js';
import { projectJson, TaskRow as TaskRowClass, taskJson } from '../model/rows.js';
import type { TokenRecord } from '../model/tokens.js';
import { emit, timestamp, type Core } from './core.js';
import { removeDependenciesOfTask } from './dependencies.js';
import { ensureIntegrationMember } from './identity.js';
import { statusMapping } from './status-mapping.js';
import type { NewTask, TaskChanges } from './validate.js';

/**
 * Adds a task at the end of the project's order. Without `assigneeIds` it is assigned to the
 * actor token's integration identity (or to nobody when a script creates it).
 */
export function createTask(
  core: Core,
  project: ProjectRow,
  input: NewTask,
  actor?: TokenRecord,
  id?: string,
): TaskRow {
  const assigneeIds =
    input.assigneeIds ?? (actor ? [ensureIntegrationMember(core, project, actor)] : []);
  const row = new TaskRowClass(
    id ?? core.state.newId('t'),
    project.id,
    input.name,
    input.startDate,
    input.endDate,
    input.status,
    input.progress ?? statusMapping(core.readings.statusMapping).progressFor(input.status, 0),
    Object.freeze(assigneeIds),
    timestamp(core),
  );
  project.tasks.append(row);
  core.state.tasks.set(row.id, row);
  emit(core, 'task.created', project.id, row.id, taskJson(row));
  return row;
}

/** Applies checked changes to a task, deriving status or progress when only one is sent. */
export function updateTask(core: Core, row: TaskRow, changes: TaskChanges): TaskRow {
  const mapping = statusMapping(core.readings.statusMapping);
  let { status, progress } = changes;
  if (status !== undefined && progress === undefined) {
    progress = mapping.progressFor(status, row.progress);
  } else if (progress !== undefined && status === undefined) {
    status = mapping.statusFor(progress);
  }
  if (changes.name !== undefined) row.name = changes.name;
  if (changes.startDate !== undefined) row.startDate = changes.startDate;
  if (changes.endDate !== undefined) row.endDate = changes.endDate;
  if (status !== undefined) row.status = status;
  if (progress !== undefined) row.progress = progress;
  if (changes.assigneeIds !== undefined) row.assigneeIds = Object.freeze([...changes.assigneeIds]);
  row.updatedAt = timestamp(core);
  emit(core, 'task.updated', row.projectId, row.id, taskJson(row));
  return row;
}

/** Deletes a task and the dependencies that name it (each announced as a change). */
export function deleteTask(core: Core, project: ProjectRow, row: TaskRow): void {
  removeDependenciesOfTask(core, project, row.id);
  project.tasks.remove(row);
  core.state.tasks.delete(row.id);
  emit(core, 'task.deleted', project.id, row.id);
}

/**
 * Reorders tasks: the listed tasks take the positions they occupy now, in the listed order.
 * Announced by the `reorder` reading: one `project.updated` (no task record changes), or one
 * `task.updated` per task that moved, its record unchanged.
 */
export function reorderTasks(core: Core, project: ProjectRow, rows: readonly TaskRow[]): void {
  if (rows.length === 0) return;
  const moved = project.tasks.reorder(rows);
  if (core.readings.reorder === 'one-message') {
    emit(core, 'project.updated', project.id, project.id, projectJson(project));
    return;
  }
  for (const row of moved) emit(core, 'task.updated', project.id, row.id, taskJson(row));
}
