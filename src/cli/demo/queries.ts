/** The example queries the demo runs against the mirror it built, shown with their results. */
import { table } from '../status/render.js';

/** A query to show a person, with a line on what it answers. */
export interface ExampleQuery {
  title: string;
  sql: string;
}

export const EXAMPLE_QUERIES: ExampleQuery[] = [
  {
    title: 'Tasks by status in each project',
    sql: `SELECT p.name AS project, t.status, count(*) AS tasks, round(avg(t.progress), 1) AS avg_progress
FROM tasks t JOIN projects p ON p.id = t.project_id
GROUP BY p.name, t.status ORDER BY p.name, t.status`,
  },
  {
    title: 'Open tasks that ended before today (overdue), latest first',
    sql: `SELECT t.id, t.name, t.end_date, t.status
FROM tasks t WHERE t.status <> 'Done' AND t.end_date < date('now')
ORDER BY t.end_date DESC LIMIT 5`,
  },
  {
    title: 'What the mirror observed change (task_history), newest first',
    sql: `SELECT task_id, field, old_value, new_value
FROM task_history ORDER BY id DESC LIMIT 6`,
  },
];

/** Renders `query`'s answer (column names, rows) as an aligned table. */
export function renderExample(
  query: ExampleQuery,
  { columns, rows }: { columns: string[]; rows: unknown[][] },
): string {
  const cells = rows.map((row) => row.map((value) => (value === null ? 'NULL' : String(value))));
  const body = rows.length === 0 ? '(no rows)' : table([columns, ...cells]);
  return `-- ${query.title}\n${query.sql};\n\n${body}`;
}
