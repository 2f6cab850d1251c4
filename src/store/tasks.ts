/** The `tasks` table with `task_assignees`, written with the history of what changed. */
import type { JsonObject, Task } from '../domain/index.js';
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { sqliteOf } from './sqlite-connection.js';
import { TaskHistoryRepository, trackedChanges } from './task-history.js';
import { assigneesOf, sameJson, textColumn } from './values.js';
import { encodeRows } from './task-pages.js';
import { pickRows, taskColumns, taskRows, type TaskRows } from './task-rows.js';
import { noteChangedAt, type WriteContext } from './write-context.js';

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
  private readonly updateStmt;
  private readonly updateUnindexedStmt;
  private readonly deleteStmt;
  private readonly clearAssigneesStmt;
  private readonly addAssigneeStmt;
  private readonly countStmt;
  private readonly differsStmt;
  private readonly insertAllStmt;
  private readonly findAllStmt;
  private readonly addAssigneesStmt;
  /** SQLite: a page's inserts run in one synchronous loop (`insertPage`). */
  private readonly sqliteInsert;

  constructor(db: Db, history: TaskHistoryRepository) {
    this.history = history;
    this.findStmt = db.prepare<[string], StoredTask>(
      `SELECT project_id AS projectId, name, updated_at AS updatedAt, data FROM tasks WHERE id = ?`,
    );
    this.updateStmt = db.prepare(
      `UPDATE tasks SET project_id = ?, name = ?, start_date = ?, end_date = ?, status = ?,
         progress = ?, updated_at = ?, data = ?, synced_at = ?
       WHERE id = ?`,
    );
    // The columns no index holds: an update that leaves project_id, end_date and status as they
    // were rewrites the row's page alone, not a page of each index on the table.
    this.updateUnindexedStmt = db.prepare(
      `UPDATE tasks SET name = ?, start_date = ?, progress = ?, updated_at = ?, data = ?,
         synced_at = ?
       WHERE id = ?`,
    );
    this.deleteStmt = db.prepare('DELETE FROM tasks WHERE id = ?');
    this.clearAssigneesStmt = db.prepare('DELETE FROM task_assignees WHERE task_id = ?');
    this.addAssigneeStmt = db.prepare(ADD_ASSIGNEE);
    this.countStmt = db.prepare<[string], number>(
      'SELECT count(*) FROM tasks WHERE project_id = ?',
    );
    this.countStmt.pluck();
    this.differsStmt =
      dialectOf(db) === 'postgres'
        ? db.prepare(
            `SELECT 1 FROM unnest(@ids::text[], @texts::text[]) AS page (id, data)
             LEFT JOIN tasks t ON t.id = page.id
             WHERE t.id IS NULL OR t.project_id <> @projectId OR t.data <> page.data::jsonb
             LIMIT 1`,
          )
        : undefined;
    const postgres = dialectOf(db) === 'postgres';
    this.insertAllStmt = postgres
      ? db.prepare(`${PG_INSERT_PAGE} ON CONFLICT (id) DO NOTHING RETURNING id`)
      : undefined;
    this.findAllStmt = postgres
      ? db.prepare(
          `SELECT id, project_id AS projectId, name, updated_at AS updatedAt, data FROM tasks
           WHERE id = ANY (@ids::text[])`,
        )
      : undefined;
    this.addAssigneesStmt = postgres
      ? db.prepare(`${PG_ASSIGN_PAGE} ON CONFLICT DO NOTHING`)
      : undefined;
    const sqlite = sqliteOf(db);
    this.sqliteInsert = sqlite && {
      task: sqlite.prepare(INSERT_TASK),
      assignee: sqlite.prepare(ADD_ASSIGNEE),
      remove: sqlite.prepare('DELETE FROM tasks WHERE id = ?'),
    };
  }

  /** The mirror's copy of a task, if any. */
  async find(taskId: string): Promise<StoredTask | undefined> {
    return await this.findStmt.get(taskId);
  }

  /**
   * True when any of `rows` (a page's tasks and their JSON texts) is not in the mirror as is:
   * missing, of another project, or with other data. On PostgreSQL one statement for the page,
   * compared there (`jsonb`), instead of a round trip and two parses per task.
   */
  async anyDiffers(
    projectId: string,
    rows: ReadonlyArray<readonly [string, string]>,
  ): Promise<boolean> {
    if (rows.length === 0) return false;
    if (this.differsStmt === undefined) {
      for (const [taskId, text] of rows) {
        const held = await this.findStmt.get(taskId);
        if (held === undefined || held.projectId !== projectId || !sameJson(held.data, text)) {
          return true;
        }
      }
      return false;
    }
    const ids = rows.map(([taskId]) => taskId);
    const texts = rows.map(([, text]) => text);
    return (await this.differsStmt.get({ projectId, ids, texts })) !== undefined;
  }

  /**
   * Writes `task` of `projectId`, whose JSON text is `data`, unless the mirror already holds that
   * exact text; records its creation or the tracked fields that changed. True when it wrote.
   */
  async put(projectId: string, task: Task, data: string, context: WriteContext): Promise<boolean> {
    return this.putRead(await this.find(task.id), projectId, task, data, context);
  }

  /** `put` over `held`, the mirror's copy the caller has just read (`find`): read once. */
  async putRead(
    held: StoredTask | undefined,
    projectId: string,
    task: Task,
    data: string,
    context: WriteContext,
  ): Promise<boolean> {
    await context.fields.note('tasks', [task], context.at);
    return this.putOver(held, projectId, task, data, context);
  }

  /**
   * `put` for a page of tasks. On PostgreSQL the page's stored rows are read in one statement,
   * instead of one round trip per task; only the tasks that changed are written (and parsed).
   */
  async putAll(projectId: string, rows: TaskRows, context: WriteContext): Promise<void> {
    await context.fields.noteShapes('tasks', rows.fields, context.at);
    if (rows.ids.length === 0) return;
    const held = await this.findEach(rows.ids);
    for (let i = 0; i < rows.ids.length; i++) {
      await this.putText(held[i], projectId, rows.texts[i]!, context);
    }
  }

  /**
   * `put` for a page of tasks most likely new (a first backfill), trying the insert first
   * (`insertPage`); those already there go through `put`.
   */
  async putAllNew(projectId: string, rows: TaskRows, context: WriteContext): Promise<void> {
    await context.fields.noteShapes('tasks', rows.fields, context.at);
    if (rows.ids.length === 0) return;
    const inserted = await this.insertPage(projectId, rows, context.at);
    // Without history a creation is only counted: no promise a row for the page of a backfill.
    if (!context.history) context.tally.rows += inserted.size;
    if (!context.history && inserted.size === rows.ids.length) return;
    for (let i = 0; i < rows.ids.length; i++) {
      if (!inserted.has(rows.ids[i]!)) {
        const held = await this.findStmt.get(rows.ids[i]!);
        await this.putText(held, projectId, rows.texts[i]!, context);
      } else if (context.history) {
        await this.noteCreated(projectId, rows.ids[i]!, rows.names[i]!, context);
      }
    }
  }

  /**
   * SQLite: inserts every task of `rows`, a page of a backfill, when the mirror holds none of
   * them and none repeats (true); otherwise writes nothing (false), stopping at the first task
   * held.
   */
  async insertAllNew(projectId: string, rows: TaskRows, context: WriteContext): Promise<boolean> {
    if (this.insertRows(projectId, rows, context.at, true) === undefined) return false;
    // Only now: a page that repeats a task of the read writes nothing but what marked it.
    await context.fields.noteShapes('tasks', rows.fields, context.at);
    context.tally.rows += rows.ids.length;
    return true;
  }

  /** The mirror's copies of the tasks `ids`, in their order (undefined: not held). */
  private async findEach(ids: readonly string[]): Promise<Array<StoredTask | undefined>> {
    if (this.findAllStmt === undefined) {
      const held: Array<StoredTask | undefined> = [];
      for (const id of ids) held.push(await this.findStmt.get(id));
      return held;
    }
    const stored = (await this.findAllStmt.all({ ids })) as Array<StoredTask & { id: string }>;
    const byId = new Map(stored.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }

  /** `putOver` for a task known by its JSON text: parsed only when it differs from `old`'s. */
  private async putText(
    old: StoredTask | undefined,
    projectId: string,
    text: string,
    context: WriteContext,
  ): Promise<boolean> {
    if (old !== undefined && old.projectId === projectId && sameJson(old.data, text)) return false;
    return this.putOver(old, projectId, JSON.parse(text) as Task, text, context);
  }

  /** Writes `task` over `old`, the mirror's copy read just before (undefined: none). */
  private async putOver(
    old: StoredTask | undefined,
    projectId: string,
    task: Task,
    data: string,
    context: WriteContext,
  ): Promise<boolean> {
    if (old === undefined) return this.insert(projectId, task, data, context);
    if (old.projectId === projectId && sameJson(old.data, data)) return false;
    const before = JSON.parse(old.data) as JsonObject;
    const columns = taskColumns(task);
    const [name, start, end, status, progress, updated] = columns;
    const [, , oldEnd, oldStatus] = taskColumns(before as Task);
    if (old.projectId === projectId && end === oldEnd && status === oldStatus) {
      await this.updateUnindexedStmt.run(name, start, progress, updated, data, context.at, task.id);
    } else {
      await this.updateStmt.run(projectId, ...columns, data, context.at, task.id);
    }
    for (const change of trackedChanges(before, task)) {
      if (change.field === 'assignees') await this.setAssignees(task.id, assigneesOf(task));
      await this.history.append(task.id, projectId, change, context);
    }
    context.tally.rows += 1;
    noteChangedAt(context.tally, task.updatedAt);
    return true;
  }

  /**
   * Inserts the tasks of `rows` the mirror does not hold, with their assignees; the ids it
   * inserted. PostgreSQL: two statements for the page instead of two or more round trips per
   * task. SQLite: one synchronous loop, better-sqlite3 answering each insert at once (a promise
   * per row would cost more than the insert).
   */
  private async insertPage(projectId: string, rows: TaskRows, at: string): Promise<Set<string>> {
    if (this.sqliteInsert !== undefined) return this.insertRows(projectId, rows, at, false)!;
    const inserted = new Set<string>();
    const { insertAllStmt, addAssigneesStmt } = this;
    if (insertAllStmt === undefined || addAssigneesStmt === undefined) {
      throw new Error('no page insert for this engine');
    }
    const page = { projectId, at, ...pageArrays(rows), data: encodeRows(rows.texts) };
    for (const id of (await insertAllStmt.pluck().all(page)) as string[]) inserted.add(id);
    const assigned = pageAssignments(pickRows(rows, (id) => inserted.has(id)));
    if (assigned.tasks.length > 0) await addAssigneesStmt.run(assigned);
    return inserted;
  }

  /**
   * SQLite: inserts the tasks of `rows` the mirror does not hold, with their assignees, in one
   * synchronous loop; the ids inserted. With `whole`, stops at the first task held and deletes
   * those it inserted (undefined).
   */
  private insertRows(
    projectId: string,
    rows: TaskRows,
    at: string,
    whole: boolean,
  ): Set<string> | undefined {
    if (this.sqliteInsert === undefined)
      throw new Error('rows are inserted one by one on SQLite only');
    const { task, assignee, remove } = this.sqliteInsert;
    const { ids, names, starts, ends, statuses, progress, updated, texts } = rows;
    const inserted = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      // The values bound one by one, not as an array a row.
      const { changes } = task.run(
        id,
        projectId,
        names[i],
        starts[i],
        ends[i],
        statuses[i],
        progress[i],
        updated[i],
        texts[i],
        at,
      );
      if (changes === 1) inserted.add(id);
      else if (whole) {
        // The tasks just inserted go again (no assignee yet; the full-text triggers of an
        // insert and a delete of a task have one condition): cheaper than a savepoint, which
        // would copy every page the inserts touch to its journal.
        for (const added of inserted) remove.run(added);
        return undefined;
      }
    }
    rows.assignedTasks.forEach((taskId, i) => {
      if (inserted.has(taskId)) assignee.run(taskId, rows.assignedMembers[i]);
    });
    return inserted;
  }

  /** Inserts a task that is not in the mirror yet; false (and nothing written) if it is. */
  private async insert(
    projectId: string,
    task: Task,
    data: string,
    context: WriteContext,
  ): Promise<boolean> {
    const inserted = await this.insertPage(projectId, taskRows([task], [data]), context.at);
    if (!inserted.has(task.id)) return false;
    await this.noteCreated(projectId, task.id, textColumn(task.name), context);
    if (context.history) noteChangedAt(context.tally, task.updatedAt);
    return true;
  }

  /** A task new to the mirror: its creation in the history (when recorded), and the tally. */
  private async noteCreated(
    projectId: string,
    taskId: string,
    name: string | null,
    context: WriteContext,
  ): Promise<void> {
    if (context.history) await this.history.append(taskId, projectId, created(name), context);
    context.tally.rows += 1;
  }

  /** Deletes a task of `projectId` (its assignees go with it) and records it. True if it was there. */
  async remove(projectId: string, taskId: string, context: WriteContext): Promise<boolean> {
    const old = await this.findStmt.get(taskId);
    if (old === undefined || old.projectId !== projectId) return false;
    await this.deleteStmt.run(taskId);
    await this.history.append(taskId, projectId, deleted(old.name), context);
    context.tally.rows += 1;
    return true;
  }

  /** How many tasks the mirror holds for a project. */
  async count(projectId: string): Promise<number> {
    return (await this.countStmt.get(projectId)) ?? 0;
  }

  private async setAssignees(taskId: string, memberIds: readonly string[]): Promise<void> {
    await this.clearAssigneesStmt.run(taskId);
    for (const memberId of memberIds) await this.addAssigneeStmt.run(taskId, memberId);
  }
}

