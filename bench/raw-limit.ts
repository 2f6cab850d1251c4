/**
 * The raw limit of a cold sync: the same page bodies the simulator serves, fetched beforehand, then
 * `JSON.parse` of each page and a plain better-sqlite3 insert loop into the same schema (task rows
 * with their typed columns and JSON text, and their assignee rows), one transaction per page.
 * Nothing else: no HTTP, no ETags, no kept pages, no validation.
 */
import type { Task } from '../src/domain/index.js';
import { since, tempMirror } from './harness.js';

/** Rows per page, as the mirror asks for them. */
export const RAW_PAGE_SIZE = 500;

/** Fetches every task page of `projectId` as text (untimed). */
export async function fetchPages(
  baseUrl: string,
  token: string,
  projectId: string,
  taskCount: number,
): Promise<string[]> {
  const pages: string[] = [];
  const count = Math.ceil(taskCount / RAW_PAGE_SIZE);
  for (let page = 1; page <= count; page += 1) {
    const url = `${baseUrl}/projects/${projectId}/tasks?page=${page}&pageSize=${RAW_PAGE_SIZE}`;
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`raw fetch of page ${page}: HTTP ${response.status}`);
    pages.push(await response.text());
  }
  return pages;
}

/** Parses and inserts `pages` into a fresh mirror; resolves to the tasks per second. */
export function rawInsertRate(projectId: string, pages: readonly string[]): number {
  const mirror = tempMirror();
  try {
    const { db } = mirror;
    const at = new Date().toISOString();
    db.prepare(
      'INSERT INTO projects (id, name, active, data, synced_at) VALUES (?, ?, 1, ?, ?)',
    ).run(projectId, projectId, '{}', at);
    const insertTask = db.prepare(
      `INSERT INTO tasks (id, project_id, name, start_date, end_date, status, progress,
         updated_at, data, synced_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertAssignee = db.prepare(
      'INSERT INTO task_assignees (task_id, member_id) VALUES (?, ?)',
    );
    const writePage = db.transaction((rows: Task[]) => {
      for (const task of rows) {
        insertTask.run(
          task.id,
          projectId,
          task.name,
          task.startDate,
          task.endDate,
          task.status,
          task.progress,
          task.updatedAt ?? null,
          JSON.stringify(task),
          at,
        );
        for (const member of task.assigneeIds ?? []) insertAssignee.run(task.id, member);
      }
    });
    const start = performance.now();
    let tasks = 0;
    for (const text of pages) {
      const rows = JSON.parse(text) as Task[];
      writePage(rows);
      tasks += rows.length;
    }
    return tasks / (since(start) / 1_000);
  } finally {
    mirror.dispose();
  }
}
