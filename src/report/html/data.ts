/**
 * What the HTML report shows of each project, read from the views through the store's port in
 * one snapshot (`ReportsPort.html`): progress, the daily status counts (burndown and status over
 * time), the weekly load per member, and the overdue tasks; and the outbox items waiting in
 * conflict.
 */
import type { ReportsPort, Row } from '../../store/port.js';

/** Weeks of the heat map before and after today's week. */
export const HEAT_MAP_WEEKS_AROUND_TODAY = 26;
/** The most members and overdue tasks a page lists, so that a project prints on one page. */
export const PAGE_MEMBER_ROWS = 10;
export const PAGE_OVERDUE_ROWS = 12;

/** One project's page. */
export interface ProjectPage {
  progress: Row;
  days: string[];
  openTasks: number[];
  openTaskDays: number[];
  statuses: Array<{ label: string; values: number[] }>;
  weeks: string[];
  members: Array<{ label: string; values: number[] }>;
  /** Members with load beyond those listed. */
  moreMembers: number;
  overdue: Row[];
  overdueTotal: number;
}

/** The whole report: today, its zone, and a page per project. */
export interface HtmlReportData {
  day: string;
  timezone: string;
  projects: ProjectPage[];
  /** Outbox items waiting in conflict: local edits the service changed under (issue 21). */
  conflicts: Row[];
}

/** Reads the report of every project (or `projectId`'s) in one snapshot. */
export async function gatherHtmlReport(
  reports: ReportsPort,
  options: { projectId?: string | undefined; limit?: number | undefined } = {},
): Promise<HtmlReportData> {
  const { limit } = options;
  const read = await reports.html({
    projectId: options.projectId,
    limit,
    overdueRows: Math.min(limit ?? PAGE_OVERDUE_ROWS, PAGE_OVERDUE_ROWS),
  });
  // Each of these views is read whole: then split by project.
  const daily = byProject(read.daily);
  const weekly = byProject(read.weekly);
  const projects = read.projects.map(({ progress, overdue }) => {
    const id = String(progress['project_id']);
    return {
      ...statusSeries(daily.get(id) ?? []),
      ...weekLoad(weekly.get(id) ?? [], read.day),
      progress,
      overdue,
      overdueTotal: Number(progress['overdue'] ?? 0),
    };
  });
  return { day: read.day, timezone: read.timezone, projects, conflicts: read.conflicts };
}

function byProject(rows: Row[]): Map<string, Row[]> {
  const map = new Map<string, Row[]>();
  for (const row of rows) {
    const id = String(row['project_id']);
    map.set(id, [...(map.get(id) ?? []), row]);
  }
  return map;
}

/** The days of a project's history, its open tasks and task-days per day, and each status's counts. */
function statusSeries(daily: Row[]) {
  const days = [...new Set(daily.map((row) => String(row['day'])))].sort();
  const dayIndex = new Map(days.map((day, i) => [day, i]));
  const openTasks = days.map(() => 0);
  const openTaskDays = days.map(() => 0);
  const byStatus = new Map<string, number[]>();
  for (const row of daily) {
    const i = dayIndex.get(String(row['day']))!;
    const status = row['status'] === null ? '(unknown)' : String(row['status']);
    const tasks = Number(row['tasks'] ?? 0);
    if (status !== 'Done') {
      openTasks[i]! += tasks;
      openTaskDays[i]! += Number(row['task_days'] ?? 0);
    }
    const values = byStatus.get(status) ?? days.map(() => 0);
    values[i] = tasks;
    byStatus.set(status, values);
  }
  return {
    days,
    openTasks,
    openTaskDays,
    statuses: orderStatuses([...byStatus].map(([label, values]) => ({ label, values }))),
  };
}

/** The heat map's weeks around today and each member's task-days in them. */
function weekLoad(rows: Row[], today: string) {
  const todayMs = Date.parse(`${today}T00:00:00Z`);
  const span = HEAT_MAP_WEEKS_AROUND_TODAY * 7 * 86_400_000;
  const near = rows.filter((row) => {
    const week = Date.parse(`${String(row['week_start'])}T00:00:00Z`);
    return Math.abs(week - todayMs) <= span;
  });
  const weeks = [...new Set(near.map((row) => String(row['iso_week'])))].sort();
  const weekIndex = new Map(weeks.map((week, i) => [week, i]));
  const byMember = new Map<string, number[]>();
  for (const row of near) {
    const label = String(row['member_name'] ?? row['member_id']);
    const values = byMember.get(label) ?? weeks.map(() => 0);
    values[weekIndex.get(String(row['iso_week']))!] = Number(row['task_days'] ?? 0);
    byMember.set(label, values);
  }
  const members = [...byMember]
    .map(([label, values]) => ({ label, values }))
    .sort((a, b) => sum(b.values) - sum(a.values) || a.label.localeCompare(b.label));
  return {
    weeks,
    members: members.slice(0, PAGE_MEMBER_ROWS),
    moreMembers: Math.max(members.length - PAGE_MEMBER_ROWS, 0),
  };
}

/** NotStarted, InProgress, Done first (bottom to top of the stack), then the others by name. */
function orderStatuses<T extends { label: string }>(statuses: T[]): T[] {
  const known = ['NotStarted', 'InProgress', 'Done'];
  const rank = (label: string) => (known.includes(label) ? known.indexOf(label) : known.length);
  return statuses.sort((a, b) => rank(a.label) - rank(b.label) || a.label.localeCompare(b.label));
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