const INSERT_TASK = `INSERT INTO tasks (id, project_id, name, start_date, end_date, status,
    progress, updated_at, data, synced_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (id) DO NOTHING`;

const ADD_ASSIGNEE =
  'INSERT INTO task_assignees (task_id, member_id) VALUES (?, ?) ON CONFLICT DO NOTHING';

/**
 * PostgreSQL: a page of tasks inserted in one statement, from the arrays of `pageArrays` and the
 * parameters `@projectId` and `@at`; a caller adds its conflict clause or condition. The tasks'
 * JSON goes as one JSON array (`@data`, which may hold more tasks than `@ids`: a kept page), each
 * matched to its typed columns by id: an array of texts would have every quote of every task
 * escaped by the driver and unescaped by the server.
 */
export const PG_INSERT_PAGE = pgInsertTasks('jsonb_array_elements(@data::jsonb)');

/**
 * `PG_INSERT_PAGE` with the tasks' JSON taken from `data`, a FROM item of one `jsonb` column (each
 * task's object): several pages' arrays joined, say.
 */
export function pgInsertTasks(data: string): string {
  return `INSERT INTO tasks (id, project_id, name, start_date, end_date,
    status, progress, updated_at, data, synced_at)
  SELECT page.id, @projectId, page.name, page.start_date, page.end_date, page.status,
    page.progress, page.updated_at, task.data, @at
  FROM unnest(@ids::text[], @names::text[], @starts::date[], @ends::date[], @statuses::text[],
    @progress::float8[], @updated::timestamptz[])
    AS page (id, name, start_date, end_date, status, progress, updated_at)
  JOIN ${data} AS task (data) ON task.data ->> 'id' = page.id`;
}

/** PostgreSQL: the assignees of a page's tasks in one statement, from `pageAssignments`' arrays. */
export const PG_ASSIGN_PAGE = `INSERT INTO task_assignees (task_id, member_id)
  SELECT task_id, member_id FROM unnest(@tasks::text[], @members::text[]) AS a (task_id, member_id)`;

/** The typed columns' parameters of `PG_INSERT_PAGE` for `rows` (the caller adds `@data`). */
export function pageArrays(rows: TaskRows) {
  const { ids, names, starts, ends, statuses, progress, updated } = rows;
  return { ids, names, starts, ends, statuses, progress, updated };
}

/** The parameters of `PG_ASSIGN_PAGE` for the assignees of `rows`' tasks. */
export function pageAssignments(rows: TaskRows) {
  return { tasks: rows.assignedTasks, members: rows.assignedMembers };
}

/** The history row of a creation: the new task's name. */
function created(name: string | null) {
  return { field: 'created', oldValue: null, newValue: name } as const;
}

/** The history row of a deletion: the deleted task's last name. */
function deleted(name: string | null) {
  return { field: 'deleted', oldValue: name, newValue: null } as const;
}
