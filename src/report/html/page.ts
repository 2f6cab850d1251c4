/**
 * `report --html FILE`: one self-contained HTML page (inline CSS and SVG, no script, nothing
 * fetched) with, per project, its burndown, tasks by status over time, the workload per member
 * per week as a heat map, and the overdue tasks. It prints one project per page.
 */
import type { Row } from '../../store/port.js';
import { burndownChart, heatMap, statusChart } from './charts.js';
import type { HtmlReportData, ProjectPage } from './data.js';
import { escapeHtml } from './escape.js';

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, sans-serif; color: #111827; }
  body { margin: 16px; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 17px; margin: 0 0 6px; }
  h3 { font-size: 13px; margin: 0 0 4px; color: #374151; }
  .meta { color: #6b7280; font-size: 12px; margin-bottom: 12px; }
  section.project { border-top: 1px solid #d1d5db; padding-top: 10px; margin-top: 14px; }
  .figures { display: flex; gap: 18px; font-size: 12px; margin-bottom: 8px; flex-wrap: wrap; }
  .figures b { font-size: 15px; }
  .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 10px 18px; }
  .panel { min-width: 0; }
  svg.chart { width: 100%; height: auto; display: block; }
  table { border-collapse: collapse; width: 100%; font-size: 11px; }
  th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid #e5e7eb; }
  td.num { text-align: right; }
  .note { color: #6b7280; font-size: 11px; margin-top: 4px; }
  @page { size: A4 landscape; margin: 10mm; }
  @media print {
    body { margin: 0; }
    section.project { break-after: page; break-inside: avoid; border: 0; margin: 0; }
    section.project:last-of-type { break-after: auto; }
  }
`;

/** The whole page for `data`. */
export function renderHtmlReport(data: HtmlReportData): string {
  const title = `projmirror report, ${data.day}`;
  const sections =
    data.projects.length > 0
      ? data.projects.map(projectSection).join('\n')
      : '<p>No project in the mirror.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<div class="meta">Today is ${escapeHtml(data.day)} (${escapeHtml(data.timezone)}). ${data.projects.length} ${data.projects.length === 1 ? 'project' : 'projects'}.</div>
${conflictSection(data.conflicts)}
${sections}
</body>
</html>
`;
}

function projectSection(page: ProjectPage): string {
  const p = page.progress;
  const name = String(p['project_name'] ?? p['project_id']);
  const figures = [
    ['tasks', p['tasks']],
    ['not started', p['not_started']],
    ['in progress', p['in_progress']],
    ['done', p['done']],
    ['% done', p['percent_done'] ?? '-'],
    ['overdue', p['overdue']],
  ]
    .map(([label, value]) => `<span><b>${escapeHtml(String(value))}</b> ${label}</span>`)
    .join('');
  const more =
    page.moreMembers > 0 ? `<div class="note">and ${page.moreMembers} more members</div>` : '';
  return `<section class="project" data-project="${escapeHtml(String(p['project_id']))}">
<h2>${escapeHtml(name)} <small>${escapeHtml(String(p['project_id']))}</small></h2>
<div class="figures">${figures}</div>
<div class="grid">
<div class="panel"><h3>Burndown</h3>${burndownChart(page.days, page.openTasks, page.openTaskDays)}</div>
<div class="panel"><h3>Tasks by status over time</h3>${statusChart(page.days, page.statuses)}</div>
<div class="panel"><h3>Workload per member per week (task-days)</h3>${
    page.members.length > 0
      ? heatMap(page.weeks, page.members) + more
      : '<p class="note">No open task assigned.</p>'
  }</div>
<div class="panel"><h3>Overdue tasks (${page.overdueTotal})</h3>${overdueTable(page)}</div>
</div>
</section>`;
}

function overdueTable(page: ProjectPage): string {
  if (page.overdue.length === 0) return '<p class="note">Nothing is overdue.</p>';
  const rows = page.overdue.map((row: Row) => {
    const cells = [
      `<td>${escapeHtml(String(row['task_name'] ?? row['task_id']))}</td>`,
      `<td>${escapeHtml(String(row['end_date']))}</td>`,
      `<td class="num">${escapeHtml(String(row['days_overdue']))}</td>`,
      `<td>${escapeHtml(String(row['status'] ?? '-'))}</td>`,
      `<td>${escapeHtml(String(row['assignees'] ?? '-'))}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  const rest = page.overdueTotal - page.overdue.length;
  return `<table><thead><tr><th>Task</th><th>End date</th><th>Days late</th><th>Status</th><th>Assignees</th></tr></thead><tbody>${rows.join('')}</tbody></table>${
    rest > 0 ? `<div class="note">and ${rest} more</div>` : ''
  }`;
}

/** The outbox items in conflict, each with the reason naming its fields; nothing when none. */
function conflictSection(conflicts: readonly Row[]): string {
  if (conflicts.length === 0) return '';
  const rows = conflicts.map((row) => {
    const cells = [
      `<td class="num">${escapeHtml(String(row['id']))}</td>`,
      `<td>${escapeHtml(String(row['op']))}</td>`,
      `<td>${escapeHtml(String(row['project_id']))}</td>`,
      `<td>${escapeHtml(String(row['target_id'] ?? '-'))}</td>`,
      `<td>${escapeHtml(String(row['last_error'] ?? ''))}</td>`,
      `<td>${escapeHtml(String(row['queued_at']))}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<section class="conflicts">
<h2>Outbox items in conflict (${conflicts.length})</h2>
<p class="note">Edits queued here whose fields the service changed since: resolve each with projmirror outbox resolve ID --keep-local or --keep-remote.</p>
<table><thead><tr><th>Item</th><th>Op</th><th>Project</th><th>Target</th><th>Conflict</th><th>Queued at</th></tr></thead><tbody>${rows.join('')}</tbody></table>
</section>`;
}
