import pino from 'pino';
import { storeOver } from '../fixtures/store.js';
import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDb } from '../../src/store/database.js';
import { OutboxPusher, type OutboxPusherOptions } from '../../src/outbox/index.js';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { OutboxRepository } from '../../src/store/outbox.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { drive } from '../remote/stand-in.js';
import { asRemoteApi, FakeRemote } from './fake-remote.js';
import { newTask, newTaskJson } from './tasks.js';
import { outboxItems } from '../fixtures/outbox.js';

const silent = pino({ level: 'silent' });

function addProject(db: SqliteDb, id: string, readOnlyReason: string | null = null): void {
  db.prepare(
    `INSERT INTO projects (id, name, active, read_only_reason, data, synced_at)
     VALUES (?, ?, 1, ?, '{}', '2026-01-01T00:00:00.000Z')`,
  ).run(id, `Project ${id}`, readOnlyReason);
  db.prepare(`INSERT INTO sync_state (project_id, backfill) VALUES (?, 'done')`).run(id);
}

function setup(options: Partial<OutboxPusherOptions> = {}) {
  const { db, file } = tempDatabase();
  addProject(db, 'p_1');
  addProject(db, 'p_2');
  const clock = new FakeClock();
  const fake = new FakeRemote();
  const pusher = new OutboxPusher({
    store: storeOver(db, clock),
    remote: asRemoteApi(fake),
    clock,
    logger: silent,
    random: () => 0.5,
    ...options,
  });
  const queue = async (op: string, projectId: string, body: unknown = {}, targetId?: string) =>
    (await enqueue(db, { op, projectId, body, targetId: targetId ?? null }, clock.now())).id;
  return { db, file, clock, fake, pusher, queue };
}

/** Seeds one task both on the fake service and in the mirror. */
function seedTask(db: SqliteDb, fake: FakeRemote, id: string, projectId: string): void {
  const task = { id, projectId, name: id, progress: 0, status: 'NotStarted', assigneeIds: [] };
  fake.tasks.set(id, task);
  db.prepare(
    `INSERT INTO tasks (id, project_id, name, progress, status, data, synced_at)
     VALUES (?, ?, ?, 0, 'NotStarted', ?, '2026-01-01T00:00:00.000Z')`,
  ).run(id, projectId, id, JSON.stringify(task));
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let turn = 0; turn < 200 && !(await condition()); turn++) await flushMicrotasks();
  expect(await condition()).toBe(true);
}

