import { describe, expect, it } from 'vitest';
import type { SqliteDb } from '../../src/store/database.js';
import { makeTask } from './fake-remote.js';
import { put, remove, setup } from './helpers.js';

function history(db: SqliteDb) {
  return db
    .prepare(
      `SELECT task_id AS taskId, field, old_value AS oldValue, new_value AS newValue, observed_at AS at
       FROM task_history ORDER BY id`,
    )
    .all() as Array<{
    taskId: string;
    field: string;
    oldValue: string | null;
    newValue: string | null;
    at: string;
  }>;
}

describe('task history', () => {
  it('writes none for the first backfill: it is the baseline', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 600);
    const result = await mirror.syncProject('p1');
    expect(result).toMatchObject({ ok: true, backfill: true, historyWritten: 0, tasks: 600 });
    expect(history(db)).toEqual([]);
  });

  it('records each kind of change a later pass observes', async () => {
    const { db, remote, clock, mirror } = setup();
    remote.seed('p1', 4);
    await mirror.syncProject('p1');
    const tasks = remote.tasks.get('p1')!;
    Object.assign(tasks[0]!, {
      name: 'Pour concrete',
      startDate: '2026-02-01',
      endDate: '2026-02-03',
    });
    Object.assign(tasks[1]!, { status: 'Done', progress: 100, assigneeIds: ['m2', 'm1', 'm2'] });
    tasks[2]!.updatedAt = '2026-03-01T00:00:00.000Z';
    tasks.splice(3, 1);
    tasks.push(makeTask('p1-t9', { name: 'Inspect' }));
    await clock.advance(1000);
    const at = new Date(clock.now()).toISOString();

    const result = await mirror.syncProject('p1');

    expect(result).toMatchObject({ ok: true, backfill: false, rowsWritten: 5 });
    expect(history(db)).toEqual([
      { taskId: 'p1-t1', field: 'name', oldValue: 'Task p1-t1', newValue: 'Pour concrete', at },
      { taskId: 'p1-t1', field: 'start_date', oldValue: '2026-01-05', newValue: '2026-02-01', at },
      { taskId: 'p1-t1', field: 'end_date', oldValue: '2026-01-09', newValue: '2026-02-03', at },
      { taskId: 'p1-t2', field: 'status', oldValue: 'NotStarted', newValue: 'Done', at },
      { taskId: 'p1-t2', field: 'progress', oldValue: '0', newValue: '100', at },
      { taskId: 'p1-t2', field: 'assignees', oldValue: '["m1"]', newValue: '["m1","m2"]', at },
      { taskId: 'p1-t9', field: 'created', oldValue: null, newValue: 'Inspect', at },
      { taskId: 'p1-t4', field: 'deleted', oldValue: 'Task p1-t4', newValue: null, at },
    ]);
    expect(result.historyWritten).toBe(8);
    const assignees = db.prepare(
      'SELECT member_id FROM task_assignees WHERE task_id = ? ORDER BY 1',
    );
    expect(assignees.pluck().all('p1-t2')).toEqual(['m1', 'm2']);
    const updated = db.prepare('SELECT updated_at FROM tasks WHERE id = ?').pluck();
    expect(updated.get('p1-t3')).toBe('2026-03-01T00:00:00.000Z');
  });

  it('records changes and deletions applied from events, once the baseline exists', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 2);
    await mirror.syncProject('p1');
    const task = { ...remote.tasks.get('p1')![0]!, progress: 50, status: 'InProgress' };
    expect(await put(mirror, 'p1', 'task', task)).toBe('changed');
    expect(await put(mirror, 'p1', 'task', task)).toBe('unchanged');
    expect(await remove(mirror, 'p1', 'task', 'p1-t2')).toBe('changed');
    expect(await remove(mirror, 'p1', 'task', 'p1-t2')).toBe('unchanged');
    expect(await put(mirror, 'p1', 'task', makeTask('p1-new'))).toBe('changed');
    expect(history(db).map((h) => [h.taskId, h.field, h.oldValue, h.newValue])).toEqual([
      ['p1-t1', 'status', 'NotStarted', 'InProgress'],
      ['p1-t1', 'progress', '0', '50'],
      ['p1-t2', 'deleted', 'Task p1-t2', null],
      ['p1-new', 'created', null, 'Task p1-new'],
    ]);
  });

  it('writes no history for events before the project has its baseline', async () => {
    const { db, remote, mirror } = setup();
    remote.seed('p1', 1);
    remote.beforeCall = async (call) => {
      if (call.route === 'listTasks') throw new Error('down');
    };
    await mirror.syncProject('p1');
    expect(await put(mirror, 'p1', 'task', makeTask('p1-x'))).toBe('changed');
    expect(history(db)).toEqual([]);
  });
});
