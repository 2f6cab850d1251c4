import { describe, expect, it } from 'vitest';
import { buildRequest, OUTBOX_OPS, type ItemInput } from '../../src/domain/outbox-ops.js';
import { newTask, newTaskJson } from './tasks.js';

const KEY = '6f1c2d3e-0000-4000-8000-000000000001';

function build(op: string, body: unknown, targetId: string | null = null) {
  const item: ItemInput = {
    op,
    projectId: 'p_1',
    targetId,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    idempotencyKey: KEY,
  };
  return buildRequest(item);
}

function requestOf(op: string, body: unknown, targetId: string | null = null) {
  const built = build(op, body, targetId);
  if (!built.ok) throw new Error(`expected a valid item, got ${built.message}`);
  return built.request;
}

function problemOf(op: string, body: unknown, targetId: string | null = null): string {
  const built = build(op, body, targetId);
  if (built.ok) throw new Error(`expected ${op} ${JSON.stringify(body)} to be refused`);
  return `${built.code}: ${built.message}`;
}

describe('outbox ops become requests', () => {
  it('maps every op to its route, parameters and body', () => {
    const task = newTask('Pour');
    const cases: [string, unknown, string | null, string, Record<string, string>][] = [
      ['task.create', task, null, 'createTask', { projectId: 'p_1' }],
      ['task.update', { progress: 50 }, 't_1', 'updateTask', { taskId: 't_1' }],
      ['task.delete', {}, 't_1', 'deleteTask', { taskId: 't_1' }],
      ['task.set_assignees', { assigneeIds: ['m_1'] }, 't_1', 'setAssignees', { taskId: 't_1' }],
      ['task.reorder', { taskIds: ['t_2', 't_1'] }, null, 'reorderTasks', { projectId: 'p_1' }],
      [
        'dependency.add',
        { predecessorId: 't_1', successorId: 't_2', type: 'FS' },
        null,
        'addDependency',
        { projectId: 'p_1' },
      ],
      ['dependency.remove', {}, 'd_1', 'removeDependency', { dependencyId: 'd_1' }],
      [
        'dependency.set',
        [{ predecessorId: 't_1', successorId: 't_2' }],
        null,
        'setDependencies',
        { projectId: 'p_1' },
      ],
      ['resource.create', { name: 'Crane' }, null, 'createResource', { projectId: 'p_1' }],
      ['resource.update', { name: 'Crane 2' }, 'r_1', 'updateResource', { resourceId: 'r_1' }],
      ['resource.delete', {}, 'r_1', 'deleteResource', { resourceId: 'r_1' }],
    ];
    expect(cases.map(([op]) => op)).toEqual([...OUTBOX_OPS]);
    for (const [op, body, target, route, params] of cases) {
      const request = requestOf(op, body, target);
      expect(request, op).toMatchObject({ route, params, projectId: 'p_1' });
      const bodiless = op.endsWith('delete') || op === 'dependency.remove';
      expect(request.body, op).toBe(bodiless ? undefined : JSON.stringify(body));
    }
  });

  it('gives Idempotency-Key to the three creates only', () => {
    const withKey = [
      requestOf('task.create', newTask('A')),
      requestOf('resource.create', { name: 'R' }),
      requestOf('dependency.add', { predecessorId: 't_1', successorId: 't_2' }),
    ];
    expect(withKey.map((request) => request.idempotencyKey)).toEqual([KEY, KEY, KEY]);
    expect(requestOf('task.update', { name: 'B' }, 't_1').idempotencyKey).toBeUndefined();
    expect(requestOf('task.reorder', { taskIds: ['t_1'] }).idempotencyKey).toBeUndefined();
  });

  it('sends the canonical JSON of the body and keeps unknown fields', () => {
    const text = newTaskJson('A').replace('{', '{ "colour" : "red",\n ');
    const request = requestOf('task.create', text);
    expect(request.body).toBe(JSON.stringify({ colour: 'red', ...newTask('A') }));
  });

  it('refuses unknown ops, missing targets and invalid bodies with a clear reason', () => {
    expect(problemOf('task.frobnicate', {})).toMatch(/^invalid_op: unknown op "task.frobnicate"/);
    expect(problemOf('task.update', { progress: 5 })).toBe(
      'missing_target: task.update needs a target id',
    );
    expect(problemOf('task.create', '{oops')).toBe('invalid_body: task.create body is not JSON');
    expect(problemOf('task.create', { startDate: '2026-05-01' })).toMatch(
      /needs name, endDate, status$/,
    );
    expect(problemOf('task.create', newTask('A', { startDate: '2026-02-30' }))).toMatch(
      /startDate must be a calendar date YYYY-MM-DD, not "2026-02-30"/,
    );
    expect(
      problemOf('task.create', newTask('A', { startDate: '2026-05-03', endDate: '2026-05-01' })),
    ).toMatch(/before startDate/);
    expect(problemOf('task.update', {}, 't_1')).toMatch(/nothing to update/);
    expect(problemOf('task.update', { colour: 'red' }, 't_1')).toMatch(
      /nothing to update: set one of name, startDate, endDate, status, progress, assigneeIds/,
    );
    expect(problemOf('task.update', { progress: '50' }, 't_1')).toMatch(/progress must be/);
    expect(problemOf('task.update', [1], 't_1')).toMatch(/must be a JSON object/);
    expect(problemOf('task.set_assignees', { assigneeIds: 'm_1' }, 't_1')).toMatch(/assigneeIds/);
    expect(problemOf('task.reorder', { taskIds: [] })).toMatch(/names no task/);
    expect(problemOf('dependency.add', { predecessorId: 't_1' })).toMatch(/successorId/);
    expect(problemOf('dependency.set', { predecessorId: 't_1' })).toMatch(/JSON array/);
    expect(problemOf('dependency.set', [{ predecessorId: 't_1', successorId: 't_1' }])).toMatch(
      /entry 0: a task cannot depend on itself/,
    );
    expect(problemOf('resource.create', {})).toMatch(/needs a name/);
    expect(problemOf('task.delete', { name: 'x' }, 't_1')).toMatch(/takes no body/);
  });
});
