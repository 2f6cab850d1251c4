/**
 * The reporting views of `schema.sql` (its last section) as the report and export read them:
 * their names, a stable row order, and a reader that filters by project.
 */
import { connectionOf, type MirrorHandle } from './handle.js';
import type { Db } from './database.js';

/** A value as SQLite hands it back (better-sqlite3 without safe integers or blobs). */
export type SqlValue = string | number | null;

/** One row of a view: column name to value, in the view's column order. */
export type Row = Record<string, SqlValue>;

/** A view's rows with its column names (known even when there are no rows). */
export interface ViewRows {
  columns: string[];
  rows: Row[];
  /** Each column's declared type (`BOOLEAN`, `DATE`...), where the engine tells it. */
  types?: Record<string, string>;
}

/** The reporting views, in the order `export` writes them, each with its row order. */
export const REPORT_VIEWS = {
  v_project_progress: 'project_id',
  v_tasks: 'project_id, task_id',
  v_tasks_pending: 'project_id, task_id',
  v_overdue_tasks: 'project_id, end_date, task_id',
  v_overdue_assignments: 'project_id, end_date, task_id, member_id',
  v_member_workload: 'project_id, member_id',
  v_member_week_load: 'project_id, member_id, week_start',
  v_task_status_daily: 'project_id, day, status',
  v_dependencies: 'project_id, dependency_id',
} as const;

/** The name of a reporting view. */
export type ReportViewName = keyof typeof REPORT_VIEWS;

/** Every reporting view's name. */
export const REPORT_VIEW_NAMES = Object.keys(REPORT_VIEWS) as ReportViewName[];

/** Which rows to read: every project's, or one project's. */
export interface ViewFilter {
  projectId?: string | undefined;
}

/** Reads a view in its stable order (or `orderBy`), optionally for one project, at most `limit` rows. */
export async function readView(
  mirror: MirrorHandle,
  view: ReportViewName,
  filter: ViewFilter = {},
  orderBy: string = REPORT_VIEWS[view],
  limit?: number,
): Promise<ViewRows> {
  const { columns, types, statement, params } = await prepareView(
    connectionOf(mirror),
    view,
    filter,
    orderBy,
    limit,
  );
  return { columns, types, rows: await statement.all(params) };
}

/** Iterates a view's rows in its stable order without holding them all, for large exports. */
export async function iterateView(
  mirror: MirrorHandle,
  view: ReportViewName,
  filter: ViewFilter = {},
): Promise<{ columns: string[]; types: Record<string, string>; rows: AsyncIterableIterator<Row> }> {
  const db = connectionOf(mirror);
  const { columns, types, statement, params } = await prepareView(
    db,
    view,
    filter,
    REPORT_VIEWS[view],
  );
  return { columns, types, rows: statement.iterate(params) };
}

async function prepareView(
  db: Db,
  view: ReportViewName,
  filter: ViewFilter,
  orderBy: string,
  limit?: number,
) {
  const byProject = filter.projectId !== undefined;
  const statement = db.prepare<{ projectId?: string }, Row>(
    `SELECT * FROM ${view} ${byProject ? 'WHERE project_id = @projectId' : ''} ORDER BY ${orderBy}
     ${limit === undefined ? '' : `LIMIT ${Math.floor(limit)}`}`,
  );
  const described = await statement.columns();
  const types: Record<string, string> = {};
  for (const { name, type } of described) if (typeof type === 'string') types[name] = type;
  return {
    columns: described.map((column) => column.name),
    types,
    statement,
    params: byProject ? { projectId: filter.projectId } : {},
  };
}

/** Today as the views see it (`v_today`): the calendar day and the time zone it is taken in. */
export async function reportToday(
  mirror: MirrorHandle,
): Promise<{ day: string; timezone: string }> {
  return (await connectionOf(mirror)
    .prepare<[], { day: string; timezone: string }>(`SELECT day, timezone FROM v_today`)
    .get())!;
}

/** The outbox items waiting in conflict (`v_outbox_conflicts`), in queue order. */
export function readOutboxConflicts(mirror: MirrorHandle): Promise<Row[]> {
  return connectionOf(mirror)
    .prepare<[], Row>(
      'SELECT id, op, project_id, target_id, fields, last_error, queued_at FROM v_outbox_conflicts ORDER BY id',
    )
    .all();
}
