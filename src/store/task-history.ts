/** The append-only `task_history`: every observed creation, deletion and tracked field change. */
import type { JsonObject } from '../domain/index.js';
import type { Db } from './database.js';
import { UNSEEN } from './seen-tasks.js';
import { assigneesOf, historyText } from './values.js';
import type { WriteContext } from './write-context.js';

/** The `field` values of `task_history`. */
export type HistoryField =
  'created' | 'deleted' | 'name' | 'start_date' | 'end_date' | 'status' | 'progress' | 'assignees';

/** Tracked task fields: the history name and the service's JSON name. */
const TRACKED_FIELDS: ReadonlyArray<readonly [HistoryField, string]> = [
  ['name', 'name'],
  ['start_date', 'startDate'],
  ['end_date', 'endDate'],
  ['status', 'status'],
  ['progress', 'progress'],
];

/** One change of a tracked field: the history field with its old and new value as text. */
export interface FieldChange {
  field: HistoryField;
  oldValue: string | null;
  newValue: string | null;
}

/** The tracked changes between two versions of a task; assignees compared as sorted sets. */
export function trackedChanges(before: JsonObject, after: JsonObject): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const [field, key] of TRACKED_FIELDS) {
    const oldValue = historyText(before[key]);
    const newValue = historyText(after[key]);
    if (oldValue !== newValue) changes.push({ field, oldValue, newValue });
  }
  const oldAssignees = JSON.stringify(assigneesOf(before));
  const newAssignees = JSON.stringify(assigneesOf(after));
  if (oldAssignees !== newAssignees) {
    changes.push({ field: 'assignees', oldValue: oldAssignees, newValue: newAssignees });
  }
  return changes;
}

/** The one writer of `task_history`: appends, the deletions of a pass, and retention. */
export class TaskHistoryRepository {
  private readonly db: Db;
  private readonly insertStmt;
  private readonly pruneStmt;
  /** Prepared when first needed: it reads the TEMP table of a connection's passes. */
  private unseenStmt: ReturnType<Db['prepare']> | undefined;

  constructor(db: Db) {
    this.db = db;
    this.insertStmt = db.prepare(
      `INSERT INTO task_history (task_id, project_id, observed_at, field, old_value, new_value)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.pruneStmt = db.prepare('DELETE FROM task_history WHERE observed_at < ?');
  }

  /**
   * Records the deletion of each task of `projectId` its pass did not see (`seen_tasks`), just
   * before they are deleted, when the context records history.
   */
  async appendUnseenDeleted(projectId: string, context: WriteContext): Promise<void> {
    if (!context.history) return;
    this.unseenStmt ??= this.db.prepare(
      `INSERT INTO task_history (task_id, project_id, observed_at, field, old_value, new_value)
       SELECT id, project_id, @at, 'deleted', name, NULL FROM tasks WHERE ${UNSEEN}`,
    );
    context.tally.history += (await this.unseenStmt.run({ projectId, at: context.at })).changes;
  }

  /** Deletes history older than `days` before `now`; returns the rows removed. */
  async prune(now: number, days: number): Promise<number> {
    const cutoff = new Date(now - days * 86_400_000).toISOString();
    return (await this.pruneStmt.run(cutoff)).changes;
  }

  /** Records one change of a task, when the context records history. */
  async append(
    taskId: string,
    projectId: string,
    change: FieldChange,
    context: WriteContext,
  ): Promise<void> {
    if (!context.history) return;
    await this.insertStmt.run(
      taskId,
      projectId,
      context.at,
      change.field,
      change.oldValue,
      change.newValue,
    );
    context.tally.history += 1;
  }
}
