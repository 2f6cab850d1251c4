import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { encodeRows } from '../../src/store/task-pages.js';
import { pickRows, rowsOfKept, taskRows } from '../../src/store/task-rows.js';

const a = {
  id: 't1',
  projectId: 'p1',
  name: 'Pour',
  startDate: '2026-05-01',
  endDate: '2026-02-30',
  status: 'Done',
  progress: 100,
  assigneeIds: ['m2', 'm1', 'm2', 7],
  updatedAt: '2026-05-01 10:00:00+02:00',
} as unknown as Task;
const b = { id: 't2', projectId: 'p1', name: null, flagged: true } as unknown as Task;

describe('task rows: a page as the store writes it', () => {
  it('has the typed columns, the assignments and the fields of each task, in page order', () => {
    const rows = taskRows([a, b]);
    expect(rows).toEqual({
      ids: ['t1', 't2'],
      names: ['Pour', null],
      // Not a calendar date: NULL, as the typed column holds (the text stays in data).
      starts: ['2026-05-01', null],
      ends: [null, null],
      statuses: ['Done', null],
      progress: [100, null],
      updated: ['2026-05-01T08:00:00.000Z', null],
      texts: [JSON.stringify(a), JSON.stringify(b)],
      assignedTasks: ['t1', 't1'],
      assignedMembers: ['m1', 'm2'],
      fields: [
        ['id', 'text'],
        ['projectId', 'text'],
        ['name', 'text'],
        ['startDate', 'date'],
        ['endDate', 'date'],
        ['status', 'text'],
        ['progress', 'integer'],
        ['assigneeIds', 'json'],
        ['updatedAt', 'timestamp'],
        ['name', 'null'],
        ['flagged', 'boolean'],
      ],
    });
  });

  it('picks tasks with their own assignments only, and reads a kept page back', () => {
    const c = { id: 't3', projectId: 'p1', assigneeIds: ['m3'] } as unknown as Task;
    const rows = taskRows([a, b, c]);
    const picked = pickRows(rows, (id) => id !== 't1');
    expect(picked.ids).toEqual(['t2', 't3']);
    expect(picked.texts).toEqual([JSON.stringify(b), JSON.stringify(c)]);
    expect([picked.assignedTasks, picked.assignedMembers]).toEqual([['t3'], ['m3']]);
    // The fields of the rows kept only: t1's dates and progress are gone with it.
    expect(picked).toEqual(taskRows([b, c]));
    expect(pickRows(rows, () => true)).toBe(rows);
    expect(rowsOfKept(encodeRows(rows.texts))).toEqual(rows);
  });
});
