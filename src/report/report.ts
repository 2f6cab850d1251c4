/**
 * The `report`: each project's progress and its overdue tasks, read from the views through the
 * store's port in one snapshot (even while the daemon writes), rendered for people or programs.
 */
import {
  csvLines,
  joined,
  jsonLines,
  jsonRecord,
  renderTable,
  type CsvOptions,
  type TableColumn,
} from './format.js';
import type { ReportOptions, ReportRows, ReportsPort, SqlValue } from '../store/port.js';

export type { ReportOptions } from '../store/port.js';

/** The output formats of `report` (`--html` writes a page besides). */
export const REPORT_FORMATS = ['table', 'csv', 'json'] as const;

/** One of `REPORT_FORMATS`. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** What a report shows: `v_project_progress` and `v_overdue_tasks` rows, as of `day`. */
export type Report = ReportRows;

/** The columns of a project's row kept out of each of its nested overdue tasks in JSON. */
const PROJECT_COLUMNS = ['project_id', 'project_name'];

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

/** Reads the report of every project, or of `options.projectId`, in one snapshot. */
export function buildReport(reports: ReportsPort, options: ReportOptions = {}): Promise<Report> {
  return reports.report(options);
}

/**
 * Renders a report. `table`: both parts, aligned, for a terminal. `csv`: the project progress
 * table alone (one RFC 4180 table; overdue tasks are in `export`). `json`: an array of the
 * projects' progress objects, each with its `overdue_tasks` array.
 */
export async function renderReport(
  report: Report,
  format: ReportFormat,
  csv: CsvOptions = {},
): Promise<string> {
  switch (format) {
    case 'table':
      return renderReportTable(report);
    case 'csv':
      return joined(csvLines(report.progress.columns, report.progress.rows, csv));
    case 'json':
      return joined(jsonLines(nestOverdue(report)));
  }
}

/** A project's progress row with its overdue tasks, as `report --json` prints it. */
export type ProjectReportObject = Record<string, unknown> & { overdue_tasks: unknown[] };

/**
 * The JSON shape: each progress row with `overdue_tasks`, its overdue rows without project
 * columns; booleans as booleans and lists as arrays (`jsonRecord`).
 */
export function nestOverdue(report: Report): ProjectReportObject[] {
  const byProject = new Map<SqlValue, Record<string, unknown>[]>();
  for (const row of report.overdue.rows) {
    const task = jsonRecord(
      Object.fromEntries(
        Object.entries(row).filter(([column]) => !PROJECT_COLUMNS.includes(column)),
      ),
      report.overdue.types,
    );
    const projectId = row['project_id'] ?? null;
    const list = byProject.get(projectId) ?? [];
    list.push(task);
    byProject.set(projectId, list);
  }
  return report.progress.rows.map((row) => ({
    ...jsonRecord(row, report.progress.types),
    overdue_tasks: byProject.get(row['project_id'] ?? null) ?? [],
  }));
}

function renderReportTable(report: Report): string {
  const { progress, overdue, day, timezone, totals } = report;
  const hasOther = progress.rows.some((row) => Number(row['other_status']) > 0);
  const columns = PROGRESS_TABLE.filter((column) => column.key !== 'other_status' || hasOther);
  const rows = progress.rows.map((row) => ({
    ...row,
    last_sync_at: shortTime(row['last_sync_at']),
  }));
  const parts = [
    `Project progress (${totals.projects} ${plural(totals.projects, 'project')}, ${day} ${timezone})`,
    progress.rows.length > 0 ? renderTable(columns, rows) : 'No project in the mirror.\n',
  ];
  if (progress.rows.length < totals.projects)
    parts.push(more(totals.projects, progress.rows.length));
  parts.push(`Overdue tasks: ${totals.overdue} (not Done, end date before ${day})`);
  if (overdue.rows.length > 0) parts.push(renderTable(OVERDUE_TABLE, overdue.rows));
  if (overdue.rows.length < totals.overdue) parts.push(more(totals.overdue, overdue.rows.length));
  return parts.join('\n').replace(/\n*$/, '\n');
}

function more(total: number, shown: number): string {
  return `... and ${total - shown} more (--limit ${shown})\n`;
}

/** `2026-11-21T09:30:12.345Z` as `2026-11-21 09:30`. */
function shortTime(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 16).replace('T', ' ') : null;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
