import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/index.js';
import { buildReport, renderReport } from '../../src/report/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import type { ReportsPort } from '../../src/store/port.js';
import { storeOver } from '../fixtures/store.js';
import { buildReportMirror, day } from './mirror.js';
import { asJsonRow } from './json.js';

describe('report', () => {
  it('prints both parts as aligned tables for a terminal', async () => {
    const { db } = await buildReportMirror();
    const text = await renderReport(await buildReport(reportsOf(db)), 'table');
    expect(text).toBe(
      [
        `Project progress (2 projects, ${day(0)} UTC)`,
        'PROJECT  NAME          TASKS  NOT STARTED  IN PROGRESS  DONE  % DONE  OVERDUE  LAST SYNC (UTC)',
        `p_alpha  Alpha Tower       5            1            1     3      60        1  ${day(0)} 00:00`,
        `p_bravo  Bravo Bridge      3            1            1     1    33.3        1  ${day(0)} 00:00`,
        '',
        `Overdue tasks: 2 (not Done, end date before ${day(0)})`,
        'PROJECT       TASK ID  TASK                      END DATE    DAYS LATE  STATUS      PROGRESS  ASSIGNEES',
        `Alpha Tower   t_a5     Order windows\\nand doors  ${day(-2)}          2  NotStarted         0  Ann Lee`,
        `Bravo Bridge  t_b2     Permits                   ${day(-1)}          1  InProgress        20  Cy Park`,
        '',
      ].join('\n'),
    );
  });

  it('nests each project overdue tasks in JSON, and filters by project', async () => {
    const { db } = await buildReportMirror();
    const parsed = JSON.parse(
      await renderReport(await buildReport(reportsOf(db), { projectId: 'p_bravo' }), 'json'),
    );
    const progress = db.prepare<[], Record<string, unknown>>(
      `SELECT * FROM v_project_progress WHERE project_id = 'p_bravo'`,
    );
    const overdue = db.prepare(
      `SELECT task_id, task_name, end_date, days_overdue, status, progress, assignee_ids,
         assignee_names, assignees
       FROM v_overdue_tasks WHERE project_id = 'p_bravo'`,
    );
    expect(parsed).toEqual([
      {
        ...asJsonRow(progress.get()!),
        overdue_tasks: overdue.all().map((row) => asJsonRow(row as Record<string, unknown>)),
      },
    ]);
    expect(parsed[0].overdue_tasks).toHaveLength(1);

    const table = await renderReport(
      await buildReport(reportsOf(db), { projectId: 'p_bravo' }),
      'table',
    );
    expect(table).toContain('Project progress (1 project,');
    expect(table).not.toContain('Alpha');
  });

  it('says so when nothing is overdue', async () => {
    const { db } = await buildReportMirror();
    db.exec(`UPDATE tasks SET status = 'Done'`);
    const text = await renderReport(await buildReport(reportsOf(db)), 'table');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      `Overdue tasks: 0 (not Done, end date before ${day(0)})`,
    );
  });
});

/** The reporting face of the store over `db`, as `report` asks it. */
function reportsOf(db: SqliteDb): ReportsPort {
  return storeOver(db, systemClock).reports;
}
