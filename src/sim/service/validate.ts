/**
 * Checks of request bodies (400 `validation_failed` on the first problem). Unknown fields are
 * ignored; known fields must have exactly the documented type.
 */
import { isCalendarDate } from '../../domain/index.js';
import { validationFailed } from '../errors.js';
import type { ProjectRow, TaskRow } from '../model/rows.js';
import type { SimState } from '../model/state.js';

/** The default dependency type: finish-to-start. */
export const DEFAULT_DEPENDENCY_TYPE = 'FS';

/** The fields of a new task, checked. */
export interface NewTask {
  name: string;
  startDate: string;
  endDate: string;
  status: string;
  progress: number | undefined;
  assigneeIds: string[] | undefined;
}

/** The fields an update sets, checked; absent fields stay unchanged. */
export type TaskChanges = Partial<NewTask>;

/** A dependency to add or keep, checked; `id` only when the caller named one. */
export interface NewDependency {
  id: string | undefined;
  predecessorId: string;
  successorId: string;
  type: string;
}

type Fields = Record<string, unknown>;

/** The body as a plain JSON object, or 400. */
export function requireObject(body: unknown, what = 'the body'): Fields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationFailed(`${what} must be a JSON object`);
  }
  return body as Fields;
}

function nonEmptyString(fields: Fields, key: string): string {
  const value = fields[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw validationFailed(`${key} must be a non-empty string`);
  }
  return value;
}

function calendarDate(fields: Fields, key: string): string {
  const value = fields[key];
  if (!isCalendarDate(value)) throw validationFailed(`${key} must be a calendar date YYYY-MM-DD`);
  return value;
}

function progressValue(fields: Fields): number {
  const value = fields['progress'];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw validationFailed('progress must be a number from 0 to 100');
  }
  return value;
}

/** A list of distinct member ids of `project`, or 400. */
export function assigneeList(value: unknown, project: ProjectRow, key = 'assigneeIds'): string[] {
  if (!Array.isArray(value)) throw validationFailed(`${key} must be an array of member ids`);
  const seen = new Set<string>();
  for (const id of value) {
    if (typeof id !== 'string') throw validationFailed(`${key} must hold member id strings`);
    if (!project.members.has(id)) {
      throw validationFailed(`${key}: ${id} is not a member of project ${project.id}`);
    }
    if (seen.has(id)) throw validationFailed(`${key}: ${id} is listed twice`);
    seen.add(id);
  }
  return [...seen];
}

/** Checks a create-task body. */
export function parseNewTask(body: unknown, project: ProjectRow): NewTask {
  const fields = requireObject(body);
  return {
    name: nonEmptyString(fields, 'name'),
    startDate: calendarDate(fields, 'startDate'),
    endDate: calendarDate(fields, 'endDate'),
    status: nonEmptyString(fields, 'status'),
    progress: 'progress' in fields ? progressValue(fields) : undefined,
    assigneeIds: 'assigneeIds' in fields ? assigneeList(fields['assigneeIds'], project) : undefined,
  };
}

/** Checks an update-task body: at least one known field, each valid. */
export function parseTaskChanges(body: unknown, project: ProjectRow): TaskChanges {
  const fields = requireObject(body);
  const changes: TaskChanges = {};
  if ('name' in fields) changes.name = nonEmptyString(fields, 'name');
  if ('startDate' in fields) changes.startDate = calendarDate(fields, 'startDate');
  if ('endDate' in fields) changes.endDate = calendarDate(fields, 'endDate');
  if ('status' in fields) changes.status = nonEmptyString(fields, 'status');
  if ('progress' in fields) changes.progress = progressValue(fields);
  if ('assigneeIds' in fields) changes.assigneeIds = assigneeList(fields['assigneeIds'], project);
  if (Object.keys(changes).length === 0) {
    throw validationFailed(
      'the body sets none of name, startDate, endDate, status, progress, assigneeIds',
    );
  }
  return changes;
}

/** Checks a set-assignees body `{"assigneeIds": [...]}`. */
export function parseAssignees(body: unknown, project: ProjectRow): string[] {
  const fields = requireObject(body);
  if (!('assigneeIds' in fields)) throw validationFailed('assigneeIds is required');
  return assigneeList(fields['assigneeIds'], project);
}

/** A distinct task of `project` for each id of a list, or 400. */
function projectTasks(value: unknown, key: string, project: ProjectRow, state: SimState) {
  if (!Array.isArray(value)) throw validationFailed(`${key} must be an array of task ids`);
  const rows = new Set<TaskRow>();
  for (const id of value) {
    const row = typeof id === 'string' ? state.tasks.get(id) : undefined;
    if (row === undefined || row.projectId !== project.id) {
      throw validationFailed(`${key}: ${String(id)} is not a task of project ${project.id}`);
    }
    if (rows.has(row)) throw validationFailed(`${key}: ${id as string} is listed twice`);
    rows.add(row);
  }
  return [...rows];
}

/** Checks a reorder body `{"taskIds": [...]}`: distinct tasks of the project. */
export function parseReorder(body: unknown, project: ProjectRow, state: SimState): TaskRow[] {
  const fields = requireObject(body);
  return projectTasks(fields['taskIds'], 'taskIds', project, state);
}

function taskOfProject(fields: Fields, key: string, project: ProjectRow, state: SimState): string {
  const id = nonEmptyString(fields, key);
  if (state.tasks.get(id)?.projectId !== project.id) {
    throw validationFailed(`${key}: ${id} is not a task of project ${project.id}`);
  }
  return id;
}

/** Checks one dependency object. */
export function parseDependency(
  body: unknown,
  project: ProjectRow,
  state: SimState,
  what = 'the body',
): NewDependency {
  const fields = requireObject(body, what);
  const predecessorId = taskOfProject(fields, 'predecessorId', project, state);
  const successorId = taskOfProject(fields, 'successorId', project, state);
  if (predecessorId === successorId) {
    throw validationFailed('a task cannot depend on itself');
  }
  const type = 'type' in fields ? nonEmptyString(fields, 'type') : DEFAULT_DEPENDENCY_TYPE;
  const id = 'id' in fields ? nonEmptyString(fields, 'id') : undefined;
  return { id, predecessorId, successorId, type };
}

/** Checks a set-dependencies body: an array of dependencies, no pair or id twice. */
export function parseDependencyList(
  body: unknown,
  project: ProjectRow,
  state: SimState,
): NewDependency[] {
  if (!Array.isArray(body)) throw validationFailed('the body must be a JSON array of dependencies');
  const pairs = new Set<string>();
  const ids = new Set<string>();
  return body.map((item, index) => {
    const dependency = parseDependency(item, project, state, `item ${index}`);
    const pair = `${dependency.predecessorId}\n${dependency.successorId}`;
    if (pairs.has(pair)) throw validationFailed(`item ${index} repeats a dependency`);
    pairs.add(pair);
    if (dependency.id !== undefined) {
      const owner = state.dependencies.get(dependency.id);
      if (ids.has(dependency.id) || (owner !== undefined && owner.projectId !== project.id)) {
        throw validationFailed(`item ${index}: id ${dependency.id} is already used`);
      }
      ids.add(dependency.id);
    }
    return dependency;
  });
}

/** Checks a create- or update-resource body `{"name": ...}`. */
export function parseResource(body: unknown): { name: string } {
  return { name: nonEmptyString(requireObject(body), 'name') };
}
