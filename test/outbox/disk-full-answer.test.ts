/**
 * An answer the service gave that a full disk will not let the pusher record (issue 38): a real
 * SQLite file capped by `PRAGMA max_page_count` once the request is sent, a manual clock. The
 * answer is kept and recorded once there is room, with one request; the tries meanwhile are told
 * to the disk watch, and logged once (with the watch) or once a minute (without it).
 */
import { describe, expect, it } from 'vitest';
import { OutboxPusher, type DiskReports } from '../../src/outbox/index.js';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import type { RemoteApi } from '../../src/domain/index.js';
import { captureLogger } from '../fixtures/capture-log.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { outboxItems } from '../fixtures/outbox.js';
import { storeOver } from '../fixtures/store.js';
import { checkIntegrity } from '../reliability/helpers.js';
import { asRemoteApi, FakeRemote } from './fake-remote.js';
import { newTask } from './tasks.js';

const MINUTE = 60_000;

/** Pushes a long create whose answer meets a full disk for three minutes, then room. */
async function fullForThreeMinutes(disk: DiskReports | undefined) {
  const { db, file } = tempDatabase();
  db.prepare(
    `INSERT INTO projects (id, name, active, data, synced_at)
     VALUES ('p_1', 'One', 1, '{}', '2026-01-01T00:00:00.000Z')`,
  ).run();
  db.prepare(`INSERT INTO sync_state (project_id, backfill) VALUES ('p_1', 'done')`).run();
  const clock = new FakeClock();
  const fake = new FakeRemote();
  const inner = asRemoteApi(fake);
  // The service takes the request; then the disk fills before its answer is written.
  const remote: RemoteApi = {
    ...inner,
    send: async (request, call) => {
      const response = await inner.send(request, call);
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      return response;
    },
  };
  const { logger, lines } = captureLogger('warn');
  const pusher = new OutboxPusher({
    store: storeOver(db, clock),
    remote,
    clock,
    logger,
    random: () => 0.5,
    ...(disk ? { disk } : {}),
  });
  const item = await enqueue(
    db,
    { op: 'task.create', projectId: 'p_1', body: newTask(`long ${'x'.repeat(30_000)}`) },
    clock.now(),
  );
  const pass = pusher.pushOnce();
  for (let ms = 0; ms < 3 * MINUTE; ms += 1_000) {
    await flushMicrotasks();
    await clock.advance(1_000);
  }
  expect((await outboxItems(db)).find((i) => i.id === item.id)?.state).toBe('sending');
  db.pragma('max_page_count = 1073741823');
  await clock.advance(10_000);
  const report = await pass;
  expect(report).toMatchObject({ sent: 1, done: 1, pending: 0 });
  expect(fake.requests).toHaveLength(1);
  expect(fake.tasksOf('p_1')).toHaveLength(1);
  expect((await outboxItems(db)).find((i) => i.id === item.id)?.state).toBe('done');
  expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  return lines.map((line) => line.msg);
}

describe('an answer a full disk will not let the pusher record', () => {
  it('with the disk watch: told of each refusal and of the end, one line of its own', async () => {
    const told: string[] = [];
    const lines = await fullForThreeMinutes({
      refused: () => told.push('refused'),
      wrote: () => told.push('wrote'),
    });
    expect(lines).toEqual(['cannot record an answer yet']);
    expect(told.filter((t) => t === 'refused').length).toBeGreaterThan(30);
    expect(told.at(-1)).toBe('wrote');
    expect(told.filter((t) => t === 'wrote')).toHaveLength(1);
  });

  it('without it (a one-shot push): one line, then at most one a minute', async () => {
    const lines = await fullForThreeMinutes(undefined);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(new Set(lines)).toEqual(new Set(['cannot record an answer yet']));
  });
});
