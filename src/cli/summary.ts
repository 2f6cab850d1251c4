/** The one closing summary of `sync` and `push`: an object for `--json`, and its line. */
import type { SyncReport } from '../mirror/index.js';
import type { PushReport } from '../outbox/index.js';
import { grouped, plural } from './plural.js';

/** What `sync --json` prints: the totals, then each project's result. */
export interface SyncSummary {
  ok: boolean;
  /** Why no project could be synced (the listing failed). */
  error?: string;
  consistent: number;
  failed: string[];
  tasks: number;
  requests: number;
  pagesRead: number;
  pagesNotModified: number;
  rowsWritten: number;
  removedProjects: string[];
  /** Listed projects another daemon sharing a PostgreSQL mirror holds (it mirrors them). */
  heldElsewhere: string[];
  durationMs: number;
  projects: SyncReport['projects'];
}

/** The summary of a sync that took `durationMs`. */
export function syncSummary(report: SyncReport, durationMs: number): SyncSummary {
  const sum = (key: 'tasks' | 'pagesRead' | 'pagesNotModified' | 'rowsWritten') =>
    report.projects.reduce((total, project) => total + project[key], 0);
  return {
    ok: report.ok,
    ...(report.error === undefined ? {} : { error: report.error }),
    consistent: report.projects.filter((project) => project.ok).length,
    failed: report.projects.filter((project) => !project.ok).map((project) => project.projectId),
    tasks: sum('tasks'),
    requests: report.requests,
    pagesRead: sum('pagesRead'),
    pagesNotModified: sum('pagesNotModified'),
    rowsWritten: sum('rowsWritten'),
    removedProjects: report.removedProjects,
    heldElsewhere: report.heldElsewhere ?? [],
    durationMs,
    // A pass's `changedAt` (up to thousands of instants, for the staleness histogram) stays out.
    projects: report.projects.map(({ changedAt: _changedAt, ...project }) => project),
  };
}

/** `sync: 2 projects consistent, 1 failed; 4,360 tasks; 45 requests (12 of 20 pages answered 304); ...` */
export function syncSummaryLine(summary: SyncSummary): string {
  const parts = [
    `${plural(summary.consistent, 'project')} consistent, ${summary.failed.length} failed`,
    plural(summary.tasks, 'task'),
    `${plural(summary.requests, 'request')} (${grouped(summary.pagesNotModified)} of ${plural(summary.pagesRead, 'page')} answered 304)`,
    `${plural(summary.rowsWritten, 'row')} written`,
  ];
  if (summary.removedProjects.length > 0) {
    parts.push(`${plural(summary.removedProjects.length, 'project')} no longer listed, removed`);
  }
  if (summary.heldElsewhere.length > 0) {
    parts.push(
      `${plural(summary.heldElsewhere.length, 'project')} held by other daemons, left to them`,
    );
  }
  parts.push(seconds(summary.durationMs));
  return `sync: ${parts.join('; ')}`;
}

/** What `push --json` prints. */
export interface PushSummary extends PushReport {
  ok: boolean;
  durationMs: number;
}

/** The summary of a push that took `durationMs`: ok when none is left pending. */
export function pushSummary(report: PushReport, durationMs: number): PushSummary {
  return { ok: report.pending === 0 && report.conflicts === 0, ...report, durationMs };
}

/** `push: 4 done, 1 failed, 1 in conflict, 0 left pending; 7 requests; 0.3 s` */
export function pushSummaryLine(summary: PushSummary): string {
  const elsewhere =
    summary.heldElsewhere > 0 ? `, ${summary.heldElsewhere} left to other daemons` : '';
  const conflicts = summary.conflicts > 0 ? `, ${summary.conflicts} in conflict` : '';
  const items = `${summary.done} done, ${summary.failed} failed${conflicts}, ${summary.pending} left pending${elsewhere}`;
  return `push: ${items}; ${plural(summary.requests, 'request')}; ${seconds(summary.durationMs)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
