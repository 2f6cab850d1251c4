import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/domain/index.js';
import { dropOutboxItem, enqueue, retryOutboxItem } from '../../src/store/outbox-queue/index.js';
import { OutboxRepository } from '../../src/store/outbox.js';
import { tempDatabase } from '../fixtures/db.js';
import { newTask, newTaskJson } from './tasks.js';
import { outboxItems } from '../fixtures/outbox.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function setState(db: ReturnType<typeof tempDatabase>['db'], id: number, state: string) {
  db.prepare('UPDATE outbox SET state = ? WHERE id = ?').run(state, id);
}

describe('enqueue', () => {
  it('appends a pending item with a UUID idempotency key and the body as JSON', async () => {
    const { db } = tempDatabase();
    const first = await enqueue(
      db,
      { op: 'task.create', projectId: 'p_1', body: newTask('A') },
      NOW,
    );
    const second = await enqueue(
      db,
      { op: 'task.update', projectId: 'p_1', targetId: 't_1', body: { progress: 5 } },
      NOW,
    );
    expect(second.id).toBeGreaterThan(first.id);
    expect(first.idempotencyKey).toMatch(UUID);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
    expect(await new OutboxRepository(db).get(first.id)).toMatchObject({
      op: 'task.create',
      projectId: 'p_1',
      targetId: null,
      body: newTaskJson('A'),
      state: 'pending',
      attempts: 0,
      requestBody: null,
      createdAt: '2026-11-21T12:00:00.000Z',
    });
  });

  it('refuses bad input with a UsageError and queues nothing', async () => {
    const { db } = tempDatabase();
    const attempts = [
      { op: 'task.explode', projectId: 'p_1', body: {} },
      { op: 'task.update', projectId: 'p_1', body: { progress: 5 } },
      { op: 'task.create', projectId: 'p_1', body: newTask('') },
      { op: 'task.create', projectId: ' ', body: newTask('A') },
    ];
    const messages: string[] = [];
    for (const input of attempts) {
      try {
        await enqueue(db, input, NOW);
        messages.push('queued');
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        messages.push((error as Error).message);
      }
    }
    expect(messages).toEqual([
      expect.stringMatching(/unknown op "task.explode"/),
      'task.update needs a target id',
      'task.create body: name must be a non-empty string',
      'an outbox item needs a project id',
    ]);
    expect(await outboxItems(db)).toEqual([]);
  });

  it('gives a plain SQL INSERT its own key, which never changes', async () => {
    const { db } = tempDatabase();
    db.prepare(`INSERT INTO outbox (op, project_id, body) VALUES ('task.create', 'p_1', ?)`).run(
      newTaskJson('A'),
    );
    const [item] = await outboxItems(db);
    expect(item?.idempotencyKey).toMatch(UUID);
    db.prepare(`UPDATE outbox SET state = 'failed' WHERE id = ?`).run(item?.id);
    await retryOutboxItem(db, item?.id ?? 0, NOW);
    expect((await new OutboxRepository(db).get(item?.id ?? 0))?.idempotencyKey).toBe(
      item?.idempotencyKey,
    );
  });
});

describe('managing items', () => {
  it('retries a failed item keeping its attempts, and refuses sending or done ones', async () => {
    const { db } = tempDatabase();
    const { id } = await enqueue(
      db,
      { op: 'task.create', projectId: 'p_1', body: newTask('A') },
      NOW,
    );
    db.prepare(
      `UPDATE outbox SET state = 'failed', attempts = 3, last_error = 'x', next_attempt_at = 'y'
       WHERE id = ?`,
    ).run(id);
    await retryOutboxItem(db, id, NOW + 1000);
    expect(await new OutboxRepository(db).get(id)).toMatchObject({
      state: 'pending',
      attempts: 3,
      nextAttemptAt: null,
      updatedAt: '2026-11-21T12:00:01.000Z',
    });
    setState(db, id, 'sending');
    await expect(retryOutboxItem(db, id, NOW)).rejects.toThrow(
      /item \d+ is sending; only failed or pending/,
    );
    setState(db, id, 'done');
    await expect(retryOutboxItem(db, id, NOW)).rejects.toThrow(/is done/);
    await expect(retryOutboxItem(db, 999, NOW)).rejects.toThrow('no outbox item 999');
  });

  it('drops pending and failed items but never one being sent', async () => {
    const { db } = tempDatabase();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await enqueue(db, { op: 'task.delete', projectId: 'p_1', targetId: 't_1' }, NOW)).id,
      );
    }
    setState(db, ids[1] ?? 0, 'failed');
    setState(db, ids[2] ?? 0, 'sending');
    await dropOutboxItem(db, ids[0] ?? 0);
    await dropOutboxItem(db, ids[1] ?? 0);
    await expect(dropOutboxItem(db, ids[2] ?? 0)).rejects.toThrow(/is sending/);
    expect((await outboxItems(db)).map((item) => item.id)).toEqual([ids[2]]);
  });
});
