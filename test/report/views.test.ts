import { describe, expect, it } from 'vitest';
import type { SqliteDb } from '../../src/store/database.js';
import { tempDatabase } from '../fixtures/db.js';
import { buildReportMirror, day } from './mirror.js';

function all(db: SqliteDb, sql: string): unknown[] {
  return db.prepare(sql).all();
}

/** Each day's counts as `status=count` text, NULL status as `?`, for one project. */
function dailyCounts(db: SqliteDb, projectId: string): Record<string, string> {
  const rows = db
    .prepare(
      `SELECT day, status, tasks FROM v_task_status_daily WHERE project_id = ?
       ORDER BY day, status`,
    )
    .all(projectId) as Array<{ day: string; status: string | null; tasks: number }>;
  const out: Record<string, string> = {};
  for (const row of rows) {
    const cell = `${row.status ?? '?'}=${row.tasks}`;
    out[row.day] = out[row.day] === undefined ? cell : `${out[row.day]} ${cell}`;
  }
  return out;
}

describe('reporting views over a mirror synced from the simulator', () => {
  it('give the expected numbers in every view', async () => {
    const { db, paintTaskId } = await buildReportMirror();

    expect(
      all(
        db,
        `SELECT project_id, project_name, tasks, not_started, in_progress, done, other_status,
           percent_done, avg_progress, overdue, last_sync_at IS NOT NULL AS synced
         FROM v_project_progress ORDER BY project_id`,
      ),
    ).toEqual([
      {
        project_id: 'p_alpha',
        project_name: 'Alpha Tower',
        tasks: 5,
        not_started: 1,
        in_progress: 1,
        done: 3,
        other_status: 0,
        percent_done: 60,
        avg_progress: 68,
        overdue: 1,
        synced: 1,
      },
      {
        project_id: 'p_bravo',
        project_name: 'Bravo Bridge',
        tasks: 3,
        not_started: 1,
        in_progress: 1,
        done: 1,
        other_status: 0,
        percent_done: 33.3,
        avg_progress: 40,
        overdue: 1,
        synced: 1,
      },
    ]);

    expect(all(db, 'SELECT * FROM v_overdue_tasks ORDER BY task_id')).toEqual([
      {
        task_id: 't_a5',
        project_id: 'p_alpha',
        project_name: 'Alpha Tower',
        task_name: 'Order windows\nand doors',
        end_date: day(-2),
        days_overdue: 2,
        status: 'NotStarted',
        progress: 0,
        assignee_ids: '["m_ann"]',
        assignee_names: '["Ann Lee"]',
        assignees: 'Ann Lee',
      },
      {
        task_id: 't_b2',
        project_id: 'p_bravo',
        project_name: 'Bravo Bridge',
        task_name: 'Permits',
        end_date: day(-1),
        days_overdue: 1,
        status: 'InProgress',
        progress: 20,
        assignee_ids: '["m_cy"]',
        assignee_names: '["Cy Park"]',
        assignees: 'Cy Park',
      },
    ]);

    expect(
      all(
        db,
        `SELECT project_id, member_id, member_name, open_tasks, overdue_tasks, done_tasks,
           open_task_days
         FROM v_member_workload WHERE member_kind = 'person' ORDER BY project_id, member_id`,
      ),
    ).toEqual([
      row('p_alpha', 'm_ann', 'Ann Lee', 1, 1, 2, 5),
      row('p_alpha', 'm_bob', 'Bob Stone', 1, 0, 2, 8),
      row('p_bravo', 'm_cy', 'Cy Park', 2, 1, 1, 12),
    ]);

    const tasks = db.prepare('SELECT * FROM v_tasks WHERE task_id = ?');
    expect(tasks.get('t_a2')).toMatchObject({
      project_name: 'Alpha Tower',
      task_name: 'Pour concrete',
      status: 'Done',
      assignee_ids: '["m_ann","m_bob"]',
      assignee_names: '["Ann Lee","Bob Stone"]',
      assignees: 'Ann Lee, Bob Stone',
      is_done: 1,
      is_overdue: 0,
      duration_days: 6,
    });
    expect(tasks.get('t_a5')).toMatchObject({ is_done: 0, is_overdue: 1, duration_days: 5 });
    expect(tasks.get(paintTaskId)).toMatchObject({ task_name: 'Paint', is_done: 1, is_overdue: 0 });
    expect(tasks.get('t_a4')).toBeUndefined();
    // Ending today is not overdue yet.
    expect(tasks.get('t_b3')).toMatchObject({ end_date: day(0), is_done: 0, is_overdue: 0 });
  });

  it('replay task history into status counts per day, from the baseline to today', async () => {
    const { db } = await buildReportMirror();

    // Day -3 is the baseline. "Inspect" (deleted on day -1, its status never seen to change)
    // counts under a NULL status until its deletion.
    expect(dailyCounts(db, 'p_alpha')).toEqual({
      [day(-3)]: '?=1 Done=1 InProgress=1 NotStarted=2',
      [day(-2)]: '?=1 Done=1 InProgress=2 NotStarted=2',
      [day(-1)]: '?=0 Done=2 InProgress=1 NotStarted=2',
      [day(0)]: '?=0 Done=3 InProgress=1 NotStarted=1',
    });
    expect(dailyCounts(db, 'p_bravo')).toEqual({
      [day(-3)]: 'Done=1 InProgress=0 NotStarted=2',
      [day(-2)]: 'Done=1 InProgress=0 NotStarted=2',
      [day(-1)]: 'Done=1 InProgress=1 NotStarted=1',
      [day(0)]: 'Done=1 InProgress=1 NotStarted=1',
    });
    // Today's counts are exactly the tasks the mirror holds now.
    const today = all(
      db,
      `SELECT project_id, status, tasks FROM v_task_status_daily
       WHERE day = date('now') AND tasks > 0 ORDER BY 1, 2`,
    );
    const held = all(
      db,
      'SELECT project_id, status, count(*) AS tasks FROM tasks GROUP BY 1, 2 ORDER BY 1, 2',
    );
    expect(today).toEqual(held);
  });
});

