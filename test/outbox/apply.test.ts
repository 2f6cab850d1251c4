import { describe, expect, it } from 'vitest';
import type { WriteResponse } from '../../src/domain/index.js';
import { type OutboxItem } from '../../src/outbox/index.js';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { mirrorAnswers } from '../fixtures/outbox.js';
import { OutboxRepository } from '../../src/store/outbox.js';
import type { SqliteDb } from '../../src/store/database.js';
import { inTransaction } from '../../src/store/handle.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { newTask } from './tasks.js';

function setup() {
  const { db } = tempDatabase();
  db.prepare(
    `INSERT INTO projects (id, name, active, data, synced_at) VALUES ('p_1', 'P', 1, '{}', 'x')`,
  ).run();
  db.prepare(`INSERT INTO sync_state (project_id, backfill) VALUES ('p_1', 'done')`).run();
  const clock = new FakeClock();
  const apply = mirrorAnswers(db, clock);
  const run = async (op: string, body: unknown, response: WriteResponse, targetId?: string) => {
    const { id } = await enqueue(db, { op, projectId: 'p_1', targetId: targetId ?? null, body }, 0);
    const item = (await new OutboxRepository(db).get(id)) as OutboxItem;
    const sent = { ...item, requestBody: JSON.stringify(body) };
    await inTransaction(db, () => apply(sent, response));
  };
  return { db, run };
}

const rows = (db: SqliteDb, sql: string) => db.prepare(sql).all();

describe("the outbox's answers, written by the mirror's writer", () => {
  it('upserts and removes resources and dependencies with their typed columns', async () => {
    const { db, run } = setup();
    await run(
      'resource.create',
      { name: 'Crane' },
      { status: 201, body: { id: 'r_1', name: 'Crane' } },
    );
    await run(
      'resource.create',
      { name: 'Van' },
      { status: 201, body: { id: 'r_2', name: 'Van' } },
    );
    await run(
      'resource.update',
      { name: 'Crane XL' },
      { status: 200, body: { id: 'r_1', name: 'Crane XL' } },
      'r_1',
    );
    await run('resource.delete', {}, { status: 204, body: null }, 'r_2');
    expect(rows(db, 'SELECT id, name, data FROM resources')).toEqual([
      { id: 'r_1', name: 'Crane XL', data: '{"id":"r_1","name":"Crane XL"}' },
    ]);
    const dep = { predecessorId: 't_1', successorId: 't_2', type: 'FS' };
    await run('dependency.add', dep, { status: 201, body: { id: 'd_1', ...dep } });
    expect(rows(db, 'SELECT id, predecessor_id, successor_id, type FROM dependencies')).toEqual([
      { id: 'd_1', predecessor_id: 't_1', successor_id: 't_2', type: 'FS' },
    ]);
    await run('dependency.set', [dep], { status: 200, body: [{ id: 'd_9', ...dep }] });
    expect(rows(db, 'SELECT id FROM dependencies')).toEqual([{ id: 'd_9' }]);
    await run('dependency.remove', {}, { status: 204, body: null }, 'd_9');
    expect(rows(db, 'SELECT id FROM dependencies')).toEqual([]);
  });

  it('applies set assignees from the task returned, or from the list sent when none is', async () => {
    const { db, run } = setup();
    const task = { id: 't_1', name: 'A', assigneeIds: ['m_1'], updatedAt: '2026-01-01T00:00:00Z' };
    await run('task.create', newTask('A'), { status: 201, body: task });
    await run(
      'task.set_assignees',
      { assigneeIds: ['m_3', 'm_2'] },
      { status: 204, body: null },
      't_1',
    );
    expect(rows(db, 'SELECT member_id FROM task_assignees ORDER BY 1')).toEqual([
      { member_id: 'm_2' },
      { member_id: 'm_3' },
    ]);
    const history = rows(db, `SELECT field, old_value, new_value FROM task_history ORDER BY id`);
    expect(history).toEqual([
      { field: 'created', old_value: null, new_value: 'A' },
      { field: 'assignees', old_value: '["m_1"]', new_value: '["m_2","m_3"]' },
    ]);
  });

  it('keeps a task the mirror holds with a later updatedAt, and refuses a body without an id', async () => {
    const { db, run } = setup();
    const newer = { id: 't_1', name: 'New', updatedAt: '2026-01-02T00:00:00Z' };
    await run('task.create', newTask('New'), { status: 201, body: newer });
    const older = { id: 't_1', name: 'Old', updatedAt: '2026-01-01T00:00:00Z' };
    await run('task.update', { name: 'Old' }, { status: 200, body: older }, 't_1');
    expect(rows(db, 'SELECT name FROM tasks')).toEqual([{ name: 'New' }]);
    await expect(
      run('task.update', { name: 'X' }, { status: 200, body: { ok: true } }, 't_1'),
    ).rejects.toThrow(/malformed response: expected the task with an id, got \{"ok":true\}/);
  });

  it('skips projects the mirror does not hold yet', async () => {
    const { db } = setup();
    const apply = mirrorAnswers(db, new FakeClock());
    const { id } = await enqueue(
      db,
      { op: 'task.create', projectId: 'p_new', body: newTask('A') },
      0,
    );
    const item = (await new OutboxRepository(db).get(id)) as OutboxItem;
    await apply(item, { status: 201, body: { id: 't_1', name: 'A' } });
    expect(rows(db, 'SELECT id FROM tasks')).toEqual([]);
  });
});
