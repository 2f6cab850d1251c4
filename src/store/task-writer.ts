/**
 * The one writer of `tasks` and `task_assignees`, with the history of what changed. Every way a
 * task row is written goes through here, and the strategy is chosen here, by the engine: a
 * record at a time (an event, a fetched or confirmed record); a page at a time (SQLite: one
 * synchronous loop, better-sqlite3 answering each insert at once; PostgreSQL: a statement for
 * the page); backfill pages several at once (PostgreSQL only: one statement that keeps them,
 * notes their ids as seen and inserts their tasks, `putPagesAtOnce`); and the deletions.
 */
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject, Task } from '../domain/index.js';
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { leaseHeld } from './postgres/coordination.js';
import type { SeenTasks } from './seen-tasks.js';
import { pgMarkSeen, UNSEEN } from './seen-tasks.js';
import { sqliteOf } from './sqlite-connection.js';
import { pgBackfillProgress } from './sync-state.js';
import { TaskHistoryRepository, trackedChanges } from './task-history.js';
import { encodeRows, pgKeepPages } from './task-pages.js';
import { emptyRows, pickRows, taskColumns, taskRows, type TaskRows } from './task-rows.js';
import { TaskReads, type StoredTask } from './tasks.js';
import { assigneesOf, textColumn } from './values.js';
import { noteChangedAt, type WriteContext } from './write-context.js';

export type { StoredTask } from './tasks.js';

/** PostgreSQL's SQLSTATE for a unique violation: another writer inserted one of the ids. */
const UNIQUE_VIOLATION = '23505';

/** PostgreSQL: how many backfill pages one statement writes, when they come together. */
export const PAGES_PER_STATEMENT = 2;

/**
 * How a page of tasks is written (`putPage`): `kept`, rows read again from a kept page (most
 * held); `fresh`, rows just received by a backfill (most new: the insert is tried first); `new`,
 * SQLite only, every row inserted or none (false, and nothing written, when one is held).
 */
export type PageWay = 'kept' | 'fresh' | 'new';

/** One page of a backfill's write, as `putPagesAtOnce` takes it. */
export interface BackfillPageWrite {
  page: number;
  etag: string | undefined;
  totalCount: number | null;
  /** Every task of the page, in page order (all are noted as seen). */
  rows: TaskRows;
  /** The ids among `rows` to write (those no write during the pass holds a later copy of). */
  write: ReadonlySet<string>;
}

/** Consecutive pages of a backfill written as one unit of work, as `putPagesAtOnce` takes them. */
export interface BackfillPagesWrite {
  projectId: string;
  /** The daemon whose lease must be held (`ProjectFence.holder`); undefined for a sole owner. */
  holder: string | undefined;
  pageSize: number;
  /** The pages, in read order (at most `PAGES_PER_STATEMENT`). */
  pages: readonly BackfillPageWrite[];
  /** ISO-8601 UTC time of the write. */
  at: string;
}

/** Writes tasks and their assignees (and reads them: `TaskReads`). */
export class TaskWriter extends TaskReads {
  private readonly db: Db;
  private readonly history: TaskHistoryRepository;
  private readonly seen: SeenTasks;
  private readonly updateStmt;
  private readonly updateUnindexedStmt;
  private readonly deleteStmt;
  private readonly deleteUnseenStmt;
  private readonly clearAssigneesStmt;
  private readonly addAssigneeStmt;
  /** PostgreSQL: a page's inserts and its assignees in two statements. */
  private readonly pgPage;
  /** SQLite: a page's inserts run in one synchronous loop (`insertRows`). */
  private readonly sqliteInsert;
  /** PostgreSQL: the statement writing backfill pages at once, for each number of pages. */
  private readonly atOnce = new Map<number, ReturnType<Db['prepare']>>();

