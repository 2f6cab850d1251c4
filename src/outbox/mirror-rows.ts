/**
 * The few mirror writes the outbox makes when the service confirms an edit: upsert or delete one
 * task (with its assignees and history), dependency or resource. Minimal SQL of our own, kept here
 * until `src/store` offers repositories for these tables.
 */
import type { Dependency, JsonObject, Resource, Task } from '../domain/index.js';
import type { Db } from '../store/database.js';

interface TaskRow {
  name: string | null;
  start_date: string | null;
  end_date: string | null;
  status: string | null;
  progress: number | null;
  updated_at: string | null;
}

/** The task fields whose changes go to `task_history`, by column. */
const TRACKED_FIELDS = ['name', 'start_date', 'end_date', 'status', 'progress'] as const;

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function taskColumns(task: Task): TaskRow {
  const str = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    name: str(task.name),
    start_date: str(task.startDate),
    end_date: str(task.endDate),
    status: str(task.status),
    progress: typeof task.progress === 'number' ? task.progress : null,
    updated_at: str(task.updatedAt),
  };
}

function assigneesOf(task: JsonObject): string[] {
  const ids = task['assigneeIds'];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string').sort() : [];
}

function readAssignees(db: Db, taskId: string): string[] {
  return db
    .prepare('SELECT member_id FROM task_assignees WHERE task_id = ? ORDER BY member_id')
    .pluck()
    .all(taskId) as string[];
}

/** True when the mirror has a row for this project (tasks and others reference it). */
export function projectIsMirrored(db: Db, projectId: string): boolean {
  return db.prepare('SELECT 1 FROM projects WHERE id = ?').get(projectId) !== undefined;
}

/**
 * Writes a task the service returned, with its assignees, and records what changed. A row the
 * mirror already holds with a later `updatedAt` (say, from a realtime event) is left alone.
 */
export function upsertTask(db: Db, projectId: string, task: Task, at: string): void {
  const old = db
    .prepare(
      'SELECT name, start_date, end_date, status, progress, updated_at FROM tasks WHERE id = ?',
    )
    .get(task.id) as TaskRow | undefined;
  const row = taskColumns(task);
  if (old?.updated_at && row.updated_at && old.updated_at > row.updated_at) return;
  db.prepare(
    `INSERT INTO tasks (id, project_id, name, start_date, end_date, status, progress, updated_at,
       data, synced_at)
     VALUES (@id, @projectId, @name, @start_date, @end_date, @status, @progress, @updated_at,
       @data, @at)
     ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, name = excluded.name,
       start_date = excluded.start_date, end_date = excluded.end_date, status = excluded.status,
       progress = excluded.progress, updated_at = excluded.updated_at, data = excluded.data,
       synced_at = excluded.synced_at`,
  ).run({ ...row, id: task.id, projectId, data: JSON.stringify(task), at });
  const oldAssignees = old === undefined ? [] : readAssignees(db, task.id);
  const newAssignees = assigneesOf(task);
  db.prepare('DELETE FROM task_assignees WHERE task_id = ?').run(task.id);
  const insert = db.prepare('INSERT INTO task_assignees (task_id, member_id) VALUES (?, ?)');
  for (const memberId of new Set(newAssignees)) insert.run(task.id, memberId);

  const history = historyWriter(db, task.id, projectId, at);
  if (old === undefined) history('created', null, row.name);
  for (const field of TRACKED_FIELDS) {
    const before = old === undefined ? null : text(old[field]);
    if (before !== text(row[field])) history(field, before, text(row[field]));
  }
  const before = JSON.stringify(oldAssignees);
  const after = JSON.stringify(newAssignees);
  if (before !== after) history('assignees', old === undefined ? null : before, after);
}

/** Removes a task (its assignees go with it) and records the deletion. */
export function deleteTask(db: Db, projectId: string, taskId: string, at: string): void {
  const name = db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(taskId) as
    string | null | undefined;
  if (name === undefined) return;
  db.prepare('DELETE FROM tasks WHERE id = ?').run(taskId);
  historyWriter(db, taskId, projectId, at)('deleted', name, null);
}

function historyWriter(db: Db, taskId: string, projectId: string, at: string) {
  const insert = db.prepare(
    `INSERT INTO task_history (task_id, project_id, observed_at, field, old_value, new_value)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return (field: string, oldValue: string | null, newValue: string | null) =>
    insert.run(taskId, projectId, at, field, oldValue, newValue);
}

/** Writes a dependency the service returned. */
export function upsertDependency(db: Db, projectId: string, dep: Dependency, at: string): void {
  const str = (value: unknown) => (typeof value === 'string' ? value : null);
  db.prepare(
    `INSERT INTO dependencies (project_id, id, predecessor_id, successor_id, type, data, synced_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, id) DO UPDATE SET predecessor_id = excluded.predecessor_id,
       successor_id = excluded.successor_id, type = excluded.type, data = excluded.data,
       synced_at = excluded.synced_at`,
  ).run(
    projectId,
    dep.id,
    str(dep.predecessorId),
    str(dep.successorId),
    str(dep.type),
    JSON.stringify(dep),
    at,
  );
}

/** Replaces the project's whole set of dependencies with the service's list. */
export function replaceDependencies(
  db: Db,
  projectId: string,
  deps: Dependency[],
  at: string,
): void {
  db.prepare('DELETE FROM dependencies WHERE project_id = ?').run(projectId);
  for (const dep of deps) upsertDependency(db, projectId, dep, at);
}

/** Writes a resource the service returned. */
export function upsertResource(db: Db, projectId: string, resource: Resource, at: string): void {
  db.prepare(
    `INSERT INTO resources (project_id, id, name, data, synced_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (project_id, id) DO UPDATE SET name = excluded.name, data = excluded.data,
       synced_at = excluded.synced_at`,
  ).run(
    projectId,
    resource.id,
    typeof resource.name === 'string' ? resource.name : null,
    JSON.stringify(resource),
    at,
  );
}

/** Removes one dependency or resource row. */
export function deleteProjectRow(
  db: Db,
  table: 'dependencies' | 'resources',
  projectId: string,
  id: string,
): void {
  db.prepare(`DELETE FROM ${table} WHERE project_id = ? AND id = ?`).run(projectId, id);
}
