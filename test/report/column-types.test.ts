import { describe, expect, it } from 'vitest';
import { documentedTypes, isFullTextIndex } from './column-types.js';
import { buildReportMirror } from './mirror.js';

describe('declared column types', () => {
  it('every column of every table and view of a synced mirror has a type of the documented map', async () => {
    const { db } = await buildReportMirror();
    const allowed = documentedTypes();
    expect([...allowed].sort()).toEqual([
      'BOOLEAN',
      'DATE',
      'INTEGER',
      'REAL',
      'TEXT',
      'TIMESTAMP',
    ]);
    const objects = db
      .prepare<[], { name: string; type: string }>(
        `SELECT name, type FROM sqlite_master
         WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      )
      .all()
      .filter((object) => !isFullTextIndex(object.name));
    expect(objects.map((o) => o.name)).toEqual(
      expect.arrayContaining(['tasks', 'v_tasks', 'v_task_status_daily', 'v_tasks_all']),
    );
    const untyped: string[] = [];
    let checked = 0;
    for (const { name } of objects) {
      const columns = db.pragma(`table_info("${name}")`) as Array<{ name: string; type: string }>;
      for (const column of columns) {
        checked += 1;
        if (!allowed.has(column.type)) untyped.push(`${name}.${column.name}: '${column.type}'`);
      }
    }
    expect(untyped).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });

  it('types what BI tools map: dates, times and flags, in tables and views alike', async () => {
    const { db } = await buildReportMirror();
    const typeOf = (object: string, column: string) =>
      (db.pragma(`table_info(${object})`) as Array<{ name: string; type: string }>).find(
        (c) => c.name === column,
      )?.type;
    expect(typeOf('tasks', 'end_date')).toBe('DATE');
    expect(typeOf('tasks', 'updated_at')).toBe('TIMESTAMP');
    expect(typeOf('projects', 'active')).toBe('BOOLEAN');
    expect(typeOf('v_tasks', 'is_done')).toBe('BOOLEAN');
    expect(typeOf('v_tasks', 'duration_days')).toBe('INTEGER');
    expect(typeOf('v_task_status_daily', 'day')).toBe('DATE');
    expect(typeOf('v_project_progress', 'percent_done')).toBe('REAL');
    expect(typeOf('v_tasks_all', 'startDate')).toBe('DATE');
    expect(typeOf('v_tasks_all', 'updatedAt')).toBe('TIMESTAMP');
    expect(typeOf('v_projects_all', 'active')).toBe('BOOLEAN');
    // The values stay what they were: ISO text and 0/1.
    const row = db
      .prepare(
        `SELECT is_done, end_date, typeof(end_date) AS t FROM v_tasks WHERE task_id = 't_a1'`,
      )
      .get();
    expect(row).toEqual({
      is_done: 1,
      end_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      t: 'text',
    });
  });
});