  constructor(db: Db, history: TaskHistoryRepository, seen: SeenTasks) {
    super(db);
    this.db = db;
    this.history = history;
    this.seen = seen;
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
    this.deleteUnseenStmt = db.prepare(`DELETE FROM tasks WHERE ${UNSEEN}`);
    this.clearAssigneesStmt = db.prepare('DELETE FROM task_assignees WHERE task_id = ?');
    this.addAssigneeStmt = db.prepare(ADD_ASSIGNEE);
    this.pgPage =
      dialectOf(db) === 'postgres'
        ? {
            insert: db.prepare(`${PG_INSERT_PAGE} ON CONFLICT (id) DO NOTHING RETURNING id`),
            assign: db.prepare(`${PG_ASSIGN_PAGE} ON CONFLICT DO NOTHING`),
          }
        : undefined;
    const sqlite = sqliteOf(db);
    this.sqliteInsert = sqlite && {
      task: sqlite.prepare(INSERT_TASK),
      assignee: sqlite.prepare(ADD_ASSIGNEE),
      remove: sqlite.prepare('DELETE FROM tasks WHERE id = ?'),
    };
  }

  /** True where backfill pages can be written several at once (`putPagesAtOnce`): PostgreSQL. */
  get writesPagesAtOnce(): boolean {
    return this.pgPage !== undefined;
  }

  /**
   * Writes `task` of `projectId`, whose JSON text is `data`, unless the mirror already holds that
   * exact text; records its creation or the tracked fields that changed. True when it wrote.
   * `read` is the mirror's copy when the caller has just read it (`find`): read once.
   */
  async put(
    projectId: string,
    task: Task,
    data: string,
    context: WriteContext,
    read?: { held: StoredTask | undefined },
  ): Promise<boolean> {
    const held = read === undefined ? await this.find(task.id) : read.held;
    await context.fields.note('tasks', [task], context.at);
    return this.putOver(held, projectId, task, data, context);
  }

  /**
   * Writes a page of tasks (see `PageWay`); only the tasks that changed are written (and parsed).
   * False only for `new` when a task was held: nothing was written then.
   */
  async putPage(
    projectId: string,
    rows: TaskRows,
    context: WriteContext,
    way: PageWay,
  ): Promise<boolean> {
    if (way === 'new') return await this.insertAllNew(projectId, rows, context);
    await context.fields.noteShapes('tasks', rows.fields, context.at);
    if (rows.ids.length === 0) return true;
    if (way === 'kept') {
      const held = await this.findEach(rows.ids);
      for (let i = 0; i < rows.ids.length; i++) {
        await this.putText(held[i], projectId, rows.texts[i]!, context);
      }
      return true;
    }
    const inserted = await this.insertPage(projectId, rows, context.at);
    // Without history a creation is only counted: no promise a row for the page of a backfill.
    if (!context.history) context.tally.rows += inserted.size;
    if (!context.history && inserted.size === rows.ids.length) return true;
    for (let i = 0; i < rows.ids.length; i++) {
      if (!inserted.has(rows.ids[i]!)) {
        const held = await this.find(rows.ids[i]!);
        await this.putText(held, projectId, rows.texts[i]!, context);
      } else if (context.history) {
        await this.noteCreated(projectId, rows.ids[i]!, rows.names[i]!, context);
      }
    }
    return true;
  }

  /**
   * SQLite: inserts every task of `rows`, a page of a backfill, when the mirror holds none of
   * them and none repeats (true); otherwise writes nothing (false), stopping at the first task
   * held.
   */
  private async insertAllNew(
    projectId: string,
    rows: TaskRows,
    context: WriteContext,
  ): Promise<boolean> {
    if (this.insertRows(projectId, rows, context.at, true) === undefined) return false;
    // Only now: a page that repeats a task of the read writes nothing but what marked it.
    await context.fields.noteShapes('tasks', rows.fields, context.at);
    context.tally.rows += rows.ids.length;
    return true;
  }

  /** Deletes a task of `projectId` (its assignees go with it) and records it. True if it was there. */
  async remove(projectId: string, taskId: string, context: WriteContext): Promise<boolean> {
    const old = await this.find(taskId);
    if (old === undefined || old.projectId !== projectId) return false;
    await this.deleteStmt.run(taskId);
    await this.history.append(taskId, projectId, deleted(old.name), context);
    context.tally.rows += 1;
    return true;
  }

