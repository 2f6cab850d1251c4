import { describe, expect, it, vi } from 'vitest';
import type { Task } from '../../src/domain/index.js';
import { MirrorWriter } from '../../src/store/writer/writer.js';
import { inTransaction } from '../../src/store/handle.js';
import { MirrorStore } from '../../src/store/mirror-store.js';
import { FakeClock } from '../fixtures/clock.js';
import { decodeRows, encodeRows } from '../../src/store/task-pages.js';
import { taskRows } from '../../src/store/task-rows.js';
import { newTally, type WriteContext } from '../../src/store/write-context.js';
import { tempDatabase } from '../fixtures/db.js';

async function store() {
  const { db } = tempDatabase();
  const mirror = new MirrorStore(db);
  const context: WriteContext = {
    at: '2026-11-21T00:00:00.000Z',
    history: true,
    tally: newTally(),
    fields: mirror.fields,
  };
  await mirror.projects.put({ id: 'p1', name: 'P', active: true, readOnlyReason: null }, context);
  return { db, store: mirror, context };
}

const task = (over: Partial<Task> = {}): Task => ({
  id: 't1',
  name: 'Dig',
  startDate: '2026-01-01',
  endDate: '2026-01-02',
  status: 'NotStarted',
  progress: 0,
  assigneeIds: ['m2', 'm1'],
  ...over,
});

describe('kept page rows', () => {
  it('split back into the exact texts they were joined from', () => {
    const rows = [
      { id: 'a', name: 'line\nbreak, then ",\\n" and [brackets]' },
      { id: 'b', name: 'ünï ☃', nested: { list: [1, 2, { x: null }] } },
    ];
    const texts = rows.map((row) => JSON.stringify(row));
    const encoded = encodeRows(texts);
    expect(JSON.parse(encoded)).toEqual(rows);
    expect(decodeRows(encoded)).toEqual(texts);
    expect(decodeRows(encodeRows([]))).toEqual([]);
  });
});

describe('TasksRepository', () => {
  it('writes a task once and skips the same JSON after', async () => {
    const { db, store: s, context } = await store();
    const text = JSON.stringify(task());
    expect(await s.tasks.put('p1', task(), text, context)).toBe(true);
    expect(await s.tasks.put('p1', task(), text, context)).toBe(false);
    expect(context.tally).toEqual({ rows: 2, history: 1 });
    expect(db.prepare('SELECT member_id FROM task_assignees ORDER BY 1').pluck().all()).toEqual([
      'm1',
      'm2',
    ]);
    expect(db.prepare('SELECT name, status, progress FROM tasks').get()).toEqual({
      name: 'Dig',
      status: 'NotStarted',
      progress: 0,
    });
  });

  it('parses a changed task of a page once, and the copy it replaces once', async () => {
    const { db, store: s, context } = await store();
    await s.tasks.put('p1', task(), JSON.stringify(task()), context);
    const changed = task({ status: 'Done' });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      await s.tasks.putPage('p1', taskRows([changed], [JSON.stringify(changed)]), context, 'kept');
      expect(parse).toHaveBeenCalledTimes(2);
      // The same value in another spelling (PostgreSQL's jsonb) is no change.
      parse.mockClear();
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(changed).reverse()));
      await s.tasks.putPage('p1', taskRows([changed], [reordered]), context, 'kept');
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
    expect(db.prepare('SELECT status FROM tasks').pluck().get()).toBe('Done');
    expect(db.prepare('SELECT COUNT(*) FROM task_history').pluck().get()).toBe(2);
  });

  it('stores NULL in typed columns for fields missing or of another type, and keeps all JSON', async () => {
    const { db, store: s, context } = await store();
    const odd = { id: 't2', name: 7, extra: { deep: true } } as unknown as Task;
    await s.tasks.put('p1', odd, JSON.stringify(odd), context);
    expect(db.prepare('SELECT name, start_date, progress, data FROM tasks').get()).toEqual({
      name: null,
      start_date: null,
      progress: null,
      data: '{"id":"t2","name":7,"extra":{"deep":true}}',
    });
  });
});

