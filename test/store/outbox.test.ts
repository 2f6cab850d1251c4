import { describe, expect, it } from 'vitest';
import { OutboxRepository } from '../../src/store/outbox.js';
import { tempDatabase } from '../fixtures/db.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function setup() {
  const { db } = tempDatabase();
  const outbox = new OutboxRepository(db);
  const add = async (projectId: string, at = NOW) =>
    (await outbox.insert({ op: 'task.delete', projectId, targetId: 't_1', body: '{}' }, at)).id;
  return { db, outbox, add };
}

describe('OutboxRepository', () => {
  it('inserts pending items with a key from SQL, and reads them back in queue order', async () => {
    const { outbox, add } = setup();
    const created = await outbox.insert(
      { op: 'task.create', projectId: 'p_1', targetId: null, body: '{"name":"A"}' },
      NOW,
    );
    expect(created.idempotencyKey).toMatch(UUID);
    const second = await add('p_2');
    expect(await outbox.get(created.id)).toEqual({
      id: created.id,
      op: 'task.create',
      projectId: 'p_1',
      targetId: null,
      body: '{"name":"A"}',
      idempotencyKey: created.idempotencyKey,
      state: 'pending',
      attempts: 0,
      lastError: null,
      result: null,
      requestBody: null,
      nextAttemptAt: null,
      createdAt: '2026-11-21T12:00:00.000Z',
      updatedAt: '2026-11-21T12:00:00.000Z',
      tokenLabel: null,
      base: null,
      conflict: null,
    });
    expect(await outbox.get(999)).toBeUndefined();
    expect((await outbox.list()).map((item) => item.id)).toEqual([created.id, second]);
    expect((await outbox.list({ limit: 1 })).map((item) => item.id)).toEqual([created.id]);
  });

  it('walks an item through sending, back to pending, and done or failed', async () => {
    const { outbox, add } = setup();
    const id = await add('p_1');
    await outbox.markSending(id, '', NOW + 1_000);
    expect(await outbox.get(id)).toMatchObject({ state: 'sending', attempts: 1, requestBody: '' });
    await outbox.requeue(
      id,
      { error: 'HTTP 503', dueAt: NOW + 5_000, uncount: false },
      NOW + 2_000,
    );
    expect(await outbox.get(id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'HTTP 503',
      nextAttemptAt: '2026-11-21T12:00:05.000Z',
      updatedAt: '2026-11-21T12:00:02.000Z',
    });
    await outbox.markSending(id, '', NOW);
    await outbox.requeue(id, { error: null, dueAt: null, uncount: true }, NOW);
    expect(await outbox.get(id)).toMatchObject({
      attempts: 1,
      lastError: 'HTTP 503',
      nextAttemptAt: null,
    });
    await outbox.requeue(id, { error: 'late', dueAt: null, uncount: false }, NOW);
    expect((await outbox.get(id))?.lastError).toBe('HTTP 503');
    await outbox.markSending(id, '', NOW);
    await outbox.markDone(id, '{"id":"t_1"}', null, NOW);
    expect(await outbox.get(id)).toMatchObject({
      state: 'done',
      result: '{"id":"t_1"}',
      lastError: null,
    });

    const other = await add('p_1');
    await outbox.markFailed(other, 'invalid_body: nope', NOW);
    expect(await outbox.get(other)).toMatchObject({
      state: 'failed',
      lastError: 'invalid_body: nope',
    });
    await outbox.makeDue(other, NOW);
    expect((await outbox.get(other))?.state).toBe('pending');
    await outbox.remove(other);
    expect(await outbox.get(other)).toBeUndefined();
  });

  it('gives the first unfinished item of each project as its head', async () => {
    const { outbox, add } = setup();
    const a1 = await add('p_a');
    const b1 = await add('p_b');
    const a2 = await add('p_a');
    const c1 = await add('p_c');
    await outbox.markSending(b1, '', NOW);
    await outbox.markFailed(c1, 'x', NOW);
    expect((await outbox.heads()).map((item) => item.id)).toEqual([a1, b1]);
    expect((await outbox.unfinished()).map((item) => item.id)).toEqual([a1, b1, a2]);
    expect([...(await outbox.unfinishedByProject()).values()].reduce((a, b) => a + b, 0)).toBe(3);
    await outbox.markSending(a1, '', NOW);
    await outbox.markDone(a1, null, null, NOW);
    expect((await outbox.heads()).map((item) => item.id)).toEqual([b1, a2]);
  });

  it('summarises counts by state and the oldest pending age', async () => {
    const { outbox, add } = setup();
    expect(await outbox.summary(NOW)).toEqual({
      counts: { pending: 0, sending: 0, done: 0, failed: 0, conflict: 0, discarded: 0 },
      oldestPendingAt: null,
      oldestPendingAgeMs: null,
    });
    const a = await add('p_1', NOW - 90_000);
    await add('p_1', NOW - 30_000);
    const c = await add('p_2', NOW - 10_000);
    await outbox.markDone(a, null, null, NOW);
    await outbox.markFailed(c, 'x', NOW);
    expect(await outbox.summary(NOW)).toEqual({
      counts: { pending: 1, sending: 0, done: 1, failed: 1, conflict: 0, discarded: 0 },
      oldestPendingAt: '2026-11-21T11:59:30.000Z',
      oldestPendingAgeMs: 30_000,
    });
    expect((await outbox.list({ state: 'failed' })).map((item) => item.id)).toEqual([c]);
  });

  it('puts items left sending back to pending, attempts kept', async () => {
    const { outbox, add } = setup();
    const id = await add('p_1');
    await outbox.markSending(id, '', NOW);
    expect(await outbox.recoverInterrupted(NOW + 1)).toBe(1);
    expect(await outbox.get(id)).toMatchObject({ state: 'pending', attempts: 1 });
    expect(await outbox.recoverInterrupted(NOW + 2)).toBe(0);
  });

  it('undoes only the inner writes when a nested transaction throws', async () => {
    const { outbox, add } = setup();
    const id = await add('p_1');
    await outbox.transaction(async () => {
      await expect(
        outbox.transaction(async () => {
          await outbox.markFailed(id, 'inner', NOW);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await outbox.markSending(id, '', NOW);
    });
    expect(await outbox.get(id)).toMatchObject({ state: 'sending', lastError: null });
  });
});