  /** Deletes (and records) the project's tasks its pass did not see; returns how many. */
  async removeUnseen(projectId: string, context: WriteContext): Promise<number> {
    await this.seen.settle(projectId);
    await this.history.appendUnseenDeleted(projectId, context);
    const removed = (await this.deleteUnseenStmt.run({ projectId })).changes;
    context.tally.rows += removed;
    return removed;
  }

  /**
   * PostgreSQL: writes backfill pages in one statement if every one of their tasks is new to the
   * mirror and to this read, and the lease is held: true, and the pages are committed together
   * (kept, their ids seen, the backfill's progress, their tasks and assignees). False, with
   * nothing written, otherwise: the caller writes each page in a transaction. Never called
   * inside a transaction.
   */
  async putPagesAtOnce(input: BackfillPagesWrite): Promise<boolean> {
    const { pages } = input;
    const written = joinRows(pages.map(({ rows, write }) => pickRows(rows, (id) => write.has(id))));
    const values: Record<string, unknown> = {
      projectId: input.projectId,
      holder: input.holder ?? null,
      seen: pages.flatMap(({ rows }) => rows.ids),
      pageSize: input.pageSize,
      lastPage: pages[pages.length - 1]!.page,
      totalCount: pages.reduce<number | null>((total, page) => page.totalCount ?? total, null),
      at: input.at,
      ...pageArrays(written),
      ...pageAssignments(written),
    };
    pages.forEach((page, i) => {
      values[`page${i}`] = page.page;
      values[`etag${i}`] = page.etag ?? null;
      values[`rowCount${i}`] = page.rows.ids.length;
      // The page as kept is the JSON array the insert reads its tasks from: sent once.
      values[`data${i}`] = encodeRows(page.rows.texts);
    });
    try {
      const ok = await this.pagesStatement(pages.length).pluck().get(values);
      // The session reads booleans as SQLite does: 1 and 0.
      return ok === 1;
    } catch (error) {
      // The statement ran alone (never inside a transaction, which its failure would abort):
      // nothing of it was written, and the session goes on.
      if ((error as { sqlState?: unknown }).sqlState === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  private pagesStatement(pages: number) {
    let statement = this.atOnce.get(pages);
    if (statement === undefined) {
      statement = this.db.prepare(pagesAtOnce(pages));
      this.atOnce.set(pages, statement);
    }
    return statement;
  }

  /** `putOver` for a task known by its JSON text: parsed once, only when it differs from `old`'s. */
  private async putText(
    old: StoredTask | undefined,
    projectId: string,
    text: string,
    context: WriteContext,
  ): Promise<boolean> {
    if (old !== undefined && old.projectId === projectId && old.data === text) return false;
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
    if (old.projectId === projectId && old.data === data) return false;
    // The mirror's copy parsed once: compared by value with `task` (the value of `data`; a
    // PostgreSQL `jsonb` copy has its own spelling), then diffed for the history.
    const before = JSON.parse(old.data) as JsonObject;
    if (old.projectId === projectId && isDeepStrictEqual(before, task)) return false;
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
    if (this.pgPage === undefined) throw new Error('no page insert for this engine');
    const page = { projectId, at, ...pageArrays(rows), data: encodeRows(rows.texts) };
    for (const id of (await this.pgPage.insert.pluck().all(page)) as string[]) inserted.add(id);
    const assigned = pageAssignments(pickRows(rows, (id) => inserted.has(id)));
    if (assigned.tasks.length > 0) await this.pgPage.assign.run(assigned);
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
const PG_INSERT_PAGE = pgInsertTasks('jsonb_array_elements(@data::jsonb)');

/**
 * `PG_INSERT_PAGE` with the tasks' JSON taken from `data`, a FROM item of one `jsonb` column (each
 * task's object): several pages' arrays joined, say.
 */
function pgInsertTasks(data: string): string {
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
const PG_ASSIGN_PAGE = `INSERT INTO task_assignees (task_id, member_id)
  SELECT task_id, member_id FROM unnest(@tasks::text[], @members::text[]) AS a (task_id, member_id)`;

/** The typed columns' parameters of `PG_INSERT_PAGE` for `rows` (the caller adds `@data`). */
function pageArrays(rows: TaskRows) {
  const { ids, names, starts, ends, statuses, progress, updated } = rows;
  return { ids, names, starts, ends, statuses, progress, updated };
}

/** The parameters of `PG_ASSIGN_PAGE` for the assignees of `rows`' tasks. */
function pageAssignments(rows: TaskRows) {
  return { tasks: rows.assignedTasks, members: rows.assignedMembers };
}

/** The rows of several pages as one page's, in order. */
function joinRows(pages: readonly TaskRows[]): TaskRows {
  if (pages.length === 1) return pages[0]!;
  const joined = emptyRows();
  for (const rows of pages) {
    for (const key of Object.keys(joined) as Array<keyof TaskRows>) {
      (joined[key] as unknown[]).push(...(rows[key] as unknown[]));
    }
  }
  return joined;
}

/**
 * The statement writing `pages` backfill pages. Every part is conditioned on `go`: the lease is
 * held (`leaseHeld`, its row locked for the statement), no id of the pages is in `tasks` or
 * already seen in this read, and none repeats within them. The seen ids are looked up one by one
 * (LATERAL ... LIMIT 1, an index probe each): the TEMP table has no statistics, and `id = ANY
 * (...)` made the planner scan every id the read had seen, a cost growing with each page (7 ms at
 * page 150 of 200). Each page is kept with its own ETag and JSON array (`@data0`, `@data1`...),
 * from which the insert takes the tasks' JSON too. The assignees' foreign key is checked at the
 * statement's end, after the tasks' insert. As a transaction of separate statements a page is
 * eight round trips to the server, each costing its latency twice over a network (benchmark 9c).
 */
function pagesAtOnce(pages: number): string {
  const each = (part: (i: number) => string, glue: string) =>
    Array.from({ length: pages }, (_, i) => part(i)).join(glue);
  const kept = each(
    (i) => `SELECT @page${i}::integer, @etag${i}::text, @rowCount${i}::integer, @data${i}::text`,
    ' UNION ALL ',
  );
  const tasks = each((i) => `SELECT jsonb_array_elements(@data${i}::jsonb) AS data`, ' UNION ALL ');
  const go = '(SELECT ok FROM go)';
  return `
WITH go AS (
  SELECT (@holder::text IS NULL OR ${leaseHeld('@projectId', '@holder')})
    AND NOT EXISTS (SELECT 1 FROM tasks WHERE id = ANY (@seen::text[]))
    AND NOT EXISTS (
      SELECT 1 FROM unnest(@seen::text[]) AS s (id),
        LATERAL (SELECT 1 FROM seen_tasks t WHERE t.project_id = @projectId AND t.id = s.id
                 LIMIT 1) AS hit)
    AND cardinality(@seen::text[]) = (SELECT count(DISTINCT id) FROM unnest(@seen::text[]) AS s (id))
    AS ok
),
seen AS (${pgMarkSeen(`SELECT id FROM unnest(@seen::text[]) AS u (id) WHERE ${go}`)}),
kept AS (${pgKeepPages(kept, go)}),
progress AS (${pgBackfillProgress(go)}),
inserted AS (${pgInsertTasks(`(${tasks})`)} WHERE ${go}),
assigned AS (${PG_ASSIGN_PAGE} WHERE ${go} ON CONFLICT DO NOTHING)
SELECT ok FROM go`;
}

/** The history row of a creation: the new task's name. */
function created(name: string | null) {
  return { field: 'created', oldValue: null, newValue: name } as const;
}

/** The history row of a deletion: the deleted task's last name. */
function deleted(name: string | null) {
  return { field: 'deleted', oldValue: name, newValue: null } as const;
}