describe('MirrorStore.transaction', () => {
  it('nests as a savepoint inside a caller transaction', async () => {
    const { db, store: s, context } = await store();
    await inTransaction(db, async () => {
      await s.tasks.put('p1', task(), JSON.stringify(task()), context);
      await expect(
        s.transaction(async () => {
          await s.tasks.put('p1', task({ id: 't9' }), JSON.stringify(task({ id: 't9' })), context);
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
    });
    expect(db.prepare('SELECT id FROM tasks').pluck().all()).toEqual(['t1']);
  });
});

describe('SeenTasks.markAll', () => {
  it("notes a page, finds a repeat, and fails with the statement's own error", async () => {
    const { db, store: s } = await store();
    await s.transaction(async () => {
      expect(await s.seenTasks.markAll('p1', ['t1', 't2'])).toBeUndefined();
      expect(await s.seenTasks.markAll('p1', ['t3', 't2', 't4'])).toBe('t2');
      expect(await s.seenTasks.markAll('p1', ['t5', 't5'])).toBe('t5');
    });
    // The page with a repeat kept its other ids, as the statement that finds the repeat does.
    expect(await s.seenTasks.count('p1')).toBe(5);
    // A TEMP database that cannot grow: the insert's SQLITE_FULL comes through as it is, and
    // the store's transactions go on.
    const pages = db.pragma('temp.page_count', { simple: true }) as number;
    db.pragma(`temp.max_page_count = ${pages}`);
    const many = Array.from({ length: 2_000 }, (_, i) => `t${1_000 + i}`);
    await expect(s.transaction(() => s.seenTasks.markAll('p1', many))).rejects.toMatchObject({
      code: 'SQLITE_FULL',
    });
    db.pragma('temp.max_page_count = 1073741823');
    await s.transaction(async () => {
      expect(await s.seenTasks.markAll('p1', ['t6'])).toBeUndefined();
    });
    expect(await s.seenTasks.count('p1')).toBe(6);
  });
});

describe('ProjectRecordsRepository', () => {
  it('replaces a list writing only what changed, leaving the ids it is told to keep', async () => {
    const { db, store: s, context } = await store();
    const members = s.records.members;
    const ab = [
      { id: 'a', name: 'A' },
      { id: 'b', kind: 'integration' },
    ];
    expect(await members.replace('p1', ab, context)).toEqual(['a', 'b']);
    expect(await members.replace('p1', [{ id: 'a', name: 'A' }, { id: 'c' }], context)).toEqual([
      'c',
      'b',
    ]);
    expect(await members.replace('p1', [{ id: 'a', name: 'A' }, { id: 'c' }], context)).toEqual([]);
    // Kept ids are neither overwritten nor deleted.
    const keep = new Set(['a', 'c']);
    expect(
      await members.replace('p1', [{ id: 'a', name: 'Old' }, { id: 'd' }], context, keep),
    ).toEqual(['d']);
    expect(db.prepare('SELECT id, name, kind FROM members ORDER BY id').all()).toEqual([
      { id: 'a', name: 'A', kind: null },
      { id: 'c', name: null, kind: null },
      { id: 'd', name: null, kind: null },
    ]);
  });
});

describe('SyncStateRepository', () => {
  it('tracks a backfill to its end and keeps errors until a pass succeeds', async () => {
    const { store: s } = await store();
    expect(await s.syncState.hasBaseline('p1')).toBe(false);
    await s.syncState.beginBackfill('p1');
    await s.syncState.backfillProgress('p1', 2, 1234);
    await s.syncState.backfillProgress('p1', 3, null);
    await s.syncState.passFailed('p1', 'quota', '2026-11-21T01:00:00.000Z');
    expect(await s.syncState.get('p1')).toMatchObject({
      backfill: 'in_progress',
      pagesRead: 3,
      totalCount: 1234,
      lastError: 'quota',
    });
    const at = '2026-11-21T02:00:00.000Z';
    await s.syncState.passCompleted('p1', {
      at,
      pagesRead: 3,
      totalCount: 1234,
      projectEtag: '"e"',
      changed: false,
    });
    expect(await s.syncState.get('p1')).toMatchObject({
      backfill: 'done',
      lastPassAt: at,
      lastChangeAt: null,
      projectEtag: '"e"',
      lastError: null,
    });
    expect(await s.syncState.hasBaseline('p1')).toBe(true);
  });
});

describe('the writer reads a stored task once a write', () => {
  it('for a put and for an assignees change, whether the task is new or held', async () => {
    const { db } = tempDatabase();
    const store = new MirrorStore(db);
    const writer = new MirrorWriter(store, new FakeClock());
    const at = '2026-11-21T00:00:00.000Z';
    await store.projects.put(
      { id: 'p1', name: 'P', active: true, readOnlyReason: null },
      { at, history: true, tally: newTally(), fields: store.fields },
    );
    const find = vi.spyOn(store.tasks, 'find');
    const put = (record: Task) =>
      writer.applyChanges('p1', [{ op: 'put', type: 'task', projectId: 'p1', record }], 'test');
    expect(await put(task({ id: 't1' }))).toBe('changed');
    expect(find).toHaveBeenCalledTimes(1);
    expect(await put(task({ id: 't1', name: 'Renamed' }))).toBe('changed');
    expect(find).toHaveBeenCalledTimes(2);
    const assign = { op: 'assignees', projectId: 'p1', taskId: 't1', assigneeIds: ['m2'] } as const;
    expect(await writer.applyChanges('p1', [assign], 'test')).toBe('changed');
    expect(find).toHaveBeenCalledTimes(3);
    expect(db.prepare(`SELECT member_id FROM task_assignees`).pluck().all()).toEqual(['m2']);
  });
});
