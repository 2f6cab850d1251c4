/** The `tasks` table with `task_assignees`, written with the history of what changed. */
import type { JsonObject, Task } from '../domain/index.js';
import type { Db } from './database.js';
import { TaskHistoryRepository, trackedChanges } from './task-history.js';
import {
  assigneesOf,
  dateColumn,
  numberColumn,
  sameJson,
  textColumn,
  timestampColumn,
} from './values.js';
import type { WriteContext } from './write-context.js';

/** What the mirror holds of one task. */
export interface StoredTask {
  projectId: string;
  name: string | null;
  updatedAt: string | null;
  /** The service's JSON text of the task. */
  data: string;
}

/** Reads and writes tasks and their assignees. */
export class TasksRepository {
  private readonly history: TaskHistoryRepository;
  private readonly findStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly clearAssigneesStmt;
  private readonly addAssigneeStmt;
  private readonly countStmt;

  constructor(db: Db, history: TaskHistoryRepository) {
    this.history = history;
    this.findStmt = db.prepare<[string], StoredTask>(
      `SELECT project_id AS projectId, name, updated_at AS updatedAt, data FROM tasks WHERE id = ?`,
    );
    this.insertStmt = db.prepare(
      `INSERT INTO tasks (id, project_id, name, start_date, end_date, status, progress, updated_at,
         data, synced_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    );
    this.updateStmt = db.prepare(
      `UPDATE tasks SET project_id = ?, name = ?, start_date = ?, end_date = ?, status = ?,
         progress = ?, updated_at = ?, data = ?, synced_at = ?
       WHERE id = ?`,
    );
    this.deleteStmt = db.prepare('DELETE FROM tasks WHERE id = ?');
    this.clearAssigneesStmt = db.prepare('DELETE FROM task_assignees WHERE task_id = ?');
    this.addAssigneeStmt = db.prepare(
      'INSERT INTO task_assignees (task_id, member_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
    );
    this.countStmt = db.prepare<[string], number>(
      'SELECT count(*) FROM tasks WHERE project_id = ?',
    );
    this.countStmt.pluck();
  }

  /** The mirror's copy of a task, if any. */
  find(taskId: string): StoredTask | undefined {
    return this.findStmt.get(taskId);
  }

  /**
   * Writes `task` of `projectId`, whose JSON text is `data`, unless the mirror already holds that
   * exact text; records its creation or the tracked fields that changed. True when it wrote.
   */
  put(projectId: string, task: Task, data: string, context: WriteContext): boolean {
    const old = this.findStmt.get(task.id);
    if (old === undefined) return this.insert(projectId, task, data, context);
    if (old.projectId === projectId && sameJson(old.data, data)) return false;
    this.updateStmt.run(projectId, ...columns(task), data, context.at, task.id);
    for (const change of trackedChanges(JSON.parse(old.data) as JsonObject, task)) {
      if (change.field === 'assignees') this.setAssignees(task.id, assigneesOf(task));
      this.history.append(task.id, projectId, change, context);
    }
    context.tally.rows += 1;
    return true;
  }

  /**
   * Like `put`, for a task most likely new (a first backfill): tries the insert first, which
   * spares a lookup per row, and falls back to `put` when the task is there already.
   */
  putNew(projectId: string, task: Task, data: string, context: WriteContext): boolean {
    return this.insert(projectId, task, data, context) || this.put(projectId, task, data, context);
  }

  /** Inserts a task that is not in the mirror yet; false (and nothing written) if it is. */
  private insert(projectId: string, task: Task, data: string, context: WriteContext): boolean {
    const row = [task.id, projectId, ...columns(task), data, context.at];
    if (this.insertStmt.run(row).changes === 0) return false;
    for (const memberId of assigneesOf(task)) this.addAssigneeStmt.run(task.id, memberId);
    this.history.append(task.id, projectId, created(textColumn(task.name)), context);
    context.tally.rows += 1;
    return true;
  }

  /** Deletes a task of `projectId` (its assignees go with it) and records it. True if it was there. */
  remove(projectId: string, taskId: string, context: WriteContext): boolean {
    const old = this.findStmt.get(taskId);
    if (old === undefined || old.projectId !== projectId) return false;
    this.deleteStmt.run(taskId);
    this.history.append(taskId, projectId, deleted(old.name), context);
    context.tally.rows += 1;
    return true;
  }

  /** How many tasks the mirror holds for a project. */
  count(projectId: string): number {
    return this.countStmt.get(projectId) ?? 0;
  }

  private setAssignees(taskId: string, memberIds: readonly string[]): void {
    this.clearAssigneesStmt.run(taskId);
    for (const memberId of memberIds) this.addAssigneeStmt.run(taskId, memberId);
  }
}

/** The typed columns of a task after `id, project_id`, up to `updated_at`. */
function columns(
  task: Task,
): [string | null, string | null, string | null, string | null, number | null, string | null] {
  return [
    textColumn(task.name),
    dateColumn(task.startDate),
    dateColumn(task.endDate),
    textColumn(task.status),
    numberColumn(task.progress),
    timestampColumn(task.updatedAt),
  ];
}

/** The history row of a creation: the new task's name. */
function created(name: string | null) {
  return { field: 'created', oldValue: null, newValue: name } as const;
}

/** The history row of a deletion: the deleted task's last name. */
function deleted(name: string | null) {
  return { field: 'deleted', oldValue: name, newValue: null } as const;
}
