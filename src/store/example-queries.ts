/**
 * The demo's example queries over the mirror, named here beside the tables they read: what
 * crosses the store's port is their answers (with their SQL text, to show), never SQL to run.
 */
import { connectionOf, type MirrorHandle } from './handle.js';

/** A query to show a person, with a line on what it answers. */
export interface ExampleQuery {
  title: string;
  sql: string;
}

/** An example's answer: its title and SQL text, its column names and its rows (as arrays). */
export interface ExampleAnswer extends ExampleQuery {
  columns: string[];
  rows: unknown[][];
}

/** The examples, in the order the demo shows them. */
export const EXAMPLE_QUERIES: readonly ExampleQuery[] = [
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

/** Runs every example over `mirror`, in order; each one's answer. */
export async function runExamples(mirror: MirrorHandle): Promise<ExampleAnswer[]> {
  const answers: ExampleAnswer[] = [];
  for (const query of EXAMPLE_QUERIES) {
    const statement = connectionOf(mirror).prepare(query.sql);
    const columns = (await statement.columns()).map((column) => column.name);
    answers.push({ ...query, columns, rows: (await statement.raw().all()) as unknown[][] });
  }
  return answers;
}