describe('OutboxPusher.pushOnce', () => {
  it('sends each project in queue order and applies the last queued state', async () => {
    const { db, fake, pusher, queue } = setup();
    seedTask(db, fake, 't_9', 'p_1');
    const ids = [
      await queue('task.update', 'p_1', { progress: 10 }, 't_9'),
      await queue('task.create', 'p_2', newTask('Other')),
      await queue('task.update', 'p_1', { progress: 50, name: 'Middle' }, 't_9'),
      await queue('task.update', 'p_1', { progress: 80 }, 't_9'),
    ];
    const report = await pusher.pushOnce();
    expect(report).toMatchObject({ sent: 4, done: 4, failed: 0, pending: 0 });
    const p1Bodies = fake.requests.filter((r) => r.projectId === 'p_1').map((r) => r.body);
    expect(p1Bodies).toEqual([
      '{"progress":10}',
      '{"progress":50,"name":"Middle"}',
      '{"progress":80}',
    ]);
    expect(fake.tasks.get('t_9')).toMatchObject({ progress: 80, name: 'Middle' });
    const row = db.prepare('SELECT progress, name FROM tasks WHERE id = ?').get('t_9');
    expect(row).toEqual({ progress: 80, name: 'Middle' });
    expect((await outboxItems(db)).map((item) => [item.id, item.state])).toEqual(
      ids.map((id) => [id, 'done']),
    );
  });

  it('writes a created task into the mirror with the service id, in the done transaction', async () => {
    const { db, pusher, queue } = setup();
    const id = await queue('task.create', 'p_1', {
      name: 'Pour',
      startDate: '2026-05-01',
      endDate: '2026-05-03',
      status: 'NotStarted',
      assigneeIds: ['m_2', 'm_1'],
    });
    await pusher.pushOnce();
    const item = await new OutboxRepository(db).get(id);
    expect(item?.state).toBe('done');
    const result = JSON.parse(item?.result ?? 'null') as { id: string };
    expect(result.id).toBe('t_1');
    expect(db.prepare('SELECT project_id, name, start_date, end_date FROM tasks').all()).toEqual([
      { project_id: 'p_1', name: 'Pour', start_date: '2026-05-01', end_date: '2026-05-03' },
    ]);
    const assignees = db.prepare('SELECT member_id FROM task_assignees ORDER BY 1').pluck().all();
    expect(assignees).toEqual(['m_1', 'm_2']);
    const history = db.prepare('SELECT field FROM task_history WHERE task_id = ?').pluck();
    expect(history.all('t_1')).toContain('created');
  });

  it('removes the mirror row of a delete, and counts a 404 on a resent delete as done', async () => {
    const { db, fake, pusher, queue } = setup({ itemRetryWindowMs: 0 });
    seedTask(db, fake, 't_1', 'p_1');
    const id = await queue('task.delete', 'p_1', {}, 't_1');
    fake.faults.push({ kind: 'commitThenDrop' });
    expect(await pusher.pushOnce({ ignoreBackoff: true })).toMatchObject({ retried: 1 });
    expect(fake.tasks.has('t_1')).toBe(false);
    expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(1);
    expect(await pusher.pushOnce({ ignoreBackoff: true })).toMatchObject({ done: 1, pending: 0 });
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'done', attempts: 2 });
    expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(0);
  });

  it('resends a create after a 5xx or a lost answer within the pass, same key and bytes, creating once', async () => {
    const { db, clock, fake, pusher, queue } = setup();
    const id = await queue('task.create', 'p_1', newTask('A'));
    fake.faults.push(
      { kind: 'status', status: 503, code: 'unavailable' },
      { kind: 'commitThenDrop' },
    );
    const delays: number[] = [];
    const report = await drive(pusher.pushOnce(), clock, delays);
    expect(report).toMatchObject({ sent: 3, retried: 2, done: 1, pending: 0 });
    // Backoff ceilings of 1 s doubling, full jitter at 0.5.
    expect(delays).toEqual([500, 1_000]);
    const item = await new OutboxRepository(db).get(id);
    expect(item).toMatchObject({ state: 'done', attempts: 3 });
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) {
      expect(request.idempotencyKey).toBe(item?.idempotencyKey);
      expect(request.body).toBe(item?.requestBody);
    }
    expect(fake.tasksOf('p_1')).toHaveLength(1);
    expect(db.prepare('SELECT id FROM tasks').pluck().all()).toEqual(['t_1']);
  });

  it('leaves an item past its retry window pending, due after the backoff of its attempts', async () => {
    const { db, clock, fake, pusher, queue } = setup({ itemRetryWindowMs: 0 });
    const id = await queue('task.create', 'p_1', newTask('A'));
    fake.faults.push(
      { kind: 'status', status: 503, code: 'unavailable' },
      { kind: 'commitThenDrop' },
    );
    expect(await pusher.pushOnce()).toMatchObject({ sent: 1, retried: 1, pending: 1 });
    const afterFirst = await new OutboxRepository(db).get(id);
    expect(afterFirst).toMatchObject({ state: 'pending', attempts: 1 });
    expect(afterFirst?.lastError).toMatch(/HTTP 503 unavailable/);
    expect(Date.parse(afterFirst?.nextAttemptAt ?? '')).toBe(clock.now() + 500);
    expect(await pusher.pushOnce()).toMatchObject({ sent: 0, pending: 1 });
    await clock.advance(500);
    expect(await pusher.pushOnce()).toMatchObject({ sent: 1, retried: 1 });
    const afterSecond = await new OutboxRepository(db).get(id);
    expect(Date.parse(afterSecond?.nextAttemptAt ?? '')).toBe(clock.now() + 1_000);
    expect(await pusher.pushOnce({ ignoreBackoff: true })).toMatchObject({ sent: 1, done: 1 });
    expect(fake.tasksOf('p_1')).toHaveLength(1);
  });

  it('holds back the later items of a project past its retry window, but not other projects', async () => {
    const { fake, pusher, queue } = setup({ itemRetryWindowMs: 0 });
    await queue('task.create', 'p_1', newTask('first'));
    await queue('task.create', 'p_1', newTask('second'));
    await queue('task.create', 'p_2', newTask('elsewhere'));
    fake.faults.push({ kind: 'network' });
    const report = await pusher.pushOnce();
    expect(report).toMatchObject({ sent: 2, done: 1, retried: 1, pending: 2 });
    expect(fake.requests.map((r) => r.body)).toEqual([
      newTaskJson('first'),
      newTaskJson('elsewhere'),
    ]);
  });

  it('treats a malformed success answer to a create as not done and retries it', async () => {
    const { db, fake, pusher, queue } = setup({ itemRetryWindowMs: 0 });
    const id = await queue('task.create', 'p_1', newTask('A'));
    fake.faults.push({ kind: 'malformed' });
    expect(await pusher.pushOnce()).toMatchObject({ retried: 1, done: 0 });
    expect((await new OutboxRepository(db).get(id))?.lastError).toMatch(/malformed response/);
    expect(await pusher.pushOnce({ ignoreBackoff: true })).toMatchObject({ done: 1 });
  });

  it('marks an update done, sent once, when its 2xx answer is malformed', async () => {
    const { db, fake, pusher, queue } = setup();
    seedTask(db, fake, 't_9', 'p_1');
    const id = await queue('task.update', 'p_1', { progress: 40 }, 't_9');
    fake.faults.push({ kind: 'malformed' });
    expect(await pusher.pushOnce()).toMatchObject({ done: 1, retried: 0, pending: 0 });
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'done' });
    expect(fake.requests).toHaveLength(1);
  });

  it('marks an edit done with a note when its answer cannot be mirrored', async () => {
    const { db, fake, pusher, queue } = setup();
    seedTask(db, fake, 't_9', 'p_1');
    const id = await queue('task.update', 'p_1', { progress: 40 }, 't_9');
    fake.faults.push({ kind: 'emptyAnswer' });
    expect(await pusher.pushOnce()).toMatchObject({ done: 1, pending: 0 });
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'done', attempts: 1 });
    expect((await new OutboxRepository(db).get(id))?.lastError).toMatch(
      /done; the answer was not mirrored/,
    );
    expect(await pusher.pushOnce({ ignoreBackoff: true })).toMatchObject({ sent: 0 });
  });

  it('waits out a 429 as told without counting it as an attempt', async () => {
    const { db, clock, fake, pusher, queue } = setup();
    const id = await queue('task.create', 'p_1', newTask('A'));
    fake.faults.push({ kind: 'rateLimited', retryAfterMs: 30_000 });
    const pass = pusher.pushOnce();
    await until(() => clock.pendingSleeps === 1);
    expect(clock.nextWakeAt).toBe(clock.now() + 30_000);
    expect(fake.requests).toHaveLength(1);
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'pending', attempts: 0 });
    await clock.advance(30_000);
    expect(await pass).toMatchObject({ rateLimited: 1, sent: 2, done: 1, failed: 0 });
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('ends the pass on a pause longer than it will wait, leaving the item pending', async () => {
    const { db, clock, fake, pusher, queue } = setup({ maxRateLimitWaitMs: 60_000 });
    const id = await queue('task.create', 'p_1', newTask('A'));
    fake.faults.push({ kind: 'rateLimited', retryAfterMs: 3_600_000 });
    expect(await pusher.pushOnce()).toMatchObject({ rateLimited: 1, pending: 1 });
    const item = await new OutboxRepository(db).get(id);
    expect(item).toMatchObject({ state: 'pending', attempts: 0 });
    expect(Date.parse(item?.nextAttemptAt ?? '')).toBe(clock.now() + 3_600_000);
  });

  it('fails 409 and other 4xx with the service code and message; the queue goes on', async () => {
    const { db, fake, pusher, queue } = setup();
    const conflict = await queue('task.create', 'p_1', newTask('A'));
    const refused = await queue('task.create', 'p_1', newTask('B'));
    const fine = await queue('task.create', 'p_1', newTask('C'));
    fake.faults.push(
      { kind: 'status', status: 409, code: 'idempotency_conflict', message: 'key reused' },
      { kind: 'status', status: 400, code: 'validation_failed', message: 'name too long' },
    );
    expect(await pusher.pushOnce()).toMatchObject({ sent: 3, failed: 2, done: 1, pending: 0 });
    expect((await new OutboxRepository(db).get(conflict))?.lastError).toMatch(
      /^idempotency_conflict: .*HTTP 409 idempotency_conflict: key reused$/,
    );
    expect(await new OutboxRepository(db).get(refused)).toMatchObject({
      state: 'failed',
      attempts: 1,
    });
    expect((await new OutboxRepository(db).get(refused))?.lastError).toMatch(
      /^validation_failed: .*name too long/,
    );
    expect((await new OutboxRepository(db).get(fine))?.state).toBe('done');
  });

  it('fails an item of a read-only project without spending a request', async () => {
    const { db, fake, pusher, queue } = setup();
    addProject(db, 'p_ro', 'archived');
    const id = await queue('task.create', 'p_ro', newTask('A'));
    expect(await pusher.pushOnce()).toMatchObject({ sent: 0, failed: 1 });
    expect(fake.requests).toEqual([]);
    expect(await new OutboxRepository(db).get(id)).toMatchObject({
      state: 'failed',
      attempts: 0,
      lastError: 'project_read_only: project p_ro is read-only (archived)',
    });
  });

  it('fails rows with an unknown op or an invalid body, and sends the rows after them', async () => {
    const { db, fake, pusher } = setup();
    const insert = db.prepare(
      'INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?)',
    );
    insert.run('task.explode', 'p_1', null, '{}');
    insert.run('task.create', 'p_1', null, '{"name":"A","startDate":"2026-01-01"}');
    insert.run('task.update', 'p_1', 't_1', 'not json');
    insert.run('task.create', 'p_1', null, newTaskJson('ok'));
    const report = await pusher.pushOnce();
    expect(report).toMatchObject({ sent: 1, failed: 3, done: 1 });
    expect((await outboxItems(db)).map((item) => item.lastError)).toEqual([
      expect.stringMatching(/^invalid_op: unknown op "task.explode"/),
      'invalid_body: task.create body: a new task needs endDate, status',
      'invalid_body: task.update body is not JSON',
      null,
    ]);
    const [sent] = fake.requests;
    const plainKey = (await outboxItems(db))[3]?.idempotencyKey;
    expect(sent?.idempotencyKey).toBe(plainKey);
  });

  it('after a crash mid-push, resends the item once with the same key and bytes', async () => {
    const { db, file, clock, fake, pusher, queue } = setup();
    const id = await queue('task.create', 'p_1', newTask('A'));
    // The service applies the create, and the process dies before the answer arrives.
    fake.faults.push({ kind: 'commitThenHang' });
    void pusher.pushOnce();
    await until(() => fake.tasksOf('p_1').length === 1);
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'sending', attempts: 1 });
    db.close();

    const reopened = openDatabase(file);
    try {
      const restarted = new OutboxPusher({
        store: storeOver(reopened, clock),
        remote: asRemoteApi(fake),
        clock,
        logger: silent,
      });
      expect(await restarted.pushOnce()).toMatchObject({ sent: 1, done: 1, pending: 0 });
      expect(fake.requests).toHaveLength(2);
      expect(new Set(fake.requests.map((r) => `${r.idempotencyKey} ${r.body}`)).size).toBe(1);
      expect(fake.tasksOf('p_1')).toHaveLength(1);
      expect(await new OutboxRepository(reopened).get(id)).toMatchObject({
        state: 'done',
        attempts: 2,
      });
      expect(reopened.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(1);
    } finally {
      reopened.close();
    }
  });
});

describe('OutboxPusher.start', () => {
  it('pushes items while it runs: woken, after backoff, and on its idle poll; stops cleanly', async () => {
    const { db, clock, fake, pusher, queue } = setup({ idleIntervalMs: 1_000 });
    pusher.start();
    await until(() => clock.pendingSleeps === 1);
    const first = await queue('task.create', 'p_1', newTask('A'));
    fake.faults.push({ kind: 'network' });
    pusher.wake();
    await until(() => fake.requests.length === 1 && clock.pendingSleeps === 1);
    expect((await new OutboxRepository(db).get(first))?.state).toBe('pending');
    expect(clock.nextWakeAt).toBe(clock.now() + 500);
    await clock.advance(500);
    await until(
      async () =>
        (await new OutboxRepository(db).get(first))?.state === 'done' && clock.pendingSleeps === 1,
    );

    db.prepare(`INSERT INTO outbox (op, project_id, body) VALUES ('task.create', 'p_2', ?)`).run(
      newTaskJson('B'),
    );
    await clock.advance(1_000);
    await until(async () => (await outboxItems(db, { state: 'done' })).length === 2);
    await pusher.stop();
    expect(clock.pendingSleeps).toBe(0);
    expect(fake.requests).toHaveLength(3);
  });
});
