/**
 * The `report`: each project's progress and its overdue tasks, read from the views in one read
 * transaction (one snapshot, even while the daemon writes), rendered for people or programs.
 */
import type { Db } from '../store/database.js';
import { csvLines, jsonLines, renderTable, type TableColumn } from './format.js';
import {
  readView,
  reportDay,
  type Row,
  type SqlValue,
  type ViewFilter,
  type ViewRows,
} from './views.js';

/** The output formats of `report`. */
export const REPORT_FORMATS = ['table', 'csv', 'json'] as const;

/** One of `REPORT_FORMATS`. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** What a report shows: `v_project_progress` and `v_overdue_tasks` rows, as of `day`. */
export interface Report {
  /** Today (UTC) as the views saw it: tasks ending before it and not done are overdue. */
  day: string;
  progress: ViewRows;
  overdue: ViewRows;
}

/** The columns of a project's row kept out of each of its nested overdue tasks in JSON. */
const PROJECT_COLUMNS = ['project_id', 'project_name'];

const PROGRESS_ORDER = 'project_name COLLATE NOCASE, project_id';
const OVERDUE_ORDER = 'project_name COLLATE NOCASE, project_id, end_date, task_name, task_id';

const PROGRESS_TABLE: TableColumn[] = [
  { key: 'project_id', label: 'PROJECT' },
  { key: 'project_name', label: 'NAME' },
  { key: 'tasks', label: 'TASKS', right: true },
  { key: 'not_started', label: 'NOT STARTED', right: true },
  { key: 'in_progress', label: 'IN PROGRESS', right: true },
  { key: 'done', label: 'DONE', right: true },
  { key: 'other_status', label: 'OTHER', right: true },
  { key: 'percent_done', label: '% DONE', right: true },
  { key: 'overdue', label: 'OVERDUE', right: true },
  { key: 'last_sync_at', label: 'LAST SYNC (UTC)' },
];

const OVERDUE_TABLE: TableColumn[] = [
  { key: 'project_name', label: 'PROJECT' },
  { key: 'task_id', label: 'TASK ID' },
  { key: 'task_name', label: 'TASK' },
  { key: 'end_date', label: 'END DATE' },
  { key: 'days_overdue', label: 'DAYS LATE', right: true },
  { key: 'status', label: 'STATUS' },
  { key: 'progress', label: 'PROGRESS', right: true },
  { key: 'assignees', label: 'ASSIGNEES' },
];

/** Reads the report of every project, or of `filter.projectId`, in one snapshot. */
export function buildReport(db: Db, filter: ViewFilter = {}): Report {
  return db.transaction(() => ({
    day: reportDay(db),
    progress: readView(db, 'v_project_progress', filter, PROGRESS_ORDER),
    overdue: readView(db, 'v_overdue_tasks', filter, OVERDUE_ORDER),
  }))();
}

/**
 * Renders a report. `table`: both parts, aligned, for a terminal. `csv`: the project progress
 * table alone (one RFC 4180 table; overdue tasks are in `export`). `json`: an array of the
 * projects' progress objects, each with its `overdue_tasks` array.
 */
export function renderReport(report: Report, format: ReportFormat): string {
  switch (format) {
    case 'table':
      return renderReportTable(report);
    case 'csv':
      return [...csvLines(report.progress.columns, report.progress.rows)].join('');
    case 'json':
      return [...jsonLines(nestOverdue(report))].join('');
  }
}

/** A project's progress row with its overdue tasks, as `report --format json` prints it. */
export type ProjectReportObject = { [column: string]: SqlValue | Row[] };

/** The JSON shape: each progress row with `overdue_tasks`, its overdue rows without project columns. */
export function nestOverdue(report: Report): ProjectReportObject[] {
  const byProject = new Map<SqlValue, Row[]>();
  for (const row of report.overdue.rows) {
    const task = Object.fromEntries(
      Object.entries(row).filter(([column]) => !PROJECT_COLUMNS.includes(column)),
    );
    const projectId = row['project_id'] ?? null;
    const list = byProject.get(projectId) ?? [];
    list.push(task);
    byProject.set(projectId, list);
  }
  return report.progress.rows.map((row) => ({
    ...row,
    overdue_tasks: byProject.get(row['project_id'] ?? null) ?? [],
  }));
}

function renderReportTable(report: Report): string {
  const { progress, overdue, day } = report;
  const hasOther = progress.rows.some((row) => Number(row['other_status']) > 0);
  const columns = PROGRESS_TABLE.filter((column) => column.key !== 'other_status' || hasOther);
  const rows = progress.rows.map((row) => ({
    ...row,
    last_sync_at: shortTime(row['last_sync_at']),
  }));
  const parts = [
    `Project progress (${progress.rows.length} ${plural(progress.rows.length, 'project')}, ${day} UTC)`,
    progress.rows.length > 0 ? renderTable(columns, rows) : 'No project in the mirror.\n',
    `Overdue tasks: ${overdue.rows.length} (not Done, end date before ${day})`,
  ];
  if (overdue.rows.length > 0) parts.push(renderTable(OVERDUE_TABLE, overdue.rows));
  return parts.join('\n').replace(/\n*$/, '\n');
}

/** `2026-11-21T09:30:12.345Z` as `2026-11-21 09:30`. */
function shortTime(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 16).replace('T', ' ') : null;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
