import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EventBatch } from '../../src/daemon/event-batch.js';
import { MalformedResponseError, type CheckedEvent } from '../../src/domain/index.js';
import { checkEvent } from '../../src/realtime/index.js';
import { openDatabase } from '../../src/store/database.js';
import { makeTask } from './fake-remote.js';
import { setup } from './helpers.js';

/** A task.updated event for `id` of p1, with `overrides` and a later `updatedAt`, checked. */
function updated(id: string, n: number, overrides: Record<string, unknown> = {}): CheckedEvent {
  const updatedAt = new Date(Date.UTC(2027, 0, 1) + n * 1_000).toISOString();
  const data = { ...makeTask(id), updatedAt, ...overrides };
  return checkEvent({ type: 'task.updated', projectId: 'p1', id, data });
}

async function synced() {
  const context = setup({ pageSize: 50 });
  context.remote.seed('p1', 200);
  expect((await context.mirror.syncProject('p1')).ok).toBe(true);
  return context;
}

function walBytes(file: string): number {
  return statSync(`${file}-wal`).size;
}

describe('events written together (group commit)', () => {
  it('writes events that arrive during a write in one transaction, each with its outcome', async () => {
    const { db, mirror } = await synced();
    const sizes: number[] = [];
    const batch = new EventBatch(async (events) => {
      sizes.push(events.length);
      return await mirror.writer.applyEvents(events);
    });
    const events = Array.from({ length: 25 }, (_, i) =>
      updated(`p1-t${i + 1}`, i, { progress: 50 }),
    );
    // Records are checked before the batch (`checkEvent`); the store still refuses a change of
    // another project than its event's, and that one alone.
    const bad: CheckedEvent = {
      type: 'task.updated',
      projectId: 'p1',
      changes: [{ op: 'put', type: 'task', projectId: 'p2', record: makeTask('p1-t30') }],
    };
    const outcomes = await Promise.allSettled(
      [...events.slice(0, 10), bad as never, ...events.slice(10)].map((e) => batch.apply(e)),
    );
    // The first event alone (nothing was in flight), then the others together.
    expect(sizes).toEqual([1, 25]);
    expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)).toEqual(
      Array(25).fill('changed'),
    );
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(MalformedResponseError);
    expect((rejected.reason as Error).message).toMatch(/event task\.updated.*malformed response/);
    const progress = db.prepare(`SELECT count(*) FROM tasks WHERE progress = 50`).pluck().get();
    expect(progress).toBe(25);
  });

  it('bounds a transaction at its maximum count', async () => {
    const { mirror } = await synced();
    const sizes: number[] = [];
    const batch = new EventBatch(async (events) => {
      sizes.push(events.length);
      return await mirror.writer.applyEvents(events);
    }, 10);
    const events = Array.from({ length: 31 }, (_, i) => updated(`p1-t${i + 1}`, i));
    await Promise.all(events.map((e) => batch.apply(e)));
    expect(sizes).toEqual([1, 10, 10, 10]);
  });

  it('fails every event of a transaction the store refused, and writes none of them', async () => {
    const { db, mirror } = await synced();
    const batch = new EventBatch(async (events) => {
      await mirror.writer.applyEvents(events);
      throw new Error('disk I/O error');
    });
    const events = Array.from({ length: 5 }, (_, i) =>
      updated(`p1-t${i + 1}`, i, { progress: 77 }),
    );
    const outcomes = await Promise.allSettled(events.map((e) => batch.apply(e)));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    // applyEvents committed before the fake failure: the refusal is the caller's to report.
    expect(db.prepare('SELECT count(*) FROM tasks WHERE progress = 77').pluck().get()).toBe(5);
  });

  it('appends less to the WAL for a burst than for the same events one by one', async () => {
    const { file, mirror } = await synced();
    const reader = openDatabase(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM tasks').get();
    try {
      const before = walBytes(file);
      for (let i = 0; i < 20; i++) {
        await mirror.writer.applyEvent(updated(`p1-t${i + 1}`, i, { name: `one ${i}` }));
      }
      const single = walBytes(file) - before;
      const batch = new EventBatch((events) => mirror.writer.applyEvents(events));
      const burst = Array.from({ length: 20 }, (_, i) =>
        updated(`p1-t${i + 21}`, i, { name: `burst ${i}` }),
      );
      const middle = walBytes(file);
      await Promise.all(burst.map((e) => batch.apply(e)));
      const together = walBytes(file) - middle;
      expect(together).toBeLessThan(single / 3);
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
  });

  it('leaves the indexes of tasks alone when an update keeps their columns', async () => {
    const { db, file, mirror } = await synced();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = () => {
      const buf = readFileSync(`${file}-wal`);
      const size = db.pragma('page_size', { simple: true }) as number;
      const owner = db.prepare('SELECT name FROM dbstat WHERE pageno = ?').pluck();
      const names = new Set<string>();
      for (let at = 32; at + 24 <= buf.length; at += size + 24) {
        names.add(String(owner.get(buf.readUInt32BE(at))));
      }
      return names;
    };
    await mirror.writer.applyEvent(updated('p1-t3', 1, { progress: 40 }));
    expect(pages()).not.toContain('tasks_by_project');
    expect(pages()).not.toContain('tasks_open_by_end_date');
    db.pragma('wal_checkpoint(TRUNCATE)');
    await mirror.writer.applyEvent(updated('p1-t3', 2, { progress: 40, status: 'Done' }));
    expect(pages()).toContain('tasks_by_project');
    expect(db.prepare(`SELECT status FROM tasks WHERE id = 'p1-t3'`).pluck().get()).toBe('Done');
  });
});
