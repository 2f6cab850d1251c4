/**
 * Task writes, with the derivation rules of spec section 3 and contract section 4: status alone
 * derives progress, progress alone derives status, both are stored as sent.
 */
import { progressForStatus, statusForProgress } from '../../domain/index.js';
import type { ProjectRow, TaskRow } from '../model/rows.js';
import { projectJson, TaskRow as TaskRowClass, taskJson } from '../model/rows.js';
import type { TokenRecord } from '../model/tokens.js';
import { emit, timestamp, type Core } from './core.js';
import { removeDependenciesOfTask } from './dependencies.js';
import { ensureIntegrationMember } from './identity.js';
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
    input.progress ?? progressForStatus(input.status, 0),
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
  let { status, progress } = changes;
  if (status !== undefined && progress === undefined) {
    progress = progressForStatus(status, row.progress);
  } else if (progress !== undefined && status === undefined) {
    status = statusForProgress(progress);
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
 * Announced as one `project.updated` event, since no task record changes.
 */
export function reorderTasks(core: Core, project: ProjectRow, rows: readonly TaskRow[]): void {
  if (rows.length === 0) return;
  project.tasks.reorder(rows);
  emit(core, 'project.updated', project.id, project.id, projectJson(project));
}