function row(
  project_id: string,
  member_id: string,
  member_name: string,
  open_tasks: number,
  overdue_tasks: number,
  done_tasks: number,
  open_task_days: number,
) {
  return {
    project_id,
    member_id,
    member_name,
    open_tasks,
    overdue_tasks,
    done_tasks,
    open_task_days,
  };
}

describe('v_task_assignees', () => {
  it("resolves each assignee against its task's project roster", () => {
    const { db } = tempDatabase();
    const at = '2026-11-22T00:00:00.000Z';
    db.prepare(
      `INSERT INTO projects (id, name, active, data, synced_at) VALUES ('p_1', 'P', 1, '{}', ?)`,
    ).run(at);
    db.prepare(
      `INSERT INTO tasks (id, project_id, name, data, synced_at) VALUES ('t_1', 'p_1', 'T', '{}', ?)`,
    ).run(at);
    db.prepare(
      `INSERT INTO members (project_id, id, name, kind, data, synced_at)
       VALUES ('p_1', 'm_on', 'Ada', 'person', '{}', ?)`,
    ).run(at);
    const assign = db.prepare(`INSERT INTO task_assignees (task_id, member_id) VALUES ('t_1', ?)`);
    assign.run('m_on');
    assign.run('m_gone');
    expect(
      all(
        db,
        `SELECT member_id, member_name, on_roster FROM v_task_assignees
         WHERE task_id = 't_1' ORDER BY member_id`,
      ),
    ).toEqual([
      { member_id: 'm_gone', member_name: null, on_roster: 0 },
      { member_id: 'm_on', member_name: 'Ada', on_roster: 1 },
    ]);
  });
});
